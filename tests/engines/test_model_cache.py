"""The model cache is checked, never trusted: a dequantized copy with bytes overwritten or cut
off is made again (or refused in one line naming it), a partial copy whose writer was killed is
removed, and a cache folder this user may not write is read without writing to it. On the real
bundled GGUF and its real F32 copy."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import rows
from helpers import ROOT, run_cli

EXAMPLE = ROOT / "assets" / "studies" / "entity"
MB = 1024 * 1024


def entity_study(folder: Path, entities: int = 3) -> Path:
    """A label-probability study on the bundled model: one template, `entities` countries
    (a request each), scored on its F32 copy (the small model's default precision)."""
    study = folder / "s.toml"
    study.write_text(
        f'name = "urgency"\nmethod = "entity"\nmodels = ["llama:default"]\n'
        f'task = "{EXAMPLE / "urgency.task.json"}"\ntemplates = "{EXAMPLE / "urgency_templates.csv"}"\n'
        f'entities = "{EXAMPLE / "countries.csv"}"\nmax_templates = 1\nmax_entities = {entities}\n'
        'group_by = ["gdp_quantile"]\n'
    )
    return study


@pytest.fixture(scope="module")
def intact():
    """The bundled model and its F32 copy in the user's cache, as every scoring test makes them."""
    from workbench.engines.llama_precision import dequantized_copy
    from workbench.engines.resolve import default_model_path

    source, digest = default_model_path()
    return source, digest, dequantized_copy(source, digest, "f32")


def place(src: Path, dst: Path, copy: bool = False) -> None:
    """`src` at `dst`: a hard link where the file is only read (no second gigabyte), else a copy."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not copy:
        try:
            os.link(src, dst)
            return
        except OSError:  # another file system
            pass
    shutil.copyfile(src, dst)


def own_cache(folder: Path, intact, copy: str | None) -> Path:
    """A cache of its own holding the bundled model and, with `copy` ("link" or "copy"), its
    F32 copy and record: what a test damages is never the cache other tests read."""
    source, _digest, f32 = intact
    place(source, folder / "models" / source.name)
    if copy:
        target = folder / "models" / "dequantized" / f32.name
        place(f32, target, copy=copy == "copy")
        place(f32.with_name(f32.name + ".json"), target.with_name(target.name + ".json"), copy=True)
    return folder


def scores(db: Path) -> list[str]:
    return [text for (text,) in rows(db, "SELECT text FROM responses ORDER BY request_key")]


@pytest.mark.slow
def test_a_copy_with_bytes_overwritten_is_made_again_never_scored(tmp_path, intact, monkeypatch):
    """64 MB overwritten in the middle of the F32 copy (its size unchanged): the next run
    notices it by its SHA-256 and makes the copy again, and scores what an intact copy
    scores (on the damaged one it answered every request, log-probs off by thousands of nats)."""
    _source, _digest, f32 = intact
    reference = tmp_path / "reference.db"
    done = run_cli("run", str(entity_study(tmp_path)), "--db", str(reference), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr

    cache = own_cache(tmp_path / "cache", intact, copy="copy")
    copy = cache / "models" / "dequantized" / f32.name
    with copy.open("r+b") as handle:
        handle.seek(copy.stat().st_size // 2)
        handle.write(b"\x7f" * (64 * MB))
    assert copy.stat().st_size == f32.stat().st_size
    monkeypatch.setenv("WORKBENCH_CACHE", str(cache))
    db = tmp_path / "a.db"
    done = run_cli("run", str(entity_study(tmp_path)), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "All 3 requests answered" in done.stdout
    assert scores(db) == scores(reference)
    record = json.loads(copy.with_name(copy.name + ".json").read_text())
    from workbench.engines.model_cache import sha256_of

    assert sha256_of(copy) == record["sha256"] == sha256_of(f32)  # made again, whole


def test_a_truncated_copy_is_found_by_its_size(tmp_path, intact, monkeypatch):
    """A copy cut off (a full disk, a copy interrupted) is not what was recorded: its size
    says so before any reading."""
    from workbench.engines import model_cache

    _source, _digest, f32 = intact
    copy = tmp_path / f32.name
    with f32.open("rb") as whole, copy.open("wb") as cut:
        cut.write(whole.read(8 * MB))
    shutil.copyfile(f32.with_name(f32.name + ".json"), copy.with_name(copy.name + ".json"))
    found = model_cache.problem(copy)
    assert found is not None and f"{8 * MB:,} bytes, {f32.stat().st_size:,} when it was made" in found
    assert model_cache.problem(f32) is None
    copy.with_name(copy.name + ".json").unlink()
    assert "no record" in model_cache.problem(copy)  # a copy without its record is never trusted


def _partial_writer(cache: Path, target_name: str) -> subprocess.Popen:
    """A process writing a partial copy under the name the workbench gives it (its own pid),
    then holding it open: a copy in progress."""
    script = (
        "import sys; from pathlib import Path; from workbench.engines.model_cache import partial_path\n"
        f"p = partial_path(Path({str(cache / 'models' / 'dequantized' / target_name)!r}))\n"
        "p.write_bytes(b'\\0' * 4_000_000); print(p, flush=True); sys.stdin.read()\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )


def test_a_partial_copy_left_by_a_killed_writer_is_removed_and_a_live_ones_kept(tmp_path, intact, monkeypatch):
    """kill -9 during the copy leaves its partial: the next use removes it (before the
    free-space check, so its space counts), and never one another live process is writing."""
    from workbench.engines import model_cache
    from workbench.engines.llama_precision import dequantized_copy

    source, digest, f32 = intact
    cache = own_cache(tmp_path / "cache", intact, copy="link")
    killed, live = _partial_writer(cache, f32.name), _partial_writer(cache, f32.name)
    try:
        stale_path, live_path = Path(killed.stdout.readline().strip()), Path(live.stdout.readline().strip())
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert stale_path.stat().st_size == 4_000_000  # what a killed copy leaves
        folder = stale_path.parent
        other_host = folder / f".{f32.name}.elsewhere.12.34.partial"  # another machine's: by its age
        other_host.write_bytes(b"x")
        old = folder / f".{f32.name}.elsewhere.56.78.partial"
        old.write_bytes(b"x")
        past = time.time() - model_cache.STALE_AGE_S - 60
        os.utime(old, (past, past))

        monkeypatch.setenv("WORKBENCH_CACHE", str(cache))
        assert dequantized_copy(source, digest, "f32") == folder / f32.name
        assert not stale_path.exists() and not old.exists()
        assert live_path.exists() and other_host.exists()
    finally:
        live.kill()
        live.wait()
        killed.kill()


def test_a_killed_writers_partial_is_freed_before_the_space_is_counted(tmp_path):
    """The cleaning reports what it freed: the removed partials and their sizes."""
    from workbench.engines import model_cache

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    child.kill()
    child.wait()
    target = tmp_path / "copy.gguf"
    stale = model_cache.partial_path(target).with_name(
        model_cache.partial_path(target).name.replace(f".{os.getpid()}.", f".{child.pid}.")
    )
    stale.write_bytes(b"\0" * 3_000_000)
    mine = model_cache.partial_path(target)
    mine.write_bytes(b"\0")  # this live process's own
    assert model_cache.clean_stale_partials(tmp_path) == [(stale, 3_000_000)]
    assert mine.exists() and not stale.exists()


# -- a cache folder this user may not write -------------------------------------------------------


def as_another_user(cache: Path, *args: str) -> subprocess.CompletedProcess:
    """`workbench ARGS` as a user the file modes apply to (root ignores them), on `cache`."""
    command = [sys.executable, "-m", "workbench", *args]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root and no setpriv to drop the rights")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "HOME": "/tmp", "WORKBENCH_CACHE": str(cache)}
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


def _read_only(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="file modes and setpriv are Linux's")
def test_a_cache_folder_this_user_may_not_write(intact):
    """Another user's cache (the model, its F32 copy and record, no hash memo): `run` scores on
    it, writing nothing there (the memo is skipped). The same copy cut off: one line naming the
    file to delete, the requests left pending, never a traceback."""
    _source, _digest, f32 = intact
    base = Path(tempfile.mkdtemp(prefix="wb-cache-"))  # pytest's own folders are its user's only
    try:
        cache = own_cache(base / "cache", intact, copy="link")
        work = base / "work"
        work.mkdir()
        study = entity_study(work, entities=2)
        work.chmod(0o777)
        _read_only(cache)
        before = sorted(p.relative_to(cache) for p in cache.rglob("*"))
        base.chmod(0o755)

        done = as_another_user(cache, "run", str(study), "--db", str(work / "a.db"), "--quiet")
        assert done.returncode == 0 and "All 2 requests answered" in done.stdout, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert sorted(p.relative_to(cache) for p in cache.rglob("*")) == before  # nothing written there

        copy = cache / "models" / "dequantized" / f32.name
        copy.unlink()  # the link, not the user cache's copy
        with f32.open("rb") as whole:
            copy.write_bytes(whole.read(MB))
        copy.chmod(0o444)
        study.write_text(study.read_text().replace("max_entities = 2", "max_entities = 3"))  # one more to score
        done = as_another_user(cache, "run", str(study), "--db", str(work / "a.db"), "--quiet")
        printed = done.stdout + done.stderr
        assert done.returncode == 1 and "Traceback" not in printed, printed
        line = next(line for line in printed.splitlines() if str(copy) in line)
        assert f"is {MB:,} bytes" in line and "delete it" in line
        assert "Stopped with 1 request still pending" in done.stdout
        assert copy.stat().st_size == MB  # refused, not replaced
    finally:
        for path in [base, *base.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(base)
