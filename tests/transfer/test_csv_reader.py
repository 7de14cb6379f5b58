"""The one CSV reader of every import, against Python's own `csv` module in strict mode.

Generated files (quotes, doubled quotes, line ends inside and outside quotes, LF, CRLF and CR,
a byte-order mark, characters of two to four UTF-8 bytes, a stray byte that is not UTF-8) are
read in blocks of a few bytes, so that every boundary falls everywhere: inside a character,
between a CR and its LF, inside a quoted field, just after a quote. The reader gives the rows
`csv.reader(strict=True)` gives, with the same line numbers, or refuses where it refuses.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from workbench.files import csv_input, csv_records
from workbench.files.csv_input import CsvInputError, read_rows
from workbench.files.csv_records import CsvSyntaxError

PIECES = ["a", "b", " ", ",", '"', '""', "\n", "\r", "\r\n", "é", "株", "😀", "\ufeff", "\x00", "\t"]
text_pieces = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=40).map("".join)


@st.composite
def csv_files(draw):
    """(file bytes, how `csv` decodes them) for text of CSV-ish pieces, sometimes a stray byte in."""
    text = draw(text_pieces)
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
    data = text.encode(encoding)
    if encoding != "utf-16" and draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xe9", b"\xe6\xa0"])) + data[at:]
    return data, "utf-16" if encoding == "utf-16" else "utf-8-sig"


def by_csv(data: bytes, encoding: str, limit: int) -> tuple[list, bool] | None:
    """(line, row) for each row `csv.reader(strict=True)` reads, and whether it refuses the
    file; None for bytes that do not decode."""
    try:
        text = codecs.decode(data, encoding)
    except UnicodeDecodeError:
        return None
    saved = csv.field_size_limit(limit)
    rows: list = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        rows.extend((reader.line_num, row) for row in reader)
    except csv.Error:
        return rows, True
    finally:
        csv.field_size_limit(saved)
    return rows, False


def by_workbench(path: Path, limit: int) -> tuple[list, bool] | None:
    """(line, row) for each row the reader gives, and whether it refuses the file; None
    for a refused byte that does not decode."""
    rows: list = []
    try:
        rows.extend(csv_records.records(csv_input.text_blocks(path), limit))
    except CsvSyntaxError:
        return rows, True
    except CsvInputError:
        return None
    return rows, False


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(csv_files(), st.integers(1, 9), st.sampled_from([1, 2, 4, csv_records.FIELD_LIMIT]))
@example((b'a,"b\nc",d\r\n"e""f"\rg\n', "utf-8-sig"), 3, csv_records.FIELD_LIMIT)
@example((b'"Brand5\nx,y\n', "utf-8-sig"), 2, csv_records.FIELD_LIMIT)  # never closed
@example((b'"Brand5 12" screen\n', "utf-8-sig"), 4, csv_records.FIELD_LIMIT)
@example((codecs.BOM_UTF8 + "é,😀\r\n".encode(), "utf-8-sig"), 1, csv_records.FIELD_LIMIT)
def test_the_reader_reads_what_csv_strict_reads(tmp_path, monkeypatch, case, block, limit):
    data, encoding = case
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    monkeypatch.setattr(csv_input, "BLOCK", block)
    expected = by_csv(data, encoding, limit)
    read = by_workbench(path, limit)
    if expected is None:  # bytes that are not text: refused (after the rows before them, or at a
        assert read is None or read[1]  # fault before them in the file)
    else:
        assert read == expected


@pytest.mark.parametrize("block", [1, 7, 1 << 20])
def test_read_rows_gives_the_rows_csv_gives_and_their_lines(tmp_path, monkeypatch, block):
    """Through `read_rows`, as every import reads: the header's columns, the lines of rows that
    follow a field over two lines, a blank line skipped."""
    monkeypatch.setattr(csv_input, "BLOCK", block)
    path = tmp_path / "m.csv"
    path.write_bytes('\ufeffname, region\r\n"Acme\r\nCorp",Europe\r\n\r\n"Say ""Hi""",Asia\r\né,"株"'.encode())
    assert list(read_rows(path, ("name", "region"))) == [
        (3, {"name": "Acme\r\nCorp", "region": "Europe"}),
        (5, {"name": 'Say "Hi"', "region": "Asia"}),
        (6, {"name": "é", "region": "株"}),
    ]


@pytest.mark.parametrize("opening", ['"', ""], ids=["quoted", "unquoted"])
def test_a_field_past_the_limit_is_refused_as_soon_as_the_limit_is_passed(tmp_path, monkeypatch, opening):
    """A field 100 times the limit: refused having read no more than the limit and two blocks
    (a quote never closed in a 200 MB file was read to its end, four minutes, first)."""
    monkeypatch.setattr(csv_input, "BLOCK", 100)
    monkeypatch.setattr(csv_records, "FIELD_LIMIT", 1_000)
    path = tmp_path / "m.csv"
    header = "name,region\nAcme,Europe\n"
    path.write_text(header + opening + "x" * 100_000 + opening + ",Asia\n")
    read: list[int] = []
    with pytest.raises(CsvInputError) as refused:
        list(read_rows(path, ("name", "region"), lambda _what, done, _total: read.append(done)))
    assert f"{path}: line 3: a " in str(refused.value) and "past 1,000 characters" in str(refused.value)
    assert max(read) <= len(header) + 1_000 + 2 * 100 + 4
    # A field of exactly the limit is read.
    path.write_text(header + opening + "x" * 1_000 + opening + ",Asia\n")
    assert [row["name"] for _, row in read_rows(path, ("name", "region"))] == ["Acme", "x" * 1_000]


header_names = st.lists(
    st.tuples(st.sampled_from(["name", "region", "entity", "", "株", "a b"]), st.sampled_from(["", " ", "  ", "\t"])),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header_names, st.sampled_from(["", " ", "\t"]), st.integers(1, 9))
@example([("entity", ""), ("entity", "")], "", 4)
@example([("entity", ""), ("entity", " ")], " ", 1)
@example([("name", ""), ("", ""), ("", "")], "", 3)
def test_a_column_named_twice_is_refused_whatever_the_spaces_around_it(tmp_path, monkeypatch, names, before, block):
    """Header names drawn with repeats and padding (before and after): a name given twice once
    its spaces are set aside is refused on line 1 naming it and the file; any other header
    reads every column (unnamed ones, a spreadsheet's trailing commas, may repeat)."""
    monkeypatch.setattr(csv_input, "BLOCK", block)
    header = [before + name + after for name, after in names]
    path = tmp_path / "h.csv"
    path.write_text(",".join(header) + "\n" + ",".join(str(i) for i in range(len(header))) + "\n")
    stripped = [h.strip() for h in header]
    assume(any(stripped))  # a header with no name at all is a blank first line, refused otherwise
    repeated = [n for i, n in enumerate(stripped) if n and n in stripped[:i]]
    if repeated:
        with pytest.raises(CsvInputError) as refused:
            list(read_rows(path))
        assert str(refused.value).startswith(f"{path}: line 1: column {repeated[0]!r} is named twice")
    else:
        [(line, row)] = list(read_rows(path))
        named = {n: str(i) for i, n in enumerate(stripped) if n}
        assert line == 2 and {k: v for k, v in row.items() if k} == named
