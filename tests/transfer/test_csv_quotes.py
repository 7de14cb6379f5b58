"""A quote out of place in a CSV file is refused, naming the line where its field opens, and
nothing is stored: by every import that reads CSV.

Read leniently (as `csv.reader` does by default), a mentions file of 1,000 rows whose line 7
held `"Brand5` imported as "6 responses", exit 0: one entity name 23,666 characters long
held rows 8-1001. A file cut inside a quoted field was accepted too, and `"Brand5 12" screen`
was stored as `Brand5 12 screen`.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest
from helpers import run_cli
from test_import_streaming import dump
from test_import_streaming_scores import URGENCY, score_task

ROWS = 1_000
# Each kind: its header, its n-th data row (the text cell last or in the middle, where a lone
# quote swallows the rows after it) and the column of that cell.
KINDS = {
    "mentions": (
        "model,topic,cluster,question_id,repetition,rank,entity",
        lambda n: ["m", "shoes", "c", f"q{n // 10}", "1", str(n % 10 + 1), f"Brand{n}"],
        6,
    ),
    "scores": (
        "model,entity,template_id,label,logprob,prompt",
        lambda n: ["m", f"Brand{n // 40}", str(n // 4 % 10), URGENCY[n % 4], str(-0.5 - n % 4), f"case {n // 4}?"],
        1,
    ),
    "rankings": (
        "model,seed,persona_category,persona,rank,item",
        lambda n: ["m", str(n // 10), "movie", "neutral", str(n % 10 + 1), f"Brand{n}"],
        5,
    ),
    "entities": ("name,region", lambda n: [f"Brand{n}", "Europe"], 0),
    "questions": (
        "topic,cluster,question",
        lambda n: ["shoes", ("Convenience", "Budget-Conscious")[n % 2], f"Which shoe {n}?"],
        2,
    ),
    "responses": (
        "model,seed,persona_category,persona,response",
        lambda n: ["m", str(n), "", "neutral", f"The Matrix then Brand{n}"],
        4,
    ),
}


def options(kind: str, folder: Path) -> list:
    if kind == "scores":
        return ["--study", "s", "--task", score_task()]
    if kind == "responses":
        catalog = folder / "catalog.csv"
        catalog.write_text("title\nThe Matrix\nOldboy\n")
        return ["--study", "s", "--catalog", catalog]
    return [] if kind == "entities" else ["--study", "s"]


def rows_of(kind: str, count: int = ROWS) -> list[list[str]]:
    return [KINDS[kind][1](n) for n in range(count)]


def write(path: Path, kind: str, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        handle.write(KINDS[kind][0] + "\n")
        csv.writer(handle, lineterminator="\n").writerows(rows)
    return path


def with_cell(kind: str, rows: list[list[str]], index: int, cell: str) -> str:
    """The file's text, with row `index`'s text cell written as `cell`, as it is (no quoting)."""
    column = KINDS[kind][2]
    lines = [KINDS[kind][0]]
    for n, row in enumerate(rows):
        cells = [f'"{c}"' if "," in c else c for c in row]
        if n == index:
            cells[column] = cell
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


@pytest.fixture(params=sorted(KINDS))
def store(request, tmp_path):
    """A store where a good file of the kind was imported: (kind, database, its dump)."""
    kind = request.param
    db = tmp_path / "a.db"
    good = write(tmp_path / "good.csv", kind, rows_of(kind, 12))
    result = run_cli("import", kind, good, "--db", db, *options(kind, tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    return kind, db, dump(db)


def refused(kind: str, db: Path, path: Path, *said: str) -> None:
    result = run_cli("import", kind, path, "--db", db, *options(kind, path.parent))
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for words in said:
        assert words in result.stderr, result.stderr


def test_a_quote_never_closed_on_line_7_of_1000_rows_is_refused_naming_line_7(tmp_path, store):
    kind, db, before = store
    rows = rows_of(kind)
    path = tmp_path / "unclosed.csv"
    path.write_text(with_cell(kind, rows, 5, '"Brand5'))  # data row 6: line 7
    refused(kind, db, path, f"{path}: line 7: a quoted field opens here", "the file ends before its closing quote")
    assert dump(db) == before
    path.write_text(with_cell(kind, rows, 5, rows[5][KINDS[kind][2]]))  # the file as it was meant: imported
    assert run_cli("import", kind, path, "--db", db, *options(kind, tmp_path)).returncode == 0


def test_a_file_cut_inside_a_quoted_field_is_refused(tmp_path, store):
    kind, db, before = store
    rows = rows_of(kind, 6)
    text = with_cell(kind, rows, 5, '"Brand5 12 inch, black"')
    path = tmp_path / "cut.csv"
    path.write_text(text[: text.index("12 inch")])  # cut after `"Brand5 ` on line 7
    refused(kind, db, path, f"{path}: line 7: a quoted field opens here and the file ends before its closing quote")
    assert dump(db) == before


def test_text_after_a_closing_quote_is_refused(tmp_path, store):
    kind, db, before = store
    path = tmp_path / "after.csv"
    path.write_text(with_cell(kind, rows_of(kind, 20), 5, '"Brand5 12" screen'))
    refused(kind, db, path, f"{path}: line 7: text after a quoted field's closing quote (' screen", '""')
    assert dump(db) == before


def test_a_quote_closed_lines_later_names_the_line_it_opened(tmp_path):
    """`"Brand5` on line 7 and `"Brand9"` on line 11: the field of line 7 closes at the first
    quote of line 11, and the text after it is refused naming both lines."""
    rows = rows_of("mentions", 30)
    rows[9][6] = "Brand9 x"
    path = tmp_path / "m.csv"
    text = with_cell("mentions", rows, 5, '"Brand5').replace("Brand9 x", '"Brand9"')
    path.write_text(text)
    refused("mentions", tmp_path / "a.db", path, f"{path}: line 7: a quoted field opens here and closes on line 11")
    assert not (tmp_path / "a.db").exists()


def test_quoted_fields_that_are_well_formed_still_import(tmp_path):
    """Quotes doubled inside a quoted field, a name over two lines, a comma, CRLF line ends:
    stored as written, each row's line counted as the file's."""
    rows = [["m", "shoes", "c", "q1", "1", "1", 'Say "Hi" Inc'], ["m", "shoes", "c", "q1", "1", "2", "Acme\nCorp"]]
    rows += [["m", "shoes", "c", "q1", "1", "3", "Saucony, Inc."], ["m", "shoes", "c", "q1", "1", "x", "Bad"]]
    path = tmp_path / "m.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows([KINDS["mentions"][0].split(","), *rows])
    refused("mentions", tmp_path / "a.db", path, f"{path}: line 6: column 'rank'")  # line 3 holds two lines
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows([KINDS["mentions"][0].split(","), *rows[:3]])
    assert run_cli("import", "mentions", path, "--db", tmp_path / "a.db", "--study", "s").returncode == 0
    stored = sqlite3.connect(tmp_path / "a.db").execute("SELECT surface FROM mentions ORDER BY rank").fetchall()
    assert stored == [('Say "Hi" Inc',), ("Acme\nCorp",), ("Saucony, Inc.",)]
