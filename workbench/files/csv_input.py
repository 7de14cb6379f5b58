"""Reading users' CSV files: every problem is one line naming the file, the line and the column.

Files come from spreadsheets and other tools: UTF-8 with or without a BOM, UTF-16
with a BOM (Excel's "Unicode text"), rows cut short, numbers that are words,
`nan`, or integers too large for SQLite. Each is read or refused with the place
and the fix; a file in another encoding (Latin-1, say) is refused rather than
guessed, so names are never silently mangled.
"""

from __future__ import annotations

import codecs
import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import BinaryIO, TypeVar

from workbench.errors import CsvInputError, ImportError_  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.files import csv_records
from workbench.files.csv_records import CsvSyntaxError, records

SQLITE_MAX_INT = 2**63 - 1
# Imports read their files in blocks and store their rows in chunks, so that memory stays
# bounded by these whatever the file's size (a million-row file is common).
BLOCK = 1 << 20  # bytes read and decoded at a time
CHUNK = 20_000  # rows checked and stored at a time
T = TypeVar("T")
# Told how an import proceeds: (what it does, how far, out of how much or None when unknown).
Progress = Callable[[str, int, "int | None"], None]


def read_text(path: Path) -> str:
    """The file's text: UTF-8 (BOM or not) or UTF-16 with a BOM (for small files: a catalog)."""
    return "".join(text_blocks(path))


def _open(path: Path) -> BinaryIO:
    if path.is_dir():
        raise CsvInputError(f"{path}: is a directory, not a CSV file")
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
            # /dev/zero or /dev/urandom never end: reading one would fill the memory.
            raise CsvInputError(f"{path}: is a device, not a file (a pipe or a regular file will do)")
        return open(path, "rb")  # noqa: SIM115  (closed by text_blocks)
    except FileNotFoundError:
        raise CsvInputError(f"{path}: no such file") from None
    except OSError as exc:
        raise CsvInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _read(path: Path, handle: BinaryIO, size: int) -> bytes:
    try:
        return handle.read(size)
    except OSError as exc:
        raise CsvInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _decoder(head: bytes) -> tuple[Callable[[bytes, str, bool], tuple[str, int]], int]:
    """The decoding function for a file that starts with `head`, and the length of its BOM."""
    if head.startswith(b"\xff\xfe"):
        return codecs.utf_16_le_decode, 2
    if head.startswith(b"\xfe\xff"):
        return codecs.utf_16_be_decode, 2
    return codecs.utf_8_decode, 3 if head.startswith(codecs.BOM_UTF8) else 0


def text_blocks(path: Path, progress: Progress | None = None) -> Iterator[str]:
    """The file's text, decoded a block at a time (UTF-8 with or without a BOM, UTF-16 with
    one), so that a file of any size is read in bounded memory. A byte that is not UTF-8 is
    refused with its line, after the text before it (a fault on an earlier line is named
    first, wherever the blocks happen to end); `progress("reading", bytes read, file size or
    None)` follows the reading."""
    path = Path(path)
    handle = _open(path)
    with handle:
        status = os.fstat(handle.fileno())
        total = status.st_size if stat.S_ISREG(status.st_mode) else None  # a pipe's is not known
        data = _read(path, handle, 4)
        decode, bom = _decoder(data)
        done, offset, newlines = len(data), bom, 0  # `data`: the bytes from `offset` not decoded yet
        data = data[bom:]
        while True:
            block = _read(path, handle, BLOCK)
            done += len(block)
            data += block
            try:
                text, used = decode(data, "strict", not block)
            except UnicodeDecodeError as exc:
                yield decode(data[: exc.start], "strict", False)[0]
                raise _decode_error(path, data, exc, offset, newlines, decode) from None
            newlines += data.count(b"\n", 0, used)
            offset, data = offset + used, data[used:]
            yield text
            if progress is not None:
                progress("reading", done, total)
            if not block:
                return


