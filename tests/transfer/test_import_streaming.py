"""Imports of large files: read a block and stored a chunk at a time, so memory stays flat as
the file grows, while what is stored, what is refused and how it is refused (one line naming
the file, the line and the column; nothing stored) are as they were when files were read whole.

The chunk sizes are made small here, so that files of a few thousand rows cross many chunk
and block boundaries (a list's rows in two chunks, a CRLF or a UTF-8 character cut in two).
"""

from __future__ import annotations

import csv
import random
import sqlite3
from pathlib import Path

import pytest
from helpers import PRINT_PEAK, peak_memory, run_cli

from workbench.files import csv_input
from workbench.methods.choice import mention_import
from workbench.transfer import dispatch as transfer

HEADER = ["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"]
SPELLINGS = [
    "Nike",
    " nike ",
    "Adidas",
    "ASICS",
    "Asics",
    "New Balance",
    "Acme\nCorp",  # a quoted name over two lines
    "Café Röst",
    "株式会社 Sony",
    'Say "Hi" Inc',
    "Saucony, Inc.",
    "On",
]


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(mention_import, "CHUNK", 50)
    monkeypatch.setattr(mention_import, "LISTS_PER_CHUNK", 7)
    monkeypatch.setattr(csv_input, "BLOCK", 333)


def tricky_rows(lists: int, seed: int = 5) -> list[list[str]]:
    """Lists of 0-7 names at ranks given out of order, their rows spread over windows of 50
    rows (so a list's rows fall in two chunks), some with no recommendation (one row with an
    empty rank and entity, or a rank and no entity), questions with no cluster, "2.0" for 2."""
    rng = random.Random(seed)
    rows = []
    for n in range(lists):
        question = n // 6 % 40
        key = [
            f"m{n % 3}",
            ("shoes", "phones")[n % 2],
            "" if question % 11 == 0 else f"c{question % 4}",
            f"q{question}",
            f"{n // 240 + 1}{'.0' if n % 13 == 0 else ''}",
        ]
        size = rng.randrange(0, 8)
        if size == 0:
            rows.append([*key, "", ""] if n % 2 else [*key, "3", ""])
        rows += [[*key, str(rank), rng.choice(SPELLINGS)] for rank in rng.sample(range(1, 12), size)]
    windows = [rows[i : i + 50] for i in range(0, len(rows), 50)]
    for window in windows:
        rng.shuffle(window)
    return [row for window in windows for row in window]


def write(path: Path, rows: list[list], encoding: str = "utf-8", newline: str = "\n") -> Path:
    with path.open("w", newline="", encoding=encoding) as handle:
        csv.writer(handle, lineterminator=newline).writerows([HEADER, *rows])
    return path


def expected_lists(rows: list[list[str]]) -> list[tuple]:
    """What the file says, grouped as a reader of the whole file would: lists in the order the
    file first names them, each by rank, each spelling's entity named by its first spelling."""
    from workbench.asking.extract import normalize_surface

    lists: dict[tuple, dict] = {}
    for model, topic, cluster, question, repetition, rank, entity in rows:
        entry = lists.setdefault((model, topic, question, int(float(repetition))), {"cluster": cluster, "items": []})
        if entity.strip():
            entry["items"].append((int(rank), entity.strip()))
    out, names = [], {}
    for (model, topic, question, repetition), entry in lists.items():
        items = sorted(entry["items"]) or [(None, None)]
        for rank, (_, surface) in enumerate(items, start=1):
            entity = None if surface is None else names.setdefault(normalize_surface(surface), surface)
            cells = (model, topic, entry["cluster"] or None, question, repetition)
            out.append((*cells, rank if surface else None, surface, entity))
    return out


def stored_lists(db: Path) -> list[tuple]:
    from workbench.store.db import connect

    records, _ = transfer.export_records(connect(db, False), "mentions")
    return [
        (r["model"], r["topic"], r["cluster"], r["question_id"], r["repetition"], r["rank"], r["surface"], r["entity"])
        for r in records
    ]


