"""Splitting decoded CSV text into records, exactly as `csv.reader(strict=True)` does, in one pass.

Python's `csv.reader` in its default (lenient) mode lets a lone quote swallow the rest of a
file into one field and reads `"Brand5 12" screen` as `Brand5 12 screen`; in strict mode it
refuses both, but names the last line read (the end of the file), not the line where the
quote opened, and it holds a field as 4 bytes a character (a 50 MB field took 300 MB). This
reader takes the text block by block and never goes back over text it carried from one
block to the next (the reader before split the unfinished line again at every block: a
50 MB line took 34 s). Whole lines without a quote are split at their commas in bulk; a run
of well-formed records with quotes, found by a regex that never backtracks, is left to
`csv` (both at C speed, the common cases); any other record (cut by a block's end, or at
fault) is followed through its states, jumping from one quote, comma or line end to the
next. A field that goes on past a block grows as slices of the blocks, joined once, and is
refused as soon as it passes the field limit, however much of the file remains.

The dialect is `csv`'s default (comma, double quote, a quote doubled inside quotes, lines
ending at LF, CRLF or CR) with `strict=True`; tests compare the two on generated files.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator

from workbench.errors import CsvSyntaxError  # noqa: F401  (raised here; the family is workbench.errors)

# More than any model answer (a million tokens is some 4 MB), and a bound on what one
# field may hold in memory: a file whose quote never closes is refused once this is passed.
FIELD_LIMIT = 64 * 1024 * 1024  # characters

_LINE_END = re.compile(r"\r\n|\r|\n")
_UNQUOTED_END = re.compile(r"[,\r\n]")
# A run of whole records, each strictly formed: fields quoted (a quote inside doubled) or
# not (not starting with a quote), separated by commas, the record ended by a line end.
# Possessive throughout: the regex never backtracks, so it runs in time linear in the text.
_FIELD = r'(?:"[^"]*+(?:""[^"]*+)*+"|[^,"\r\n][^,\r\n]*+)?+'
_WELL_FORMED = re.compile(rf"(?:{_FIELD}(?:,{_FIELD})*+(?:\r\n|\r|\n))*+")

# Where a record is while its text is read: at its start, at a field's start (after a
# comma), inside an unquoted field, inside a quoted one, or just past a quote inside one
# (which either doubles the quote or closes the field).
RECORD, FIELD, PLAIN, QUOTED, QUOTE = range(5)


def _newlines(text: str) -> int:
    """How many lines `text` ends (LF, CRLF and CR each end one)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _plain_lines(chunk: str) -> list[str]:
    """The lines of `chunk` (which ends at a line end) without their ends."""
    lines = _LINE_END.split(chunk) if "\r" in chunk else chunk.split("\n")
    lines.pop()  # the empty text after the last line end
    return lines


def _held_cr(blocks: Iterable[str]) -> Iterator[str]:
    """The blocks, a CR at a block's end moved to the next block, so a CRLF is never cut."""
    held = ""
    for block in blocks:
        if held:
            block, held = held + block, ""
        if block.endswith("\r"):
            block, held = block[:-1], "\r"
        if block:
            yield block
    if held:
        yield held


def _too_long(line: int, limit: int, quoted_since: int | None) -> CsvSyntaxError:
    if quoted_since is not None:
        return CsvSyntaxError(
            quoted_since,
            f"a quoted field opens here and runs past {limit:,} characters (the field limit): "
            "is its closing quote missing?",
        )
    return CsvSyntaxError(line, f"a field runs past {limit:,} characters (the field limit)")


def _after_quote(line: int, opened: int, text: str) -> CsvSyntaxError:
    """The refusal of a character other than a comma or a line end after a closing quote."""
    shown = text
    if opened == line:
        return CsvSyntaxError(
            line,
            f"text after a quoted field's closing quote ({shown!r}...): a field that holds a quote is "
            'quoted whole, with each quote in it doubled ("say ""hi"" now")',
        )
    return CsvSyntaxError(
        opened,
        f"a quoted field opens here and closes on line {line}, followed by {shown!r}: "
        "is a quote missing, or one inside the field not doubled?",
    )


def records(blocks: Iterable[str], limit: int = FIELD_LIMIT) -> Iterator[tuple[int, list[str]]]:
    """(line of the record's end, its fields) for each record of the text `blocks` make,
    as `csv.reader(io.StringIO(text, newline=""), strict=True)` reads it (an empty line is
    an empty record, as there); CsvSyntaxError naming the line where the fault starts."""
    parser = _Parser(limit)
    for buf in _held_cr(blocks):
        yield from parser.feed(buf)
    yield from parser.finish()