def _decode_error(
    path: Path, data: bytes, exc: UnicodeDecodeError, offset: int, newlines: int, decode
) -> CsvInputError:
    """The refusal of a byte that does not decode: its line (UTF-8) or its byte (UTF-16)."""
    if decode is not codecs.utf_8_decode:
        return CsvInputError(f"{path}: broken UTF-16 text at byte {offset + exc.start}")
    line = newlines + data.count(b"\n", 0, exc.start) + 1
    return CsvInputError(
        f"{path}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
        "save the file as UTF-8 (or UTF-16 with a BOM)"
    )


def read_rows(
    path: Path, required: tuple[str, ...] | list[str] = (), progress: Progress | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) for each data row, every value a string (missing optional
    columns are absent, not None). The file is read as the rows are taken, in bounded
    memory, as `csv.reader(strict=True)` reads it: a quote that never closes, a file cut
    inside a quoted field or text after a closing quote is refused with the line where the
    field opens (read leniently, one unclosed quote took the rest of the file into one
    field). So are a missing required column and short or long rows."""
    found = records(text_blocks(path, progress), csv_records.FIELD_LIMIT)
    try:
        try:
            line, header = next(found)
        except StopIteration:
            raise CsvInputError(f"{path}: is empty; expected a header row with {', '.join(required)}") from None
        header = [h.strip() for h in header]
        _refuse_repeated(path, line, header)
        missing = [c for c in required if c not in header]
        if missing:
            raise CsvInputError(
                f"{path}: missing column(s) {', '.join(missing)}; expected a header with "
                f"{', '.join(required)} (found: {', '.join(header) or 'nothing'})"
            )
        for line, values in found:
            if not values or all(not v.strip() for v in values):
                continue  # blank lines, as spreadsheets leave them
            if len(values) != len(header):
                raise CsvInputError(f"{path}: line {line}: {len(values)} fields, the header has {len(header)}")
            yield line, dict(zip(header, values))
    except CsvSyntaxError as exc:
        raise CsvInputError(f"{path}: line {exc.line}: {exc.message}") from None


def _refuse_repeated(path: Path, line: int, header: list[str]) -> None:
    """A column named twice (or twice but for surrounding spaces, which are not part of a
    name): a row read as a mapping would keep the last cell and drop the first without a
    word, so the file is refused. Unnamed columns (a spreadsheet's trailing commas) are
    never read and may repeat."""
    first: dict[str, int] = {}
    for number, name in enumerate(header, start=1):
        if name and name in first:
            raise CsvInputError(
                f"{path}: line {line}: column {name!r} is named twice (columns {first[name]} and {number}); "
                "name each column once"
            )
        first.setdefault(name, number)


def chunks(items: Iterable[T], size: int | None = None) -> Iterator[list[T]]:
    """`items` in lists of at most `size` (CHUNK): what an import checks and stores at a time."""
    iterator, size = iter(items), size or CHUNK
    while chunk := list(islice(iterator, size)):
        yield chunk


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
    if number < low and high == SQLITE_MAX_INT:  # "1 to 9223372036854775807" says less than "at least 1"
        raise CsvInputError(f"{path}: line {line}: column {column!r}: expected {low} or more, got {number}")
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


MAX_NAME_CHARS = 1_000  # a brand, person or place; longer is a whole answer in the wrong column


def name_cell(path: Path, line: int, column: str, value: str) -> str:
    """A name from a cell, stripped, or CsvInputError when it is too long to be a name (the
    store would keep and index it, and every screen would carry it)."""
    name = value.strip()
    if len(name) > MAX_NAME_CHARS:
        raise CsvInputError(
            f"{path}: line {line}: column {column!r}: {len(name):,} characters is no name "
            f"(at most {MAX_NAME_CHARS:,}; it starts {name[:40]!r}): is a whole answer in this column?"
        )
    # A NUL is a broken file, not a brand (SQLite and terminals cut text at it); escapes and
    # markup are kept, as models write them, and shown literally.
    bad = "\x00" if "\x00" in name else None
    if bad is not None:
        raise CsvInputError(
            f"{path}: line {line}: column {column!r}: {name[:40]!r} holds a control character ({bad!r}); names are text"
        )
    return name
