"""Two processes on one store: a second `workbench run` beside the first, and a run killed
with its claims left behind. What each run and `workbench status` then say is the store's
truth: who answered what, and which claims nobody is answering."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from conftest import rows
from helpers import ROOT, kill_run_once, run_cli, write_study
from openai_server import ServerConfig

EXPERTS = '[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n'


def wait_until(db: Path, sql: str, at_least: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    """Poll the store until `sql` (one count) reaches `at_least` while `proc` runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            conn = sqlite3.connect(db)
            try:
                if conn.execute(sql).fetchone()[0] >= at_least:
                    return
            except sqlite3.OperationalError:  # the schema is not there yet
                pass
            finally:
                conn.close()
        time.sleep(0.05)
    raise AssertionError(f"the first run never reached {sql} >= {at_least}")


def test_a_run_says_what_another_process_answered_meanwhile(tmp_path, fake_server):
    """The first run's closing line counts its own answers and the other's (it said 'All 78
    requests answered.' of an 80-request study the other run had answered 2 of)."""
    # 80 replies of 0.1 s over 2 connections take the first run 4 s at least; the second,
    # started once the first holds claims, takes 2 requests (--limit 2) in a fraction of it.
    server = fake_server(ServerConfig(latency_s=0.1))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},concurrency=2"], questions=20)
    study.write_text(study.read_text() + EXPERTS)
    db = tmp_path / "a.db"
    first = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", str(study), "--db", str(db), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    try:
        wait_until(db, "SELECT COUNT(*) FROM requests WHERE status = 'running'", 1, first)
        second = run_cli("run", str(study), "--db", str(db), "--quiet", "--limit", "2")
        assert second.returncode == 0, second.stdout + second.stderr
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, out + err
    assert rows(db, "SELECT status, COUNT(*) FROM requests GROUP BY status") == [("done", 80)]
    assert server.stats.ok == 80  # nothing asked twice
    closing = out.strip().splitlines()[-1]
    assert closing == (
        "All 80 requests answered: 78 by this run, 2 by another process running at the same time. "
        "Nothing was asked twice."
    )
    assert "This run answered 2 requests" in second.stdout or "(--limit 2)" in second.stdout


def test_status_tells_claims_of_a_killed_run_from_running_ones(tmp_path, fake_server):
    """After kill -9, the claims left behind are no process's: status counts them pending, says
    so, and the next run releases and answers them (it showed them as 'running')."""
    server = fake_server(ServerConfig(latency_s=0.2))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},concurrency=4"], questions=24)
    db = tmp_path / "k.db"
    kill_run_once(study, db, "SELECT COUNT(*) FROM responses", at_least=4)
    held = rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'running'")[0][0]
    done = rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'done'")[0][0]
    assert held > 0, "the kill left no claim behind"

    (record,) = json.loads(run_cli("status", "--db", str(db), "--json").stdout)
    assert (record["running"], record["abandoned"], record["pending"]) == (0, held, 24 - done)
    table = " ".join(run_cli("status", "--db", str(db)).stdout.split())
    expected = f"{held} pending requests were" if held > 1 else "1 pending request was"
    assert f"{expected} claimed by a run that is no longer running (killed)" in table

    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    (record,) = json.loads(run_cli("status", "--db", str(db), "--json").stdout)
    assert (record["done"], record["running"], record["abandoned"]) == (24, 0, 0)
    assert "no longer running" not in run_cli("status", "--db", str(db)).stdout
