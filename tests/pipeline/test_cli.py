"""The command line as a user meets it."""

import json
import re

import pytest
from conftest import rows
from helpers import run_cli


@pytest.mark.parametrize("command", ["run", "status", "export", "demo", "doctor"])
def test_every_command_has_help_with_an_example(command):
    result = run_cli(command, "--help")
    assert result.returncode == 0
    assert "examples:" in result.stdout and f"workbench {command}" in result.stdout


def test_top_level_help_teaches_specs():
    out = run_cli("--help").stdout
    assert "llama:default" in out and "openai:MODEL@http://host:port/v1" in out


def test_bad_study_file_is_one_clear_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('method = "choice"\nmodels = ["llama:default"]\nrepetitions = -1\n')
    result = run_cli("run", str(bad), "--db", str(tmp_path / "x.db"))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"error: {bad}: key 'repetitions': expected a whole number of repetitions (paper: 5) between 1 and 10,000, got -1"
    )


def test_unknown_study_name(tmp_path):
    from workbench.store.db import connect

    connect(tmp_path / "x.db").close()
    result = run_cli("status", "--db", str(tmp_path / "x.db"), "--study", "nope")
    assert result.returncode == 2 and "no study named 'nope'" in result.stderr


@pytest.mark.slow
def test_demo_answers_every_request_with_the_local_model(tmp_path):
    db = tmp_path / "demo.db"
    result = run_cli("demo", "--no-tui", "--db", str(db), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All 108 requests answered" in result.stdout  # 3 topics x 9 clusters x 2 questions, twice
    status = {r["stage"]: r for r in json.loads(run_cli("status", "--db", str(db), "--json").stdout)}
    assert status["answer"]["done"] == 108 and status["answer"]["pending"] == status["answer"]["failed"] == 0
    assert "extract" not in status  # the gazetteer asks no model
    stored = rows(
        db,
        "SELECT p.model_identity, p.seed, p.latency_s, p.started_at, p.finished_at, m.file_hash "
        "FROM responses p JOIN requests r ON r.key = p.request_key JOIN models m ON m.id = r.model_id "
        "WHERE r.stage = 'answer'",
    )
    assert len(stored) == 108
    for identity, seed, latency, started, finished, file_hash in stored:
        assert identity == f"llama:sha256:{file_hash}" and seed in (7, 8)
        assert latency > 0 and started <= finished
    # Every answer got a list of the gazetteer's brands, and most name one.
    assert rows(db, "SELECT COUNT(*), MIN(source), MAX(source) FROM mention_lists") == [(108, "gazetteer", "gazetteer")]
    named = rows(db, "SELECT COUNT(DISTINCT list_id) FROM mentions")[0][0]
    assert named >= 54, f"only {named} of 108 answers name a brand of the gazetteer"
    assert "Preferred entity (PEIR)" in result.stdout and "What this demo can and cannot show" in result.stdout
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    peir = {r["topic"]: r for r in records if r["metric"] == "peir" and r.get("cluster") is None}
    assert set(peir) == {"running shoes", "smartphones", "coffee makers"}
    assert all(r["value"] is not None for r in peir.values())
    # The log-odds per topic and region pair (the mean over clusters) with its interval.
    with_intervals = [
        r
        for r in records
        if r["metric"] == "lor" and r["cluster"] is None and r.get("mean") is not None and r.get("ci_low") is not None
    ]
    assert len(with_intervals) >= 2
    # Export carries every answer.
    exported = run_cli("export", "--db", str(db), "--what", "responses", "--format", "csv").stdout
    assert len(exported.strip().splitlines()) >= 109
    assert re.search(r"request_key,study,model", exported)


@pytest.mark.slow
def test_doctor_reports_the_build_and_checks_engines(fake_server):
    server = fake_server()
    result = run_cli(
        "doctor",
        "--model",
        "llama:default",
        "--model",
        f"openai:m@{server.base_url}",
        "--model",
        "openai:m@http://127.0.0.1:9,retries=0",
    )
    assert "GPU offload:" in result.stdout and "Default model (llama:default)" in result.stdout
    assert "Engine llama:default: ok" in result.stdout
    assert f"Engine openai:m@{server.base_url}: ok" in result.stdout
    assert "Engine openai:m@http://127.0.0.1:9: FAIL connection" in result.stdout
    assert result.returncode == 1
