"""Reading users' CSV files: every problem is one line naming the file, the line and the column.

Files come from spreadsheets and other tools: UTF-8 with or without a BOM, UTF-16
with a BOM (Excel's "Unicode text"), rows cut short, numbers that are words,
`nan`, or integers too large for SQLite. Each is read or refused with the place
and the fix; a file in another encoding (Latin-1, say) is refused rather than
guessed, so names are never silently mangled.
"""

from __future__ import annotations

import csv
import io
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from workbench.store.errors import UserFacingError

SQLITE_MAX_INT = 2**63 - 1
# csv refuses fields over 128 KB by default with a traceback-worthy message; a model
# answer can be longer. 64 MB per field is beyond any sane file and still bounded.
csv.field_size_limit(64 * 1024 * 1024)


class ImportError_(UserFacingError, ValueError):
    """A file that cannot be imported; the message names the file, line and column."""


class CsvInputError(ImportError_):
    """A CSV file that cannot be imported as it is; the message says where and why."""


def read_text(path: Path) -> str:
    """The file's text: UTF-8 (BOM or not) or UTF-16 with a BOM."""
    path = Path(path)
    if path.is_dir():
        raise CsvInputError(f"{path}: is a directory, not a CSV file")
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
            # /dev/zero or /dev/urandom never end: reading one would fill the memory.
            raise CsvInputError(f"{path}: is a device, not a file (a pipe or a regular file will do)")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CsvInputError(f"{path}: no such file") from None
    except OSError as exc:
        raise CsvInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise CsvInputError(f"{path}: broken UTF-16 text at byte {exc.start}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CsvInputError(
            f"{path}: line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
            "save the file as UTF-8 (or UTF-16 with a BOM)"
        ) from None


def read_rows(path: Path, required: tuple[str, ...] | list[str] = ()) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) for each data row, every value a string (missing optional
    columns are absent, not None). Refuses a missing required column and short or
    long rows, naming the line."""
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise CsvInputError(f"{path}: is empty; expected a header row with {', '.join(required)}") from None
    except csv.Error as exc:
        raise CsvInputError(f"{path}: line 1: {exc}") from None
    header = [h.strip() for h in header]
    missing = [c for c in required if c not in header]
    if missing:
        raise CsvInputError(
            f"{path}: missing column(s) {', '.join(missing)}; expected a header with "
            f"{', '.join(required)} (found: {', '.join(header) or 'nothing'})"
        )
    try:
        for values in reader:
            line = reader.line_num
            if not values or all(not v.strip() for v in values):
                continue  # blank lines, as spreadsheets leave them
            if len(values) != len(header):
                raise CsvInputError(f"{path}: line {line}: {len(values)} fields, the header has {len(header)}")
            yield line, dict(zip(header, values))
    except csv.Error as exc:
        raise CsvInputError(f"{path}: line {reader.line_num}: {exc}") from None


def whole(
    path: Path, line: int, column: str, value: str, low: int = -SQLITE_MAX_INT - 1, high: int = SQLITE_MAX_INT
) -> int:
    """A whole number from a cell, or CsvInputError naming the cell."""
    text = value.strip()
    try:
        number = int(text)
    except ValueError:
        try:  # "3.0" from a spreadsheet is 3
            as_float = float(text)
        except ValueError:
            as_float = math.nan
        if not (math.isfinite(as_float) and as_float.is_integer()):
            raise CsvInputError(
                f"{path}: line {line}: column {column!r}: expected a whole number, got {value!r:.40}"
            ) from None
        number = int(as_float)
    if not low <= number <= high:
        raise CsvInputError(f"{path}: line {line}: column {column!r}: {number} is out of range ({low} to {high})")
    return number


def real(path: Path, line: int, column: str, value: str) -> float:
    """A finite number from a cell (no nan, no inf), or CsvInputError naming the cell."""
    try:
        number = float(value.strip())
    except ValueError:
        raise CsvInputError(f"{path}: line {line}: column {column!r}: expected a number, got {value!r:.40}") from None
    if not math.isfinite(number):
        raise CsvInputError(f"{path}: line {line}: column {column!r}: expected a finite number, got {value!r}")
    return number
