"""Entity de-duplication: suggestions, reviewer decisions with provenance, undo/redo, metrics."""

import csv
import json

import pytest
from helpers import run_cli

from workbench.entities import dedup, dedup_pairs


def test_fingerprints():
    assert dedup.fingerprint("Nike, Inc.") == dedup.fingerprint("NIKE") == "nike"
    assert dedup.fingerprint("Inc.") == "inc"  # a name made only of a legal form keeps it
    assert dedup.fingerprint("Café Noir") == dedup.fingerprint("cafe noir")
    assert dedup.ngram_fingerprint("Coca Cola") == dedup.ngram_fingerprint("CocaCola")
    assert dedup.ngram_fingerprint("Coca Cola") != dedup.ngram_fingerprint("Coca Colab")


def test_suggest_is_strict_first_and_respects_forbidden_pairs():
    names = ["Nike, Inc.", "Inc Nike", "Coca Cola", "CocaCola", "Adidas", "Addidas", "Puma"]
    counts = [5, 1, 3, 1, 4, 1, 2]
    found = [s.as_record() for s in dedup.suggest(names, counts)]
    assert found == [
        {
            "canonical": "Nike, Inc.",
            "members": ["Nike, Inc.", "Inc Nike"],
            "counts": [5, 1],
            "score": 100.0,
            "method": "fingerprint",
            "reasons": ["fingerprint", "fingerprint"],
        },
        {
            "canonical": "Coca Cola",
            "members": ["Coca Cola", "CocaCola"],
            "counts": [3, 1],
            "score": 100.0,
            "method": "ngram",
            "reasons": ["ngram", "ngram"],
        },
        {
            "canonical": "Adidas",
            "members": ["Adidas", "Addidas"],
            "counts": [4, 1],
            "score": 92.31,
            "method": "nearest",
            "reasons": ["nearest 92", "nearest 92"],
        },
    ]
    again = dedup.suggest(names, counts, forbidden=[("Addidas", "Adidas")])
    assert ["Adidas", "Addidas"] not in [s.members for s in again]


def test_blocked_pairs_find_what_all_pairs_find():
    import random

    rng = random.Random(1)
    bases = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(5, 12))) for _ in range(300)]
    names = list(dict.fromkeys(bases + [b[:-1] + "x" for b in bases] + [b.upper() + " co" for b in bases[:100]]))
    blocked, exhaustive = dedup_pairs.similar_pairs(names, 85), dedup_pairs.exhaustive_pairs(names, 85)
    assert exhaustive and len(set(blocked) & set(exhaustive)) / len(exhaustive) >= 0.98
    assert set(blocked) <= set(exhaustive)  # blocking never invents a pair


def write_mentions(path):
    rows = [("Nike", 6), ("Nike, Inc.", 2), ("Adidas", 4), ("Addidas", 1), ("Paris", 3), ("Paris Hilton", 1)]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        q = 0
        for entity, times in rows:
            for _ in range(times):
                writer.writerow(["gpt", "shoes", "Convenience", f"q{q}", 1, 1, entity])
                q += 1
    return path


def peir(db):
    records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
    r = next(r for r in records if r["metric"] == "peir" and r["cluster"] is None)
    return r["entity"], r["value"]


def test_review_decisions_change_metrics_and_undo(tmp_path):
    db = str(tmp_path / "e.db")
    assert (
        run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", db, "--study", "s").returncode
        == 0
    )
    assert peir(db) == ("Nike", pytest.approx(6 / 17))

    suggested = json.loads(run_cli("entities", "suggest", "--db", db, "--format", "json").stdout)
    assert {
        "canonical": "Nike",
        "members": ["Nike", "Nike, Inc."],
        "counts": [6, 2],
        "score": 100.0,
        "method": "fingerprint",
        "reasons": ["fingerprint", "fingerprint"],
    } in suggested
    assert any(s["members"] == ["Adidas", "Addidas"] for s in suggested)

    out = run_cli(
        "entities", "merge", "Nike", "Nike, Inc.", "--into", "Nike", "--db", db, "--who", "ana", "--why", "legal suffix"
    )
    assert out.returncode == 0 and "Decision 1: merge Nike, Nike, Inc. into Nike (by ana)" in out.stdout
    assert peir(db) == ("Nike", pytest.approx(8 / 17))  # the table changes at once

    assert "Undo: merge" in run_cli("entities", "undo", "--db", db, "--who", "ana").stdout
    assert peir(db) == ("Nike", pytest.approx(6 / 17))  # and changes back
    assert "Redo: merge" in run_cli("entities", "redo", "--db", db, "--who", "ana").stdout
    assert peir(db) == ("Nike", pytest.approx(8 / 17))

    # Forbid a pair: it is never suggested again, and a merge of it is refused.
    assert run_cli("entities", "forbid", "Adidas", "Addidas", "--db", db, "--why", "different firms").returncode == 0
    suggested = json.loads(run_cli("entities", "suggest", "--db", db, "--format", "json").stdout)
    assert not any(set(s["members"]) == {"Adidas", "Addidas"} for s in suggested)
    refused = run_cli("entities", "merge", "Adidas", "Addidas", "--db", db)
    assert refused.returncode == 2 and "marked 'Adidas' and 'Addidas' as different" in refused.stderr

    # Rename and split, then undo the split.
    assert run_cli("entities", "merge", "Paris", "Paris Hilton", "--db", db).returncode == 0
    out = run_cli("entities", "split", "Paris", "Paris Hilton", "--as", "Paris Hilton", "--db", db)
    assert out.returncode == 0, out.stderr
    listed = run_cli("entities", "list", "--db", db, "--format", "csv").stdout
    assert "Paris Hilton,,1" in listed and "Paris,,3" in listed
    run_cli("entities", "undo", "--db", db)
    listed = run_cli("entities", "list", "--db", db, "--format", "csv").stdout
    assert "Paris,,4" in listed
    assert run_cli("entities", "rename", "Adidas", "adidas AG", "--db", db).returncode == 0

    # Every decision survives (a new process each time) and is exported with its provenance.
    decisions = json.loads(run_cli("export", "--db", db, "--what", "decisions", "--format", "json").stdout)
    assert [d["action"] for d in decisions] == ["merge", "forbid", "merge", "split", "rename"]
    assert decisions[0]["who"] == "ana" and decisions[0]["why"] == "legal suffix" and decisions[0]["at"]
    assert [d["state"] for d in decisions] == ["active", "active", "active", "undone", "active"]


