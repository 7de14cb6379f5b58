"""`workbench import mentions` refuses what no run could have made: a repetition or a rank
below 1 (runs count both from 1), and a file with a header and no rows (it imported
"0 responses" and created an empty study). One line naming the file, the line and the
column; nothing stored."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import run_cli

HEADER = "model,topic,cluster,question_id,repetition,rank,entity\n"


def studies(db) -> list[str]:
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        return [row[0] for row in conn.execute("SELECT name FROM studies")]
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("cells", "column", "said"),
    [
        ("-5,1,Nike", "repetition", "expected 1 or more, got -5"),
        ("0,1,Nike", "repetition", "expected 1 or more, got 0"),
        ("1,0,Nike", "rank", "expected 1 or more, got 0"),
        ("1,-2,Nike", "rank", "expected 1 or more, got -2"),
    ],
)
def test_a_repetition_or_rank_below_one_is_refused(tmp_path, cells, column, said):
    path = tmp_path / "m.csv"
    path.write_text(HEADER + "gpt,shoes,c1,q1,1,1,Adidas\n" + f"gpt,shoes,c1,q2,{cells}\n")
    db = tmp_path / "a.db"
    out = run_cli("import", "mentions", path, "--db", db, "--study", "ext")
    assert out.returncode == 2
    assert out.stderr.strip() == f"error: {path}: line 3: column {column!r}: {said}"
    assert studies(db) == []


def test_a_header_with_no_rows_is_refused_and_creates_no_study(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(HEADER + "\n\n")
    db = tmp_path / "a.db"
    out = run_cli("import", "mentions", path, "--db", db, "--study", "ext")
    assert out.returncode == 2
    message = out.stderr.strip()
    assert "\n" not in message and f"{path}: no rows after the header" in message
    assert "Imported" not in out.stdout
    assert studies(db) == []
    # The same file with a row imports it.
    path.write_text(HEADER + "gpt,shoes,c1,q1,1,1,Nike\n")
    out = run_cli("import", "mentions", path, "--db", db, "--study", "ext")
    assert out.returncode == 0 and "Imported 1 response with 1 mention" in out.stdout
    assert studies(db) == ["ext"]
