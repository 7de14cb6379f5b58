"""A store this user may not write (an archived audit in a read-only folder) is read, and
nothing is written or created beside it; a command that must write says why it cannot."""

import os
import shutil
import stat
import subprocess
import sys

import pytest
from helpers import ROOT, run_cli

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="file modes and setpriv are Linux's")


def as_another_user(*args: str) -> subprocess.CompletedProcess:
    """`workbench ARGS` as a user the file modes apply to (root ignores them)."""
    command = [sys.executable, "-m", "workbench", *args]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root and no setpriv to drop the rights")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "HOME": "/tmp", "WORKBENCH_CACHE": "/tmp/wb-ro-cache"}
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_an_archived_store_is_read_and_left_untouched(tmp_path, metrics_db):
    import tempfile
    from pathlib import Path

    archive = Path(tempfile.mkdtemp(prefix="wb-archive-"))  # pytest's own folders are its user's only
    db = archive / "audit.db"
    shutil.copy(metrics_db, db)
    expected = run_cli("metrics", "--db", str(db), "--format", "json").stdout
    for leftover in archive.glob("audit.db-*"):
        leftover.unlink()
    db.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    archive.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    try:
        metrics = as_another_user("metrics", "--db", str(db), "--format", "json")
        assert metrics.returncode == 0, metrics.stderr
        assert metrics.stdout == expected
        for command in (["status", "--db", str(db)], ["export", "--db", str(db), "--what", "mentions"]):
            done = as_another_user(*command)
            assert done.returncode == 0, (command, done.stderr)
        merge = as_another_user("entities", "merge", "Nike", "Puma", "--db", str(db), "--who", "r")
        assert merge.returncode == 2 and "Traceback" not in merge.stderr, merge.stderr
        assert "read-only here" in merge.stderr and "this command writes" in merge.stderr, merge.stderr
        study = Path(tempfile.mkdtemp(prefix="wb-study-")) / "s.toml"
        study.write_text(
            'name = "s"\nmethod = "choice"\nmodels = ["openai:m@http://127.0.0.1:9/v1"]\n'
            '[[topics]]\nname = "shoes"\n[topics.questions]\nConvenience = ["Which shoes?"]\n'
        )
        study.parent.chmod(0o755)
        study.chmod(0o644)
        for command in (["run", str(study), "--db", str(db)], ["questions", "--db", str(db), "--verify-all"]):
            done = as_another_user(*command)
            assert done.returncode == 2, (command, done.stdout, done.stderr)
            assert f"{db}: read-only here" in done.stderr and "this command writes" in done.stderr, done.stderr
        fresh = as_another_user("run", str(study), "--db", str(archive / "new.db"))
        assert fresh.returncode == 2 and "cannot create it: its folder is read-only here" in fresh.stderr
        assert sorted(p.name for p in archive.iterdir()) == ["audit.db"]  # nothing created beside it
    finally:
        archive.chmod(0o755)
        shutil.rmtree(archive)
