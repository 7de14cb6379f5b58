"""The model cache's files are checked, never trusted: a copy made here is recorded, a
partial one left by a killed writer is removed, and a folder this user may not write is
read without writing to it.

- A dequantized copy (llama_precision) is recorded when it is made: its size and SHA-256
  in a record beside it (`NAME.json`). Before each use its size is compared (a truncated
  copy is caught at once), its digest once per process and again whenever the file
  changed (inode, size, mtime or ctime): a copy with bytes overwritten in the middle
  scored every request, log-probs off by thousands of nats, with exit 0.
- A copy being written has a name of its own (`.NAME.HOST.PID.THREAD.partial`) and is
  renamed only when whole. A partial whose writer is gone (a `kill -9`, a power cut) is
  stale: removed before the next copy is made, so its space counts as free. One another
  live process is writing (test workers assembling the same cache) is left alone; one of
  another machine (a shared home folder) only once it has not been written for a day.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from workbench.errors import DamagedCopy  # noqa: F401  (raised here; the family is workbench.errors)

# A partial copy not written for this long has no live writer, whichever machine wrote it
# (a writer writes continuously; a copy takes minutes, not hours).
STALE_AGE_S = 24 * 3600

_verified: dict[str, tuple[int, ...]] = {}  # copies whose digest this process checked, by path: their stat


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"


def partial_path(target: Path) -> Path:
    """Where this process (and thread) writes `target` before renaming it: the name says who writes it."""
    return target.with_name(f".{target.name}.{_host()}.{os.getpid()}.{threading.get_ident()}.partial")


def _writer_gone(pid: int) -> bool:
    """Whether the process of this machine that named a partial has ended (another
    machine's cannot be asked; on Windows os.kill would end it)."""
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):  # it exists, another user's
        return False
    return False


def is_stale(path: Path, now: float | None = None) -> bool:
    """A partial copy nobody is writing: its writer (named in it) is gone, or it has not
    been written for STALE_AGE_S (a partial of another machine, or of an older naming)."""
    parts = path.name[: -len(".partial")].rsplit(".", 3)
    if len(parts) == 4 and parts[1] == _host() and parts[2].isdigit() and os.name != "nt":
        return _writer_gone(int(parts[2]))  # a live writer's partial is kept however old
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return False
    return (time.time() if now is None else now) - mtime > STALE_AGE_S


def clean_stale_partials(folder: Path) -> list[tuple[Path, int]]:
    """Remove the stale partial copies in `folder`; the ones removed and their sizes.
    One that cannot be removed (a folder this user may not write) is left."""
    removed = []
    try:
        candidates = sorted(folder.glob(".*.partial"))
    except OSError:
        return []
    for path in candidates:
        if not is_stale(path):
            continue
        try:
            size = path.stat().st_size
            path.unlink()
        except OSError:
            continue
        removed.append((path, size))
    return removed


def record_path(copy: Path) -> Path:
    return copy.with_name(copy.name + ".json")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _stat_key(st: os.stat_result) -> tuple[int, ...]:
    # ctime too: a writer can set a file's mtime back, never its ctime.
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def record(partial: Path, target: Path) -> None:
    """Record the size and SHA-256 of a whole copy written at `partial`, before it is renamed
    to `target` (a copy renamed without its record is made again, never trusted)."""
    size, digest = partial.stat().st_size, sha256_of(partial)
    path = record_path(target)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps({"size": size, "sha256": digest}))
    os.replace(tmp, path)


def mark_verified(copy: Path) -> None:
    """The copy this process has just recorded needs no second reading."""
    _verified[str(copy)] = _stat_key(copy.stat())


def problem(copy: Path) -> str | None:
    """Why `copy` is not the recorded one (None: it is): its size each time, its digest once
    per process and whenever the file changed since."""
    try:
        st = copy.stat()
        recorded = json.loads(record_path(copy).read_text())
        size, digest = int(recorded["size"]), str(recorded["sha256"])
    except FileNotFoundError:
        return "has no record of its size and SHA-256 (it was not made whole by this workbench)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"has no readable record of its size and SHA-256 ({exc})"
    if st.st_size != size:
        return f"is {st.st_size:,} bytes, {size:,} when it was made (truncated or overwritten)"
    if _verified.get(str(copy)) == _stat_key(st):
        return None
    found = sha256_of(copy)
    if found != digest:
        return f"has SHA-256 {found[:12]}…, {digest[:12]}… when it was made (overwritten)"
    _verified[str(copy)] = _stat_key(st)
    return None


def discard(copy: Path) -> None:
    """Remove a damaged copy and its record (OSError when this user may not)."""
    _verified.pop(str(copy), None)
    copy.unlink(missing_ok=True)
    record_path(copy).unlink(missing_ok=True)


@contextlib.contextmanager
def making(target: Path) -> Iterator[None]:
    """Held while `target` is checked or made: a second process (another test worker, a
    second run) waits for the first's copy instead of writing another one beside it.
    Without a lock file (a folder this user may not write, or no fcntl) nothing is held:
    the rename still lets a reader see a whole copy or none."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        handle = open(target.with_name(f".{target.name}.lock"), "a")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
