"""A method written apart, as docs/writing-a-method.md says and nothing else: the pairwise
plugin (tests/plugins/pairwise_method) built as a wheel, installed apart from the workbench,
run on the test server, and found on every surface: metrics, export, report, the app.

The same plugin as the previous release shipped it (tests/plugins/pairwise_0_1, written against
plugin API 1: never edit it) runs unchanged on every change, on every surface too."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from openai_server import ServerConfig

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugins" / "pairwise_method"
# The previous release's plugin, frozen: the plugin API must keep running it (CHANGELOG.md).
FROZEN = ROOT / "tests" / "plugins" / "pairwise_0_1"
DOC = ROOT / "docs" / "writing-a-method.md"

METRICS_SCREEN = """
import asyncio, sys
sys.path.insert(0, sys.argv[2])
from helpers import table_text, wait_for
from workbench.app import WorkbenchApp

async def main():
    app = WorkbenchApp(sys.argv[1])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        assert await wait_for(pilot, lambda: app.screen.query_one("#pairwise-table").row_count > 0)
        print(repr(table_text(app, "#pairwise-table")))
        await pilot.press("g")  # the plugin's filter key: one topic
        assert await wait_for(pilot, lambda: app.screen.query_one("#pairwise-table").row_count == 3)
        print(repr(table_text(app, "#pairwise-table")))

asyncio.run(main())
"""


def _workbench(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], capture_output=True, text=True, env=env, cwd=site, timeout=300
    )


def _install_apart(tmp_path: Path, plugin: Path = PLUGIN) -> Path:
    """The plugin copied, built as a wheel (offline, with the setuptools installed here) and
    installed into a folder of its own: the workbench finds it by its entry point only."""
    source = shutil.copytree(plugin, tmp_path / "pairwise_method")
    dist, site = tmp_path / "dist", tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(source)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = dist.glob("workbench_pairwise-*.whl")
    assert "workbench_pairwise/__init__.py" in zipfile.ZipFile(wheel).namelist()
    installed = subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)], capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return site


@pytest.mark.slow
@pytest.mark.parametrize("plugin", [PLUGIN, FROZEN], ids=["api-2", "frozen-api-1"])
def test_a_method_installed_apart_shows_on_every_surface(tmp_path, fake_server, plugin):
    pytest.importorskip("setuptools", minversion="77")
    site = _install_apart(tmp_path, plugin)
    server = fake_server(ServerConfig(reply_text="I recommend Nike."))
    study = tmp_path / "pairs.toml"
    text = (PLUGIN / "study.toml").read_text().replace("http://127.0.0.1:8000/v1", server.base_url)
    study.write_text(text)
    db = tmp_path / "pairs.db"

    assert "pairwise (pairwise preference)" in " ".join(_workbench(site, "--help").stdout.split())
    run = _workbench(site, "run", str(study), "--db", str(db), "--quiet")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "All 8 requests answered." in run.stdout  # 2 pairs x 2 orders x 2 repetitions

    records = json.loads(_workbench(site, "metrics", "--db", str(db), "--format", "json").stdout)
    shoes = {r["metric"]: r for r in records if r["topic"] == "running shoes"}
    # Every answer names Nike: A when it is A (shoes), B when it is B (laptops), neither for the rest.
    assert shoes["share_a"]["value"] == 1.0 and shoes["share_a"]["n"] == 4
    assert shoes["position_bias"]["value"] == 0.0  # Nike first in half the answers
    laptops = {r["metric"]: r for r in records if r["topic"] == "laptops"}
    assert laptops["parse_rate"]["value"] == 0.0 and laptops["share_a"]["value"] is None
    assert laptops["share_a"]["na_reason"] == "no answer named exactly one of the two"
    if plugin == PLUGIN:  # API 2: the records' intervals are the core's, every key of them
        assert (shoes["share_a"]["ci_high"], shoes["share_a"]["ci_unit"]) == (1.0, "answer")
        assert 0.3 < shoes["share_a"]["ci_low"] < 0.5  # 4 of 4: Clopper-Pearson's, never zero-width
        assert laptops["share_a"]["ci_na_reason"] == "0 answers" and laptops["share_a"]["ci_low"] is None
        assert {r["convention"] for r in records} == {"paper"}
    else:  # API 1: its plain dicts, as they were
        assert "ci_low" not in shoes["share_a"]
    table = _workbench(site, "metrics", "--db", str(db)).stdout
    assert "Pairwise preference and position bias" in table and "position_bias" in table
    # No `compare` part: `workbench compare` refuses its study in one line, naming the method
    refused = _workbench(site, "compare", "--db", str(db), "--study", "pairs", "--models", "a", "b")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "study 'pairs' (method pairwise) is not paired by `workbench compare`" in refused.stderr

    exported = json.loads(_workbench(site, "export", "--db", str(db), "--what", "responses", "--format", "json").stdout)
    first = exported[0]
    assert first["topic"] == "running shoes" and (first["option_a"], first["option_b"]) == ("Nike", "Adidas")
    assert {r["order"] for r in exported} == {"AB", "BA"}

    report = tmp_path / "pairs.md"
    assert _workbench(site, "report", "--db", str(db), "--study", "pairs", "-o", str(report)).returncode == 0
    written = report.read_text()
    assert "pairwise (pairwise preference: A or B asked in both orders" in written
    assert re.search(r"named one option \| 0\.5\d* \| 8", written), written  # 4 of 8 answers named one option
    assert "Pairwise preference and position bias" in written
    # its numbers are none of the report's headline kinds: said so, not "every effect is n/a"
    assert "names no headline numbers" in written and "every effect is n/a" not in written

    screen = subprocess.run(
        [sys.executable, "-c", METRICS_SCREEN, str(db), str(ROOT / "tests")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=300,
    )
    assert screen.returncode == 0, screen.stderr[-3000:]
    everything, one_topic = (eval(line) for line in screen.stdout.splitlines()[-2:])  # noqa: S307 (our repr)
    assert len(everything) == 6 and {row[1] for row in one_topic} == {"laptops"}


def test_the_doc_quotes_the_plugin_as_it_is():
    """Every file of the plugin the doc quotes is quoted whole and as it is, so the walkthrough
    cannot drift from a method that runs (test_a_method_installed_apart_shows_on_every_surface)."""
    doc = DOC.read_text("utf-8")
    quoted = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```\n", doc, flags=re.S)
    names = {name for name, _ in quoted}
    assert {"pyproject.toml", "study.toml", "workbench_pairwise/__init__.py"} <= names
    for name, text in quoted:
        assert text == (PLUGIN / name).read_text("utf-8"), f"docs/writing-a-method.md quotes {name} as it was"