def dump(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def import_mentions(db: Path, path: Path, **options):
    return transfer.import_file(db, "mentions", path, {"study": "s", **options})


@pytest.mark.parametrize("encoding, newline", [("utf-8", "\n"), ("utf-8-sig", "\r\n"), ("utf-16", "\r\n")])
def test_a_file_read_in_chunks_is_stored_as_the_file_says(tmp_path, small_chunks, encoding, newline):
    rows = tricky_rows(400)
    path = write(tmp_path / "m.csv", rows, encoding, newline)
    (said,) = import_mentions(tmp_path / "a.db", path)
    expected = expected_lists(rows)
    named = sum(1 for row in expected if row[5] is not None)
    assert said == (
        f"Imported 400 responses with {named} mentions ({len(expected) - named} with no recommendation) into study 's'."
    )
    assert stored_lists(tmp_path / "a.db") == expected


def test_a_reimport_in_chunks_replaces_the_lists_it_names_and_keeps_the_others(tmp_path, small_chunks):
    rows = tricky_rows(300)
    import_mentions(tmp_path / "a.db", write(tmp_path / "all.csv", rows))
    again = [row for row in tricky_rows(300, seed=9) if row[0] == "m1"]  # model m1's lists, answered anew
    import_mentions(tmp_path / "a.db", write(tmp_path / "m1.csv", again))
    expected = [r for r in expected_lists(rows) if r[0] != "m1"] + [r for r in expected_lists(again)]
    assert sorted(stored_lists(tmp_path / "a.db"), key=str) == sorted(expected, key=str)


PEAK = (
    """
import re, sys
from pathlib import Path
from workbench.files import csv_input
from workbench.transfer import dispatch as transfer
from workbench.methods.choice import mention_import

mention_import.CHUNK, mention_import.LISTS_PER_CHUNK, csv_input.BLOCK = 2_000, 200, 1 << 16
opened = transfer.connect


def connect(*args):  # SQLite's page caches (2 MB each, full after some 50,000 rows) made small
    conn = opened(*args)
    conn.execute("PRAGMA cache_size = -128")
    conn.execute("PRAGMA temp.cache_size = -128")
    return conn


transfer.connect = connect
transfer.import_file(sys.argv[1], "mentions", sys.argv[2], {"study": "s"})
"""
    + PRINT_PEAK
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak memory from /proc")
def test_memory_stays_flat_as_the_file_grows_tenfold(tmp_path):
    """The peak memory of importing 10,000 rows and 100,000 rows: the file is read a block and
    stored a chunk at a time, so ten times the file takes no more memory (read whole, the
    larger file took some 15 MB more, six times its size; streamed, a few hundred KB)."""

    def rows(lists: int):
        for n in range(lists):
            for rank in range(1, 11):
                question = n % 450  # every list its own (model, question, repetition)
                model = f"m{n // 450 % 4}"
                yield [model, "shoes", f"c{question % 9}", f"q{question}", n // 1800 + 1, rank, f"B{n * rank % 499}"]

    small = write(tmp_path / "small.csv", rows(1_000))
    large = write(tmp_path / "large.csv", rows(10_000))
    assert large.stat().st_size > 9 * small.stat().st_size
    small_peak = peak_memory(PEAK, tmp_path / "small.db", small)
    large_peak = peak_memory(PEAK, tmp_path / "large.db", large)
    assert large_peak < 2 * small_peak, (small_peak, large_peak)
    assert large_peak - small_peak < large.stat().st_size / 2, (small_peak, large_peak)  # not the file, nor half
    assert sqlite3.connect(tmp_path / "large.db").execute("SELECT COUNT(*) FROM mentions").fetchone() == (100_000,)


def refused(db: Path, path: Path, *said: str) -> None:
    result = run_cli("import", "mentions", path, "--db", db, "--study", "s")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for words in said:
        assert words in result.stderr, result.stderr


@pytest.mark.parametrize(
    "last, said",
    [
        (["m9", "shoes", "c1", "q1", "1", "x", "Nike"], "column 'rank': expected a whole number, got 'x'"),
        (["m9", "shoes", "c1", "q1", "1", "", "Nike"], "entity 'Nike' has no rank"),
        (["m9", "shoes", "c1", "q1"], "4 fields, the header has 7"),
        (["m0", "shoes", "c1", "q1", "1", "1", "Puma"], "rank 1 appears twice for question_id 'q1'"),
        (["m9", "shoes", "zz", "q1", "1", "1", "Puma"], "question_id 'q1' of topic 'shoes' is under cluster 'zz'"),
        (
            ["m9", "shoes", "c1", "q1", "1", "3", "Nike " * 400],
            "column 'entity': 1,999 characters is no name (at most 1,000; it starts 'Nike Nike Nike Nike Nike Nike Nike Nike ')",
        ),
    ],
)
def test_a_file_refused_at_its_last_line_leaves_the_store_as_it_was(tmp_path, small_chunks, last, said):
    """The refusal comes chunks after the first rows were staged: the store is untouched, and
    the message names the last line as it did when the file was read whole."""
    db = tmp_path / "a.db"
    import_mentions(db, write(tmp_path / "first.csv", [["m", "shoes", "a", "q0", "1", "1", "Nike"]]))
    before = dump(db)
    rows = [["m0", "shoes", "c1", "q1", "1", "1", "Asics"]]  # the last rows' question, in cluster c1
    rows += [[f"m{n}", "shoes", "c1", "q1", "1", str(rank), f"Brand {rank}"] for n in range(1, 60) for rank in (1, 2)]
    path = write(tmp_path / "late.csv", [*rows, last])
    refused(db, path, f"{path}: line {len(rows) + 2}: {said}")
    assert dump(db) == before


def test_the_first_line_at_fault_is_named(tmp_path, small_chunks):
    """A question under two clusters on line 4 and a bad rank chunks later: line 4."""
    rows = [["m", "shoes", "a", "q1", "1", "1", "Nike"], ["m", "shoes", "a", "q2", "1", "1", "Nike"]]
    rows += [["n", "shoes", "b", "q1", "1", "1", "Puma"]]
    rows += [["m", "shoes", "a", f"q{n}", "1", "1", "Nike"] for n in range(3, 200)]
    rows += [["m", "shoes", "a", "q9", "1", "x", "Nike"]]
    path = write(tmp_path / "m.csv", rows)
    refused(tmp_path / "a.db", path, f"{path}: line 4: question_id 'q1'", "'a' on line 2")
    assert not (tmp_path / "a.db").exists()


def test_a_byte_that_is_not_utf8_is_named_by_its_line_far_into_the_file(tmp_path, small_chunks):
    rows = [["m", "shoes", "a", f"q{n}", "1", "1", "Café"] for n in range(300)]
    path = write(tmp_path / "m.csv", rows)
    raw = path.read_bytes().splitlines(keepends=True)
    raw[250] = raw[250].replace("Café".encode(), "Caf\xe9".encode("latin-1"))  # line 251
    path.write_bytes(b"".join(raw))
    refused(tmp_path / "a.db", path, f"{path}: line 251: not UTF-8 text (byte 0xe9)")
    assert not (tmp_path / "a.db").exists()


def test_progress_is_told_while_reading_and_storing_and_the_terminal_only_shows_it(tmp_path, small_chunks):
    path = write(tmp_path / "m.csv", tricky_rows(100))
    told: list[tuple] = []
    import_mentions(tmp_path / "a.db", path, progress=lambda *step: told.append(step))
    reading = [step for step in told if step[0] == "reading"]
    storing = [step for step in told if step[0] == "storing lists"]
    size = path.stat().st_size
    assert len(reading) > 10 and reading[-1] == ("reading", size, size)
    assert [done for _, done, _ in reading] == sorted(done for _, done, _ in reading)
    assert storing[-1] == ("storing lists", 100, 100) and len(storing) > 1
    # Standard error is no terminal here: the command prints what it imported and nothing else.
    result = run_cli("import", "mentions", path, "--db", tmp_path / "b.db", "--study", "s")
    assert result.returncode == 0 and result.stderr == "" and result.stdout.startswith("Imported 100 responses")


# -- cold-start rankings and identity references ---------------------------------------------------

RANKING_HEADER = "model,seed,persona_category,persona,rank,item\n"


@pytest.fixture
def tiny_chunks(monkeypatch):
    from workbench.methods.coldstart import data as coldstart_data

    monkeypatch.setattr(coldstart_data, "CHUNK", 7)
    monkeypatch.setattr(csv_input, "CHUNK", 7)
    monkeypatch.setattr(csv_input, "BLOCK", 100)


def test_rankings_in_chunks_replace_the_rankings_the_file_names_whole(tmp_path, tiny_chunks):
    """A ranking's rows spread over chunks are one ranking: a re-import replaces it whole
    (no row of the longer stored one left), and rows of the same file never replace each other."""
    db = tmp_path / "a.db"
    first = "".join(f"m,0,movie,{p},{r},I{r}\n" for p in ("fan", "kid", "neutral") for r in range(1, 9))
    (tmp_path / "first.csv").write_text(RANKING_HEADER + first)
    assert run_cli("import", "rankings", tmp_path / "first.csv", "--db", db, "--study", "s").returncode == 0
    # kid again, shorter, its rows interleaved with fan's new ones over several chunks
    again = "".join(f"m,0,movie,kid,{r},K{r}\nm,0,movie,fan,{r},F{r}\n" for r in range(1, 6))
    (tmp_path / "again.csv").write_text(RANKING_HEADER + again)
    result = run_cli("import", "rankings", tmp_path / "again.csv", "--db", db, "--study", "s")
    assert result.stdout.startswith("Imported 10 ranked items in 2 lists"), result.stdout + result.stderr
    stored = sqlite3.connect(db).execute("SELECT persona, rank, item FROM rankings ORDER BY persona, rank").fetchall()
    assert stored == [
        *[("fan", r, f"F{r}") for r in range(1, 6)],
        *[("kid", r, f"K{r}") for r in range(1, 6)],
        *[("neutral", r, f"I{r}") for r in range(1, 9)],
    ]


def test_a_rank_given_twice_chunks_apart_is_refused_with_both_lines(tmp_path, tiny_chunks):
    db = tmp_path / "a.db"
    (tmp_path / "first.csv").write_text(RANKING_HEADER + "m,0,movie,fan,1,A\n")
    assert run_cli("import", "rankings", tmp_path / "first.csv", "--db", db, "--study", "s").returncode == 0
    before = dump(db)
    rows = "".join(f"m,0,movie,fan,{r},I{r}\n" for r in range(1, 30)) + "m,0,movie,fan,3,again\n"
    path = tmp_path / "twice.csv"
    path.write_text(RANKING_HEADER + rows)
    refused_as = "line 31: rank 3 appears twice in the ranking of model 'm', seed 0, persona 'fan' (first on line 4)"
    result = run_cli("import", "rankings", path, "--db", db, "--study", "s")
    assert result.returncode == 2 and f"{path}: {refused_as}" in result.stderr, result.stderr
    assert dump(db) == before


def test_references_refused_at_the_last_line_leave_nothing(tmp_path, tiny_chunks):
    db = tmp_path / "a.db"
    path = tmp_path / "refs.csv"
    path.write_text("item,group,share\n" + "".join(f"U{n},Black,0.{n % 10}\n" for n in range(40)) + "U9,White,1.5\n")
    result = run_cli("import", "references", path, "--db", db, "--study", "s")
    assert result.returncode == 2, result.stdout
    assert f"{path}: line 42: column 'share': expected a share between 0 and 1, got 1.5" in result.stderr
    assert not db.exists()
    path.write_text("item,group,share\n" + "".join(f"U{n},Black,0.{n % 10}\n" for n in range(40)))
    result = run_cli("import", "references", path, "--db", db, "--study", "s")
    assert result.stdout.startswith("Imported 40 reference shares"), result.stdout + result.stderr
