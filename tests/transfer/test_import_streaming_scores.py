"""Imports of label scores and entity attributes: read and stored a chunk at a time, so memory
stays flat as the file grows, while what is stored and what is refused (the line named, nothing
stored) are as they were when files were read whole. Small chunks make files of a few dozen
rows cross many chunk and block boundaries."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest
from helpers import PRINT_PEAK, peak_memory, run_cli
from test_import_streaming import dump

from workbench.files import csv_input

# -- label scores ----------------------------------------------------------------------------------

SCORE_HEADER = ["model", "entity", "template_id", "label", "logprob", "prompt"]
URGENCY = ("low_urgency", "moderate_urgency", "high_urgency", "critical_urgency")


def score_task() -> Path:
    from importlib.resources import files

    return Path(str(files("workbench.assets").joinpath("studies", "entity", "urgency.task.json")))


def write_scores(path: Path, rows) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([SCORE_HEADER, *rows])
    return path


def score_rows(prompts: int):
    """Every prompt's four labels, its text on its first row only."""
    for n in range(prompts):
        for i, label in enumerate(URGENCY):
            yield [
                f"m{n % 3}",
                f"Entity {n // 10}",
                n % 10,
                label,
                -0.5 - i - n % 7 / 10,
                f"case {n}?" if not i else "",
            ]


@pytest.fixture
def small_score_chunks(monkeypatch):
    from workbench.methods.entity import imported_scores

    monkeypatch.setattr(imported_scores, "CHUNK", 7)
    monkeypatch.setattr(imported_scores, "PROMPTS_PER_CHUNK", 3)
    monkeypatch.setattr(csv_input, "BLOCK", 100)


def import_scores_cli(db: Path, path: Path):
    return run_cli("import", "scores", path, "--db", db, "--study", "s", "--task", score_task())


def test_scores_read_in_chunks_are_stored_in_the_order_of_the_file(tmp_path, small_score_chunks):
    """Prompts whose rows are interleaved and cross chunks: stored as when the file was read
    whole (prompts in the order the file first names them, each one's labels in line order,
    its first row's text), and a re-import replaces the prompts it names in place."""
    from workbench.methods.entity.data import import_scores, score_records
    from workbench.store.db import connect

    rows = list(score_rows(12))
    spread = [row for i in range(4) for row in rows[i::4]]  # each prompt's first labels, then its seconds...
    path = write_scores(tmp_path / "s.csv", spread)
    conn = connect(tmp_path / "a.db")
    assert import_scores(conn, "s", path, score_task()) == {"prompts": 12, "scores": 48, "entities": 2}
    got = [
        (r["model"], r["entity"], r["template_id"], r["label"], r["logprob"], r["prompt"]) for r in score_records(conn)
    ]
    assert got == [(m, e, t, label, lp, rows[n - n % 4][5]) for n, (m, e, t, label, lp, _p) in enumerate(rows)]
    again = [row[:4] + [-1.0] + row[5:] for row in score_rows(3)]  # three prompts, answered anew
    assert import_scores(conn, "s", write_scores(tmp_path / "again.csv", again), score_task())["scores"] == 12
    stored = [(r["entity"], r["template_id"], r["label"], r["logprob"]) for r in score_records(conn)]
    # A prompt imported again is stored anew: after the ones the file left alone, as before.
    assert len(stored) == 48 and stored[36:] == [(e, t, label, -1.0) for _m, e, t, label, _lp, _p in again]


@pytest.mark.parametrize(
    "last, said",
    [
        (["m0", "Entity 0", "0", "low_urgency", "-1", ""], "label 'low_urgency' of this prompt appears twice"),
        (["m0", "Entity 9", "0", "nope", "-1", ""], "column 'label': 'nope' is not a label id of the task"),
        (
            ["m0", "Entity 9", "0", "low_urgency", "0.5", ""],
            "column 'logprob': a log-probability is at most 0, got 0.5",
        ),
        (["m0", "Entity 9"], "2 fields, the header has 6"),
    ],
)
def test_scores_refused_at_the_last_line_leave_the_store_as_it_was(tmp_path, small_score_chunks, last, said):
    db = tmp_path / "a.db"
    assert import_scores_cli(db, write_scores(tmp_path / "first.csv", score_rows(2))).returncode == 0
    before = dump(db)
    rows = list(score_rows(20))
    path = write_scores(tmp_path / "late.csv", [*rows, last])
    result = import_scores_cli(db, path)
    assert result.returncode == 2 and f"{path}: line {len(rows) + 2}: {said}" in result.stderr, result.stderr
    assert dump(db) == before


