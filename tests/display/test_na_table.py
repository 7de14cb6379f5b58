"""The note of why numbers are n/a gives one row per reason: "no Europe slot: 2 vs 0 slots"
and "... 6 vs 0 slots" are one cause with one remedy (it was a row per count, sorted as
text, the remedy repeated on each)."""

from __future__ import annotations

from helpers import run_cli
from na_causes import lists, regions

from workbench.display.na_reasons import by_key


def _no_europe_anywhere(tmp_path):
    """Three topics naming Nike (United States) 2, 6 and 12 times over two clusters, never a
    European brand: each topic's log-odds and each cluster's is n/a for a missing region."""
    for topic, times in (("shoes", 1), ("phones", 3), ("cars", 6)):
        rows = [(c, f"{c}{q}", 1, ["Nike"]) for c in ("A", "B") for q in range(times)]
        db = lists(tmp_path, rows, topic=topic)
    regions(tmp_path, db, {"Nike": "United States", "Puma": "Europe"})
    return db


def _note(text: str) -> str:
    return " ".join(text.split("Why some numbers are n/a, and what to do", 1)[1].split())


def test_one_row_per_reason_with_its_remedy_once(tmp_path):
    db = _no_europe_anywhere(tmp_path)
    remedy = " ".join(by_key("no-slot-one").remedy.split())
    done = run_cli("metrics", "--db", str(db), env={"COLUMNS": "400"})  # no cell wrapped
    assert done.returncode == 0, done.stderr
    note = _note(done.stdout)
    assert note.count(remedy) == 1, note
    # 27 numbers (3 topics and their 6 clusters, Europe, Asia and non-US each) in one row
    # a few of its texts as they read, never the pattern's placeholders ("no REGION slot: N vs ...")
    said = (
        "no Asia slot: 6 vs 0 slots; no Europe slot: 6 vs 0 slots; no non-US slot: 6 vs 0 slots; and 12 more like these"
    )
    assert said in note and "REGION" not in note
    assert f"{said} 27 {remedy}" in note
    assert note.count("vs 0 slots") == 3  # 3 examples, not 18 rows

    report = tmp_path / "r.md"
    assert run_cli("report", "--db", str(db), "--study", "s", "-o", str(report)).returncode == 0
    text = report.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| no Asia slot: 6 vs 0 slots; ")]  # summary, note
    assert len(rows) == 2 and all("| 27 |" in row for row in rows), rows
    # the empty forest plot: one line per cause, its remedy once, 2 before 12
    forest = text.split("(no log-odds: no Asia slot:", 1)[1].split(")", 1)[0]
    assert forest.startswith(" 2 vs 0 slots; no Asia slot: 6 vs 0 slots; no Asia slot: 12 vs 0 slots and 6 more")


def test_a_reason_the_catalog_does_not_know_keeps_its_own_row():
    from workbench.display.na_reasons import na_rows

    records = [{"na_reason": "a plugin's reason"}, {"na_reason": "no Europe slot: 2 vs 0 slots"}] * 2
    assert na_rows(records) == [
        ["no Europe slot: 2 vs 0 slots", "2", by_key("no-slot-one").remedy],
        ["a plugin's reason", "2", "see docs/methods.md"],
    ]
