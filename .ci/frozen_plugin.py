"""The previous release's example plugin (tests/plugins/pairwise_0_1, plugin API 1), installed as
a wheel beside the workbench's own wheel, run unchanged on every surface: run, metrics, export,
report, compare and the Metrics screen. Run by .ci/wheel with the wheel's venv, from a folder
that holds no checkout; argv[1] is the checkout (for its test server and the plugin's study)."""

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

CHECKOUT = Path(sys.argv[1])
sys.path.append(str(CHECKOUT / "tests"))  # the test server only: the workbench is the wheel's

from openai_server import ServerConfig, ServerThread  # noqa: E402


def workbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, timeout=300)


def metrics_screen(db: str) -> list[list[str]]:
    from workbench.app import WorkbenchApp

    async def scenario() -> list[list[str]]:
        app = WorkbenchApp(db)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("2")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                tables = app.screen.query("#pairwise-table")
                if tables and tables.first().row_count:
                    table = tables.first()
                    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
                await pilot.pause(0.05)
        raise AssertionError("the plugin's table never filled on the Metrics screen")

    return asyncio.run(scenario())


def main() -> None:
    assert "site-packages" in __import__("workbench").__file__
    with ServerThread(ServerConfig(reply_text="I recommend Nike.")) as server:
        text = (CHECKOUT / "tests/plugins/pairwise_0_1/study.toml").read_text()
        Path("pairs.toml").write_text(text.replace("http://127.0.0.1:8000/v1", server.base_url))
        ran = workbench("run", "pairs.toml", "--db", "pairs.db", "--quiet")
        assert ran.returncode == 0 and "All 8 requests answered." in ran.stdout, ran.stdout + ran.stderr
    records = json.loads(workbench("metrics", "--db", "pairs.db", "--format", "json").stdout)
    shoes = {r["metric"]: r for r in records if r["topic"] == "running shoes"}
    assert shoes["share_a"]["value"] == 1.0 and shoes["position_bias"]["value"] == 0.0, records
    exported = json.loads(workbench("export", "--db", "pairs.db", "--what", "responses", "--format", "json").stdout)
    assert {r["order"] for r in exported} == {"AB", "BA"}
    assert workbench("report", "--db", "pairs.db", "--study", "pairs", "-o", "pairs.html").returncode == 0
    assert "Pairwise preference and position bias" in Path("pairs.html").read_text()
    refused = workbench("compare", "--db", "pairs.db", "--study", "pairs", "--models", "a", "b")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    rows = metrics_screen("pairs.db")
    assert len(rows) == 6, rows
    print("frozen API 1 plugin: run, metrics, export, report, compare and the Metrics screen work")


if __name__ == "__main__":
    main()