def test_a_prompt_without_every_label_is_refused_at_its_first_line(tmp_path, small_score_chunks):
    """Checked once the file is read: the first prompt the file names that lacks a label."""
    rows = list(score_rows(20))
    del rows[-1], rows[45]  # prompt 19 lacks its last label, prompt 11 its second
    path = write_scores(tmp_path / "s.csv", rows)
    result = import_scores_cli(tmp_path / "a.db", path)
    assert result.returncode == 2, result.stdout
    assert f"{path}: line 46: the prompt of entity 'Entity 1', template_id 1 (model 'm2'" in result.stderr
    assert "has no row for label(s) 'moderate_urgency'; each prompt needs every label" in result.stderr
    assert not (tmp_path / "a.db").exists()


SCORE_PEAK = (
    """
import re, sys
from pathlib import Path
from workbench.files import csv_input
from workbench.transfer import dispatch as transfer
from workbench.methods.entity import imported_scores

imported_scores.CHUNK, imported_scores.PROMPTS_PER_CHUNK, csv_input.BLOCK = 2_000, 500, 1 << 16
opened = transfer.connect


def connect(*args):  # SQLite's page caches (2 MB each) made small
    conn = opened(*args)
    conn.execute("PRAGMA cache_size = -128")
    conn.execute("PRAGMA temp.cache_size = -128")
    return conn


transfer.connect = connect
transfer.import_file(sys.argv[1], "scores", sys.argv[2], {"study": "s", "task": sys.argv[3]})
"""
    + PRINT_PEAK
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak memory from /proc")
def test_scores_memory_stays_flat_as_the_file_grows_tenfold(tmp_path):
    """The peak memory of importing 10,000 and 100,000 label rows: staged and stored a chunk at
    a time, ten times the file takes no more memory (read whole, the larger took some 65 MB more)."""

    def peak(db: Path, path: Path) -> int:
        return peak_memory(SCORE_PEAK, db, path, score_task())

    small = write_scores(tmp_path / "small.csv", score_rows(2_500))
    large = write_scores(tmp_path / "large.csv", score_rows(25_000))
    assert large.stat().st_size > 9 * small.stat().st_size
    small_peak = peak(tmp_path / "small.db", small)
    large_peak = peak(tmp_path / "large.db", large)
    assert large_peak < 2 * small_peak, (small_peak, large_peak)
    assert large_peak - small_peak < large.stat().st_size / 2, (small_peak, large_peak)  # not the file, nor half
    assert sqlite3.connect(tmp_path / "large.db").execute("SELECT COUNT(*) FROM label_scores").fetchone() == (100_000,)


# -- entities --------------------------------------------------------------------------------------

ENTITY_PEAK = (
    """
import re, sys
from pathlib import Path
from workbench.files import csv_input
from workbench.transfer import dispatch as transfer
from workbench.methods.choice import entity_import

entity_import.CHUNK, csv_input.BLOCK = 2_000, 1 << 16
transfer.import_file(sys.argv[1], "entities", sys.argv[2], {})
"""
    + PRINT_PEAK
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak memory from /proc")
def test_entities_memory_stays_flat_as_the_file_grows_tenfold(tmp_path):
    """Rows that agree on 2,000 entities, 20,000 of them and 200,000: merged a chunk at a time,
    ten times the rows take no more memory (read whole, the larger took some 80 MB more)."""

    def peak(db: Path, path: Path) -> int:
        return peak_memory(ENTITY_PEAK, db, path)

    def rows(count: int):
        for n in range(count):
            yield [f"Brand {n % 2_000}", ["", "Europe", "Asia"][n % 2_000 % 3], f"size {n % 2_000}" if n % 2 else ""]

    def write_entities(path: Path, count: int) -> Path:
        with path.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([["name", "region", "size"], *rows(count)])
        return path

    small, large = write_entities(tmp_path / "small.csv", 20_000), write_entities(tmp_path / "large.csv", 200_000)
    small_peak, large_peak = peak(tmp_path / "small.db", small), peak(tmp_path / "large.db", large)
    assert large_peak < 1.5 * small_peak, (small_peak, large_peak)
    assert large_peak - small_peak < large.stat().st_size / 2, (small_peak, large_peak)
    stored = sqlite3.connect(tmp_path / "large.db").execute("SELECT COUNT(*) FROM pending_attributes").fetchone()
    assert stored == (2_000,)
