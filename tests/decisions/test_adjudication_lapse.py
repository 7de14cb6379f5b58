"""An adjudication settles the verdicts it was given on and only those: the exact sequence
that once went wrong (ann edits, bo blind edits, cy takes bo's list with --if-version, bo
then gives ann's list), through the CLI."""

from __future__ import annotations

import json

from helpers import run_cli
from test_decisions import imported, lists_json, verdict


def _mentions(db) -> list[str]:
    out = run_cli("export", "--db", str(db), "--what", "mentions", "--format", "json")
    assert out.returncode == 0, out.stderr
    return sorted({m["surface"] for m in json.loads(out.stdout) if m["question"] == "q1"})


def agreement(db, *extra) -> dict:
    out = run_cli(
        "review", "agreement", "--db", str(db), "--study", "s", "--first", "ann", "--second", "bo", "--format", "json",
        *extra,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _log(db) -> list[dict]:
    out = run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json")
    return [d for d in json.loads(out.stdout) if d["kind"] == "adjudication lapse"]


def test_a_party_changing_their_verdict_lapses_the_adjudication_and_undo_restores_it(tmp_path):
    db = imported(tmp_path)
    q1 = next(r for r in lists_json(db) if r["question"] == "q1")["list_id"]
    ann = ("--who", "ann")
    assert run_cli("review", "verdict", "--db", str(db), "--list", str(q1), *ann, "--edit", "Puma").returncode == 0
    assert verdict(db, q1, "bo", "--blind", "--edit", "Reebok").returncode == 0
    shown = next(r for r in lists_json(db, "--only", "reviewer-disagreements") if r["list_id"] == q1)
    took = run_cli(
        "review", "adjudicate", "--db", str(db), "--study", "s", "--list", str(q1), "--who", "cy", "--take", "bo",
        "--if-version", shown["version"],
    )  # fmt: skip
    assert took.returncode == 0, took.stderr
    settled = next(r for r in lists_json(db) if r["list_id"] == q1)
    assert settled["current"] == ["Reebok"] and settled["adjudication"]["took"] == "bo"
    assert _mentions(db) == ["Reebok"]

    # bo changes his verdict to ann's list: the adjudication lapses.
    assert verdict(db, q1, "bo", "--blind", "--edit", "Puma").returncode == 0
    now = next(r for r in lists_json(db) if r["list_id"] == q1)
    assert now["current"] == ["Puma"] and now["adjudication"] is None
    assert lists_json(db, "--only", "resolved") == []
    assert lists_json(db, "--only", "reviewer-disagreements") == []  # they agree now
    together = agreement(db, "--rate", "1")
    assert together["agreement"] == 1.0 and together["adjudicated"] == {}
    assert _mentions(db) == ["Puma"]
    table = run_cli("review", "lists", "--db", str(db), "--study", "s").stdout
    assert "resolved by" not in table
    (lapse,) = _log(db)
    assert lapse["who"] == "bo" and lapse["state"] == "active" and "cy's adjudication" in lapse["summary"]
    assert "bo's edit" in lapse["why"] and json.loads(lapse["after"]) == ["Puma"]

    # Undoing bo's new verdict takes back only it: the adjudication is in force again.
    undone = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "bo")
    assert undone.returncode == 0, undone.stderr
    back = next(r for r in lists_json(db) if r["list_id"] == q1)
    assert back["current"] == ["Reebok"] and back["adjudication"]["by"] == "cy"
    assert _mentions(db) == ["Reebok"] and [d["state"] for d in _log(db)] == ["undone"]
    assert agreement(db, "--rate", "1")["adjudicated"] == {"cy": 1}

    # bo changes to a third list: lapsed, and the list is back in the queue.
    assert verdict(db, q1, "bo", "--blind", "--edit", "Asics").returncode == 0
    queue = lists_json(db, "--only", "reviewer-disagreements")
    assert [r["list_id"] for r in queue] == [q1] and queue[0]["current"] == ["Puma"]


def test_the_same_adjudication_twice_is_recorded_once(tmp_path):
    """cy takes bo's list, then runs the same command again: a second adjudication was recorded
    (the adjudicator's work counted twice); now the second says so and records nothing, and a
    new reason or the other reviewer's list is a new adjudication."""
    db = imported(tmp_path)
    q1 = next(r for r in lists_json(db) if r["question"] == "q1")["list_id"]
    assert verdict(db, q1, "ann", "--edit", "Puma").returncode == 0
    assert verdict(db, q1, "bo", "--blind", "--edit", "Reebok").returncode == 0
    take = ("review", "adjudicate", "--db", str(db), "--study", "s", "--list", str(q1), "--who", "cy", "--take")
    assert run_cli(*take, "bo").returncode == 0
    again = run_cli(*take, "BO")  # bo, however written
    assert again.returncode == 0 and "Already recorded: cy's adjudication of list" in again.stdout
    adjudications = "SELECT reviewer, took, why FROM verdicts WHERE adjudicates IS NOT NULL ORDER BY id"
    import sqlite3

    assert sqlite3.connect(db).execute(adjudications).fetchall() == [("cy", "bo", None)]
    assert "Already recorded" not in run_cli(*take, "bo", "--why", "Reebok is named first").stdout
    assert "Already recorded" not in run_cli(*take, "ann").stdout
    assert [row[1:] for row in sqlite3.connect(db).execute(adjudications)] == [
        ("bo", None),
        ("bo", "Reebok is named first"),
        ("ann", None),
    ]
