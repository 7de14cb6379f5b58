"""Writing files a user asked for without endangering what they already have.

Two promises, kept for every export (CLI and app):

- An export never overwrites a database. The output path is refused when it is
  the store being read, one of its `-wal`/`-shm`/`-journal` companions, or any
  file that starts with SQLite's header (someone else's database is data too).
- An export is all or nothing: it is written to a temporary file in the same
  folder and renamed over the target only once complete, so an error, a full
  disk or Ctrl-C midway leaves the previous file (or no file), never half of one.

Exports go to regular files only: a FIFO, a device, a socket or a symlink loop as
the target is refused from its `stat` alone (nothing is opened), so `-o` onto a named
pipe never waits for a reader and `-o /dev/null` never replaces the device with a file.

And one for CSV (a reviewer opens exports in a spreadsheet): cells are made
spreadsheet-safe unless the user asks for `raw` output; see `spreadsheet_cell`.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from workbench.errors import OutputRefused  # noqa: F401  (raised here; the family is workbench.errors)

SQLITE_HEADER = b"SQLite format 3\x00"
_COMPANIONS = ("", "-wal", "-shm", "-journal")


def is_sqlite_file(path: Path) -> bool:
    """Whether a regular file starts with SQLite's header. Opened without blocking and
    checked to be a regular file before it is read: a FIFO put in its place since the
    caller looked is never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return os.read(fd, len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False
    finally:
        os.close(fd)


def _special_kind(mode: int) -> str | None:
    """What a non-regular, non-directory file is, for the refusal message."""
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "not a regular file"


def _is_standard_stream(target: Path) -> bool:
    try:
        info = os.stat(target)
    except OSError:
        return False
    for fd in (1, 2):
        try:
            held = os.fstat(fd)
        except OSError:
            continue
        if (held.st_dev, held.st_ino) == (info.st_dev, info.st_ino):
            return True
    return False


def check_output_path(path: str | Path, database: str | Path | None = None) -> Path:
    """The resolved output path, or OutputRefused naming the reason.

    Decided from `os.stat` before anything is opened: a FIFO would block the check (and
    the export) until some other process opened its other end, and the rename that makes
    an export all or nothing would replace a device node with a regular file. Writing
    straight into a device or pipe (`-o /dev/null`, `-o /dev/stdout`) is refused rather
    than special-cased: it could not be all or nothing, and leaving out `-o` already
    writes to standard output."""
    target = Path(path).expanduser()
    try:
        mode = os.stat(target).st_mode  # follows symbolic links: the file that would be replaced
    except FileNotFoundError:
        mode = None  # a new file (or a link to one still to be made)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputRefused(f"{path}: is a loop of symbolic links; give a file name") from None
        if exc.errno == errno.ENOTDIR:
            raise OutputRefused(f"{path}: a part of the path is not a folder") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise OutputRefused(f"{path}: the name is too long") from None
        raise OutputRefused(f"{path}: cannot be checked ({exc.strerror or exc})") from None
    if mode is not None and (kind := _special_kind(mode)):
        raise OutputRefused(
            f"{path}: is {kind}, not a regular file; an export is written to a file "
            "(leave out -o to write to standard output)"
        )
    if mode is not None and _is_standard_stream(target):
        # `-o /dev/stdout > out.csv`: the rename would replace the shell's file and leave
        # this process writing to a deleted one.
        raise OutputRefused(
            f"{path}: is this command's standard output or error; leave out -o to write to standard output"
        )
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError):  # a loop met only on the way to a missing file (RuntimeError up to 3.12)
        raise OutputRefused(f"{path}: is a loop of symbolic links; give a file name") from None
    if database is not None:
        db = Path(database).expanduser().resolve()
        for suffix in _COMPANIONS:
            if resolved == Path(f"{db}{suffix}"):
                raise OutputRefused(
                    f"{path}: that is the database being exported (or its {suffix or 'main'} file); "
                    "choose another output file"
                )
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputRefused(f"{path}: is a directory; give a file name")
    if mode is not None and is_sqlite_file(resolved):  # a regular file: reading it cannot block
        raise OutputRefused(f"{path}: is an SQLite database; an export never overwrites one")
    if not resolved.parent.is_dir():
        raise OutputRefused(f"{path}: folder {resolved.parent} does not exist")
    return resolved


@contextmanager
def atomic_text_file(
    path: str | Path, database: str | Path | None = None, newline: str | None = ""
) -> Iterator[IO[str]]:
    """A text file that appears at `path` only if the block finishes without error."""
    target = check_output_path(path, database)
    temp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part"
    # Created like any new file (0666 less the umask), not mkstemp's 0600: the export is
    # the user's file, readable as their other files are.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            # Keep the permissions a user gave the file they are replacing.
            os.chmod(temp, target.stat().st_mode & 0o7777)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


# -- spreadsheet-safe cells ------------------------------------------------------

# A spreadsheet evaluates a cell that starts with one of these as a formula
# (OWASP's CSV-injection list): `=cmd|' /C calc'!A0`, `@HYPERLINK(...)`, ...
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Terminal control characters (C0 except tab/newline, DEL, C1) and the bidi
# controls that can reorder what a reader sees (U+202E makes "exe.txt" look like "txt.exe").
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def spreadsheet_cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as text: formula starts get a leading `'`
    (numbers such as -0.25 stay numbers), control characters are written out as
    `\\xNN` / `\\uNNNN`. Non-strings pass through."""
    if not isinstance(value, str) or not value:
        return value
    if value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        value = "'" + value
    return _CONTROL.sub(_escape, value)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
