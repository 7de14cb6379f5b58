"""Faults of the machine, not of the input, end in one line too.

A disk that filled during a run ended in an ExceptionGroup ("disk I/O error") and, on a new
database, in "cannot rollback - no transaction is active" (the ROLLBACK after SQLite had
rolled back on its own hid the error). A terminal that is not Unicode
(PYTHONIOENCODING=ascii) met `workbench metrics` with a UnicodeEncodeError on a table's title.

The full disk is made honestly, without root or a small filesystem: the run is a child
process whose files may grow to a set size (RLIMIT_FSIZE, SIGXFSZ ignored), so that
SQLite's write past it fails as a write past a full disk does (EFBIG where a disk gives
ENOSPC; SQLite reports the first as "disk I/O error", the error the issue met, the second as
"database or disk is full"). Everything else is real: the store's file, the HTTP server, the CLI.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, run_cli, write_study
from openai_server import ServerConfig

resource = pytest.importorskip("resource")

LIMITED = (
    "import resource, signal, sys\n"
    "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
    "from workbench.cli import main\n"
    "raise SystemExit(main(sys.argv[2:]))\n"
)


def run_on_a_small_disk(limit: int, *args) -> subprocess.CompletedProcess:
    """`workbench ARGS` in a process that may write no file past `limit` bytes."""
    return subprocess.run(
        [sys.executable, "-c", LIMITED, str(limit), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def one_line_about_the_disk(result: subprocess.CompletedProcess, db: Path) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "ExceptionGroup" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ") and str(db) in result.stderr
    assert "the database could not be written (disk I/O error): is the disk full?" in result.stderr


def _study(tmp_path: Path, base_url: str, questions: int) -> Path:
    return write_study(tmp_path / "s.toml", models=[f"openai:m@{base_url},retries=0"], questions=questions)


def test_a_new_database_on_a_full_disk_says_so(tmp_path, fake_server):
    """100 kB: the store's schema itself cannot be written (it said "cannot rollback")."""
    server = fake_server(ServerConfig(reply_text="1. Nike\n2. Adidas"))
    db = tmp_path / "new.db"
    result = run_on_a_small_disk(100_000, "run", _study(tmp_path, server.base_url, 3), "--db", db, "--quiet")
    one_line_about_the_disk(result, db)
    assert "cannot rollback" not in result.stderr
    assert server.stats.requests == 0


def test_a_disk_that_fills_during_a_run_says_so_and_keeps_the_store(tmp_path, fake_server):
    """A store answered 3 questions; the same study grown to 200 questions of 4 kB answers is
    run where files may grow by 300 kB: the run stops in one line, the store reads as before
    (integrity checked, its 3 answers there), and the same command with room finishes it."""
    server = fake_server(ServerConfig(reply_text="1. Nike\n2. Adidas\n" + "A long answer. " * 270))
    db = tmp_path / "a.db"
    first = run_cli("run", _study(tmp_path, server.base_url, 3), "--db", db, "--quiet")
    assert first.returncode == 0, first.stdout + first.stderr
    study = _study(tmp_path, server.base_url, 200)
    limit = db.stat().st_size + 300_000
    result = run_on_a_small_disk(limit, "run", study, "--db", db, "--quiet")
    one_line_about_the_disk(result, db)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        answered = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    finally:
        conn.close()
    assert 3 <= answered < 200
    again = run_cli("run", study, "--db", db, "--quiet")
    assert again.returncode == 0, again.stdout + again.stderr
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM responses").fetchone() == (200,)
    finally:
        conn.close()


def test_metrics_on_a_terminal_that_is_not_unicode(tmp_path):
    """PYTHONIOENCODING=ascii: the tables print, a character ASCII lacks as '?', exit 0."""
    mentions = tmp_path / "m.csv"
    mentions.write_text(
        "model,topic,cluster,question_id,repetition,rank,entity\n"
        "gpt,shoes,c1,q1,1,1,Nike\ngpt,shoes,c1,q2,1,1,Adidas\ngpt,shoes,c1,q3,1,1,Asics\n"
    )
    db = tmp_path / "m.db"
    assert run_cli("import", "mentions", mentions, "--db", db, "--study", "s").returncode == 0
    utf8 = run_cli("metrics", "--db", db, process=True)
    ascii_ = run_cli("metrics", "--db", db, process=True, env={"PYTHONIOENCODING": "ascii"})
    assert ascii_.returncode == 0, ascii_.stderr
    assert "UnicodeEncodeError" not in ascii_.stderr and ascii_.stdout.isascii()
    assert "·" in utf8.stdout  # the character that raised: shown where the terminal can
    title = next(line for line in utf8.stdout.splitlines() if "·" in line).strip()
    assert title.startswith("Preferred entity (PEIR) · direct-recommendation rate")
    assert title.replace("·", "?") in ascii_.stdout


def test_an_answer_of_nested_brackets_is_an_unreadable_list_not_a_traceback(tmp_path, fake_server):
    """A model run into 3,000 `[` (small models loop so) answered every question and then its
    own extraction: json.loads raised RecursionError and the run ended in a traceback. Such a
    reply is now an expert reply not understood, counted as such, and the run ends well."""
    brackets = "[" * 3000 + "]" * 3000
    server = fake_server(ServerConfig(reply_text=brackets))
    study = _study(tmp_path, server.base_url, 2)
    study.write_text(
        study.read_text().replace(
            "[[clusters]]", '[extraction]\nmethod = "experts"\nexperts = 3\noutput = "json"\n[[clusters]]'
        )
    )
    db = tmp_path / "x.db"
    result = run_cli("run", study, "--db", db, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Extracted ranked lists for 2 answers (2 with no recommendation)" in result.stdout
