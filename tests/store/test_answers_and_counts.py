"""What a run keeps and says: an API key a server echoes into its answer is kept nowhere, the
errors counted as survived are those a later attempt recovered from, `questions` lists a
read-only store, and a count of one is said in the singular."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers import ROOT, run_cli, write_study
from openai_server import ServerConfig

from workbench.text.words import plural


def test_an_api_key_a_server_echoes_into_its_answer_is_kept_nowhere(tmp_path, fake_server, monkeypatch):
    """A 200 answer quoting the key (its text, a log-prob token, the served model's name): the
    answer is stored with the key redacted, and no file, export or printed line holds it."""
    secret = "sk-test-ECHOED-0123456789"
    monkeypatch.setenv("ECHO_KEY", secret)
    server = fake_server(ServerConfig(hostile="echo_key_answer"))
    db = tmp_path / "k.db"
    study = write_study(
        tmp_path / "s.toml",
        models=[f"openai:test-model@{server.base_url},retries=0,api_key_env=ECHO_KEY"],
        questions=2,
    )
    done = run_cli("run", str(study), "--db", str(db))
    assert done.returncode == 0 and "All 2 requests answered" in done.stdout, done.stdout + done.stderr
    assert server.stats.auth_headers[0] == f"Bearer {secret}"  # it was sent
    conn = sqlite3.connect(db)
    texts = [text for (text,) in conn.execute("SELECT text FROM responses")]
    assert len(texts) == 2 and all(text.endswith("(answered for key [redacted])") for text in texts)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    printed = done.stdout + done.stderr
    for command in (
        ["status", "--db", db],
        ["status", "--db", db, "--json"],
        ["export", "--db", db, "--what", "responses", "--format", "json"],
        ["export", "--db", db, "--what", "responses", "--format", "csv"],
        ["report", "--db", db, "--study", "t"],
    ):
        result = run_cli(*map(str, command))
        assert result.returncode == 0, (command, result.stderr)
        printed += result.stdout + result.stderr
    assert "[redacted]" in printed and "ECHOED" not in printed
    for path in tmp_path.glob("k.db*"):
        assert b"ECHOED" not in path.read_bytes()


def _status(db: Path) -> dict:
    [record] = json.loads(run_cli("status", "--db", str(db), "--json").stdout)
    return record


def _report_row(db: Path) -> tuple[str, list[str]]:
    """The report's requests table (Markdown): its caption and the model's row."""
    text = run_cli("report", "--db", str(db), "--study", "t").stdout
    caption = next(line for line in text.splitlines() if "Requests per model and stage" in line)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("| model | stage | asked"))
    header, row = lines[at], lines[at + 2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    return caption + "\n" + header, cells


def test_errors_survived_are_those_a_later_attempt_recovered_from(tmp_path, fake_server):
    """Every request failed (three attempts each, 18 errors): none was survived (the report said
    12, the retries). The same requests answered by a later run: all 18 were."""
    broken, good = fake_server(ServerConfig(always_fail="500")), fake_server()
    db = tmp_path / "a.db"

    def study(server) -> Path:  # one model on either server: `identity` keeps its requests
        spec = f"openai:test-model@{server.base_url},identity=m,retries=2,concurrency=1"
        return write_study(tmp_path / "s.toml", models=[spec], questions=6)

    assert run_cli("run", str(study(broken)), "--db", str(db), "--quiet").returncode == 1
    record = _status(db)
    assert record["failed"] == 6 and record["error_kinds"] == {"http_500": 18}
    assert record["errors_survived"] == 0 and record["errors_final"] == 6
    words, cells = _report_row(db)
    assert "errors recovered from" in words and "a later attempt answered" in words
    assert cells[2:] == ["6", "0", "6", "0", "0", "0"]  # asked, answered, failed, pending, running, recovered

    done = run_cli("run", str(study(good)), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    record = _status(db)
    assert record["done"] == 6 and record["errors_survived"] == 18 and record["errors_final"] == 0
    assert _report_row(db)[1][2:] == ["6", "6", "0", "0", "0", "18"]


@pytest.mark.skipif(sys.platform != "linux", reason="file modes and setpriv are Linux's")
def test_questions_lists_a_read_only_store(tmp_path, fake_server):
    """An archived store this user may not write: `questions` lists it (it refused even that);
    marking one verified says in one line why it cannot."""
    server = fake_server()
    archive = Path(tempfile.mkdtemp(prefix="wb-archive-"))  # pytest's own folders are its user's only
    db = archive / "audit.db"
    study = write_study(tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url}"], questions=3)
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    expected = run_cli("questions", "--db", str(db), "--study", "t", "--format", "json").stdout
    assert len(json.loads(expected)) == 3
    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    for leftover in archive.glob("audit.db-*"):
        leftover.unlink()
    db.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    archive.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    try:
        listed = as_another_user("questions", "--db", str(db), "--study", "t", "--format", "json")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout == expected
        table = as_another_user("questions", "--db", str(db), "--study", "t")
        assert table.returncode == 0 and "item number 2" in table.stdout, table.stderr
        marking = as_another_user("questions", "--db", str(db), "--study", "t", "--verify-all")
        assert marking.returncode == 2 and "audit.db" in marking.stderr and "Traceback" not in marking.stderr
        assert sorted(p.name for p in archive.iterdir()) == ["audit.db"]  # nothing created beside it
    finally:
        archive.chmod(0o755)
        shutil.rmtree(archive)


def as_another_user(*args: str) -> subprocess.CompletedProcess:
    """`workbench ARGS` as a user the file modes apply to (root ignores them)."""
    command = [sys.executable, "-m", "workbench", *args]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root and no setpriv to drop the rights")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "HOME": "/tmp", "WORKBENCH_CACHE": "/tmp/wb-ro-cache"}
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_a_count_of_one_is_singular(tmp_path, fake_server):
    """ "Imported 1 responses", "1 verdicts", "All 1 requests answered" are said right."""
    assert [plural(n, "request") for n in (0, 1, 2)] == ["0 requests", "1 request", "2 requests"]
    assert plural(1, "entity", "entities") == "1 entity" and plural(3, "entity", "entities") == "3 entities"

    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url}"], questions=1)
    db = tmp_path / "a.db"
    done = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stderr
    assert ": 1 request (1 newly planned)" in done.stdout and "1 request answered." in done.stdout
    assert "Extracted ranked lists for 1 answer " in done.stdout
    [listed] = json.loads(run_cli("review", "lists", "--db", str(db), "--study", "t", "--format", "json").stdout)
    verdict = ("review", "verdict", "--db", str(db), "--study", "t", "--list", str(listed["list_id"]), "--who", "ana")
    assert run_cli(*verdict, "--accept").returncode == 0
    report = run_cli("report", "--db", str(db), "--study", "t").stdout
    assert "**Reviewer ana:** 1 verdict, 0 blind" in report, report

    mentions = tmp_path / "m.csv"
    mentions.write_text("model,topic,cluster,question_id,repetition,rank,entity\ngpt,shoes,Budget,q1,1,1,Nike\n")
    imported = run_cli("import", "mentions", str(mentions), "--db", str(tmp_path / "b.db"), "--study", "ext")
    assert imported.returncode == 0, imported.stderr
    assert "Imported 1 response with 1 mention (0 with no recommendation)" in imported.stdout
    everything = done.stdout + report + imported.stdout
    assert not re.search(r"\b1 (requests|responses|mentions|verdicts|answers|lists)\b", everything)