class _Parser:
    """A record's state between blocks; each character is looked at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.line = 0  # lines ended before the text at hand
        self.state = RECORD
        self.fields: list[str] = []  # the record's fields so far
        self.pieces: list[str] = []  # the field's text so far, a slice of each block it is in
        self.size = 0  # the field's length so far
        self.opened = 0  # the line where the quoted field at hand opened
        self.ready: list[tuple[int, list[str]]] = []  # records the last step ended

    def feed(self, buf: str) -> Iterator[tuple[int, list[str]]]:
        i, n = 0, len(buf)
        steps = {FIELD: self._field, PLAIN: self._plain, QUOTED: self._quoted, QUOTE: self._quote}
        while i < n:
            if self.state == RECORD:
                i = yield from self._bulk(buf, i)
            else:
                i = steps[self.state](buf, i)
                if self.ready:
                    yield from self.ready
                    self.ready = []

    def finish(self) -> Iterator[tuple[int, list[str]]]:
        """The end of the text ends a record as a line end does, except inside a quoted field."""
        if self.state == QUOTED:
            raise CsvSyntaxError(self.opened, "a quoted field opens here and the file ends before its closing quote")
        if self.state in (PLAIN, QUOTE):
            self.fields.append("".join(self.pieces))
        elif self.state == FIELD:
            self.fields.append("")
        if self.state != RECORD:
            yield self.line + 1, self.fields

    def _bulk(self, buf: str, i: int):
        """Whole records from `i` taken at C speed: lines without a quote split at their
        commas, then well-formed records with quotes read by `csv`. Where neither applies
        (a record cut by the block's end, or a fault), the record is followed state by state."""
        quote = buf.find('"', i)
        end = len(buf) if quote < 0 else quote
        cut = max(buf.rfind("\n", i, end), buf.rfind("\r", i, end))
        if cut >= i:
            for text in _plain_lines(buf[i : cut + 1]):
                self.line += 1
                row = text.split(",") if text else []
                if len(text) > self.limit and max(map(len, row), default=0) > self.limit:
                    raise _too_long(self.line, self.limit, None)
                yield self.line, row
            return cut + 1
        stop = _WELL_FORMED.match(buf, i).end()
        if stop > i:
            yield from _quoted_records(buf[i:stop], self.line, self.limit)
            self.line += _newlines(buf[i:stop])
            return stop
        self.state = FIELD
        return i

    def _grow(self, piece: str) -> None:
        self.pieces.append(piece)
        self.size += len(piece)
        if self.size > self.limit:
            raise _too_long(self.line + 1, self.limit, self.opened if self.state in (QUOTED, QUOTE) else None)

    def _save(self) -> None:
        self.fields.append("".join(self.pieces))
        self.pieces, self.size = [], 0

    def _end_record(self, buf: str, i: int) -> int:
        """The record ends at the line end at `i`; where the next one starts (CRLF is one end)."""
        self.line += 1
        self.ready.append((self.line, self.fields))
        self.state, self.fields = RECORD, []
        return i + 2 if buf.startswith("\r\n", i) else i + 1

    def _field(self, buf: str, i: int) -> int:
        char = buf[i]
        if char == '"':
            self.state, self.opened = QUOTED, self.line + 1
            return i + 1
        if char == ",":
            self.fields.append("")
            return i + 1
        if char in "\r\n":
            self.fields.append("")
            return self._end_record(buf, i)
        self.state = PLAIN
        return i

    def _plain(self, buf: str, i: int) -> int:
        found = _UNQUOTED_END.search(buf, i)
        if found is None:
            self._grow(buf[i:])
            return len(buf)
        stop = found.start()
        self._grow(buf[i:stop])
        self._save()
        if buf[stop] == ",":
            self.state = FIELD
            return stop + 1
        return self._end_record(buf, stop)

    def _quoted(self, buf: str, i: int) -> int:
        stop = buf.find('"', i)
        stop = len(buf) if stop < 0 else stop
        piece = buf[i:stop]
        self.line += _newlines(piece)
        self._grow(piece)
        if stop == len(buf):
            return stop
        self.state = QUOTE
        return stop + 1

    def _quote(self, buf: str, i: int) -> int:
        """The quote just read doubles a quote or closes the field."""
        char = buf[i]
        if char == '"':
            self.state = QUOTED
            self._grow('"')
            return i + 1
        if char not in ",\r\n":
            raise _after_quote(self.line + 1, self.opened, buf[i : i + 20])
        self._save()
        if char == ",":
            self.state = FIELD
            return i + 1
        return self._end_record(buf, i)


def _quoted_records(text: str, line: int, limit: int) -> Iterator[tuple[int, list[str]]]:
    """The records of `text`, which holds whole, well-formed ones after `line` lines."""
    if csv.field_size_limit() < len(text):
        csv.field_size_limit(len(text))  # ours is checked here; csv's own must not refuse first
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    for row in reader:
        if len(text) > limit and max(map(len, row), default=0) > limit:
            raise _too_long(line + reader.line_num, limit, None)
        yield line + reader.line_num, row