def test_decision_errors_are_clear(tmp_path):
    db = str(tmp_path / "e.db")
    run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", db, "--study", "s")
    for args, message in (
        (["merge", "Nike"], "at least two different entities"),
        (["merge", "Nike", "Nobody"], "no entity named 'Nobody'"),
        (["rename", "Nike", "Adidas"], "merge them instead"),
        (["split", "Nike", "Nike"], "at least one surface form"),
        (["forbid", "Nike", "nike"], "already one entity"),
    ):
        out = run_cli("entities", *args, "--db", db)
        assert out.returncode == 2 and message in out.stderr, (args, out.stderr)
    assert "Nothing of ana's to undo." in run_cli("entities", "undo", "--db", db, "--who", "ana").stdout


def registry_db(tmp_path):
    from workbench.store.db import connect

    db = str(tmp_path / "r.db")
    assert (
        run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", db, "--study", "s").returncode
        == 0
    )
    return db, connect(db)


def test_a_forbid_follows_merges_and_is_not_recorded_twice(tmp_path):
    from workbench.store.entities import decisions as registry

    db, conn = registry_db(tmp_path)
    registry.forbid(conn, "Adidas", "Addidas", who="t")
    with pytest.raises(registry.DecisionError, match="already marked as different"):
        registry.forbid(conn, "Addidas", "Adidas", who="t")
    # Through a third entity: Addidas joins Paris, then Paris may not join Adidas.
    registry.merge(conn, ["Addidas", "Paris"], into="Paris", who="t")
    with pytest.raises(registry.DecisionError, match="different entities"):
        registry.merge(conn, ["Paris", "Adidas"], who="t")
    registry.undo(conn)  # the Paris merge, and the forbid it carried over
    with pytest.raises(registry.DecisionError, match="different entities"):
        registry.merge(conn, ["Addidas", "Adidas"], who="t")  # the first forbid still holds
    suggested = json.loads(run_cli("entities", "suggest", "--db", db, "--format", "json").stdout)
    assert not any({"Adidas", "Addidas"} <= set(s["members"]) for s in suggested)


def test_a_merged_away_name_means_where_its_forms_went(tmp_path):
    from workbench.store.entities import decisions as registry

    db, conn = registry_db(tmp_path)
    registry.merge(conn, ["Adidas", "Addidas"], into="Adidas", who="t")
    with pytest.raises(registry.DecisionError, match="already one entity"):
        registry.merge(conn, ["Addidas", "Adidas"], who="t")  # nothing recorded for undo to spend
    registry.merge(conn, ["Addidas", "Paris"], into="Adidas", who="t")  # "Addidas" is the Adidas entity now
    counts = dict(
        conn.execute(
            "SELECT e.name, COUNT(*) FROM mentions m JOIN aliases a ON a.surface_key = "
            "m.surface_key JOIN entities e ON e.id = a.entity_id GROUP BY e.id"
        ).fetchall()
    )
    assert counts["Adidas"] == 4 + 1 + 3 and "Addidas" not in counts and "Paris" not in counts


def test_suggest_options_are_checked_and_csv_is_csv(tmp_path):
    db, _conn = registry_db(tmp_path)
    for bad in ("-3", "500", "nan", "ninety"):
        out = run_cli("entities", "suggest", "--db", db, "--threshold", bad)
        assert out.returncode == 2 and "--threshold" in out.stderr and "Traceback" not in out.stderr
    rows = list(csv.DictReader(run_cli("entities", "suggest", "--db", db, "--format", "csv").stdout.splitlines()))
    assert {"cluster", "canonical", "member", "mentions", "joined_by"} <= set(rows[0])
    assert {r["member"] for r in rows} >= {"Nike", "Nike, Inc.", "Adidas", "Addidas"}
    assert {r["joined_by"] for r in rows if r["member"] == "Addidas"} == {"nearest 92"}


def test_names_that_hide_or_split_show_escaped():
    from workbench.text.literal import visible_line

    assert visible_line("New\nLine\tx") == "New\\nLine\\tx"
    assert visible_line("\u202eevil\u202c") == "\\u202eevil\\u202c"  # no reversed display
    assert visible_line("Zero\u200bWidth") != visible_line("ZeroWidth")
    assert visible_line("\x1b[31mRED") == "\\x1b[31mRED"


def test_naming_a_merge_after_another_entity_takes_it_in(tmp_path):
    from workbench.store.entities import decisions as registry

    db, conn = registry_db(tmp_path)
    with pytest.raises(registry.DecisionError, match="include it"):
        registry.merge(conn, ["Adidas", "Addidas"], into="Nike", who="t")  # the CLI asks for it by name
    registry.merge(conn, ["Adidas", "Addidas"], into="Nike", who="t", include_into=True)  # the app's "e"
    (count,) = conn.execute(
        "SELECT COUNT(*) FROM mentions m JOIN aliases a ON a.surface_key = m.surface_key "
        "JOIN entities e ON e.id = a.entity_id WHERE e.name = 'Nike'"
    ).fetchone()
    assert count == 6 + 4 + 1
