"""A store its writer left with commits in its write-ahead log (a crash before a checkpoint),
read by a user who may not write its folder: read with the log, or refused in one line;
never shown without the log's commits (0 verdicts of 20, exit 0)."""

import json
import shutil
import sqlite3
import stat
import sys
import tempfile
from pathlib import Path

import pytest
from helpers import run_cli
from test_read_only_store import as_another_user

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="file modes and setpriv are Linux's")

VERDICTS = 20
READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
FOLDER_READ_ONLY = stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH


def verdicts(listed: str) -> int:
    return sum(len(r["verdicts"]) for r in json.loads(listed))


@pytest.fixture
def crashed(metrics_db):
    """20 verdicts committed to the WAL, the store and its -wal copied as a crash leaves them
    (no checkpoint; the -shm gone), in a folder only its owner may write."""
    lists = json.loads(run_cli("review", "lists", "--db", metrics_db, "--study", "ext", "--format", "json").stdout)
    writer = sqlite3.connect(metrics_db)  # still open: no command's close folds the log into the file
    try:
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the lists in the file, the log empty
        for item in lists[:VERDICTS]:
            verdict = ("review", "verdict", "--db", metrics_db, "--study", "ext", "--who", "ana")
            assert run_cli(*verdict, "--list", str(item["list_id"]), "--accept").returncode == 0
        listed = run_cli("review", "lists", "--db", metrics_db, "--study", "ext", "--format", "json").stdout
        assert verdicts(listed) == VERDICTS
        archive = Path(tempfile.mkdtemp(prefix="wb-crashed-"))  # pytest's own folders are its user's only
        for suffix in ("", "-wal"):
            shutil.copy(f"{metrics_db}{suffix}", archive / f"audit.db{suffix}")
    finally:
        writer.close()
    db = archive / "audit.db"
    without_log = sqlite3.connect(f"file:{db}?immutable=1", uri=True)  # what the file alone holds
    try:
        assert without_log.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 0
    finally:
        without_log.close()
    for path in archive.iterdir():
        path.chmod(READ_ONLY)
    archive.chmod(FOLDER_READ_ONLY)
    try:
        yield db, listed
    finally:
        archive.chmod(0o755)
        shutil.rmtree(archive)


def test_a_crashed_writers_log_is_read_by_another_user(crashed):
    db, listed = crashed
    done = as_another_user("review", "lists", "--db", str(db), "--study", "ext", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert verdicts(done.stdout) == VERDICTS
    assert done.stdout == listed
    metrics = as_another_user("metrics", "--db", str(db), "--format", "json")
    assert metrics.returncode == 0, metrics.stderr
    assert sorted(p.name for p in db.parent.iterdir()) == ["audit.db", "audit.db-wal"]  # nothing made or folded


def test_a_log_the_reader_may_not_read_is_refused_in_one_line(crashed):
    db, _ = crashed
    (db.parent / "audit.db-wal").chmod(stat.S_IRUSR)  # its owner's only
    done = as_another_user("review", "lists", "--db", str(db), "--study", "ext", "--format", "json")
    assert done.returncode == 2 and done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "audit.db-wal" in line and "owner" in line, line
