"""Writing files a user asked for without endangering what they already have.

Two promises, kept for every export (CLI and app):

- An export never overwrites a database. The output path is refused when it is
  the store being read, one of its `-wal`/`-shm`/`-journal` companions, or any
  file that starts with SQLite's header (someone else's database is data too).
- An export is all or nothing: it is written to a temporary file in the same
  folder and renamed over the target only once complete, so an error, a full
  disk or Ctrl-C midway leaves the previous file (or no file), never half of one.

And one for CSV (a reviewer opens exports in a spreadsheet): cells are made
spreadsheet-safe unless the user asks for `raw` output; see `spreadsheet_cell`.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from workbench.store.errors import UserFacingError

SQLITE_HEADER = b"SQLite format 3\x00"
_COMPANIONS = ("", "-wal", "-shm", "-journal")


class OutputRefused(UserFacingError):
    """The output path would destroy data or cannot be written; the message says why."""


def is_sqlite_file(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def check_output_path(path: str | Path, database: str | Path | None = None) -> Path:
    """The resolved output path, or OutputRefused naming the reason."""
    target = Path(path).expanduser()
    resolved = target.resolve()
    if database is not None:
        db = Path(database).expanduser().resolve()
        for suffix in _COMPANIONS:
            if resolved == Path(f"{db}{suffix}"):
                raise OutputRefused(
                    f"{path}: that is the database being exported (or its {suffix or 'main'} file); "
                    "choose another output file"
                )
    if resolved.is_dir():
        raise OutputRefused(f"{path}: is a directory; give a file name")
    if resolved.exists() and is_sqlite_file(resolved):
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
