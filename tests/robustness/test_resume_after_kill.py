"""Kill -9 a `workbench run` at random moments, run again: each request answered exactly once."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import rows
from helpers import ROOT, kill_run_once, run_cli, write_study
from openai_server import ServerConfig


@pytest.mark.slow  # ten runs started and killed, one after another
def test_kill_nine_ten_times_then_resume(tmp_path, db_path, fake_server):
    server = fake_server(ServerConfig(latency_s=0.05))
    spec = f"openai:test-model@{server.base_url},concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=150)
    progress, left_running = [], []
    for kill in range(1, 11):
        # Killed when the store shows progress, not after a guessed time: the kill lands
        # mid-run on a fast machine and on a loaded one alike.
        kill_run_once(study, db_path, "SELECT COUNT(*) FROM responses", at_least=11 * kill)
        progress.append(rows(db_path, "SELECT COUNT(*) FROM responses")[0][0])
        left_running.append(rows(db_path, "SELECT COUNT(*) FROM requests WHERE status = 'running'")[0][0])

    # The kills landed mid-run: work was partly done and claims were left behind.
    assert progress and 0 < progress[-1] < 150
    assert any(left_running)

    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert rows(db_path, "SELECT status, COUNT(*) FROM requests GROUP BY status") == [("done", 150)]
    assert rows(db_path, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(150, 150)]
    # No response without its request and no request without its response.
    assert rows(
        db_path, "SELECT COUNT(*) FROM requests r LEFT JOIN responses p ON p.request_key = r.key WHERE p.id IS NULL"
    ) == [(0,)]
    # Progress never went backwards between kills: nothing answered was lost.
    assert progress == sorted(progress)


def answered(db_path) -> int:
    """Answers stored so far; 0 while the run is still creating the store (the file can exist
    before its tables do)."""
    try:
        return rows(db_path, "SELECT COUNT(*) FROM responses")[0][0] if db_path.exists() else 0
    except sqlite3.OperationalError:
        return 0


def test_ctrl_c_releases_claims_and_resumes(tmp_path, db_path, fake_server):
    # 200 x 0.05 s over 4 connections is 2.5 s of replies: the interrupt, sent once 10
    # answers are stored (polled every 0.1 s, about 8 more at most), lands mid-run.
    server = fake_server(ServerConfig(latency_s=0.05))
    spec = f"openai:test-model@{server.base_url},concurrency=4"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=200)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", str(study), "--db", str(db_path), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        # A test runner started in the background inherits an ignored SIGINT; a terminal's
        # Ctrl-C is what this test is about, so the child gets the default handling back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.default_int_handler),
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        time.sleep(0.1)
        if answered(db_path) >= 10:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "run the same command again to resume" in out
    # A clean stop leaves nothing claimed.
    assert rows(db_path, "SELECT COUNT(*) FROM requests WHERE status = 'running'") == [(0,)]
    done_before = rows(db_path, "SELECT COUNT(*) FROM responses")[0][0]
    assert 10 <= done_before < 200

    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0
    assert rows(db_path, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(200, 200)]
    # The resumed run asked only for what was missing: at most the 4 requests in
    # flight at the interrupt were asked twice (their answers were discarded).
    assert 200 <= server.stats.ok <= 204
