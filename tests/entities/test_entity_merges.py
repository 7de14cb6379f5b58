"""Merged entities in the store: where each went (merged_into, merged_entities), one row per
live entity for SQL (live_entities), and a merged-away name reused by a confirmed rename."""

import csv
import json
import sqlite3

import hypothesis.strategies as st
import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings

ROWS = [("Nike", 5), ("Puma", 3), ("Adidas", 2)]


def write_mentions(path):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        q = 0
        for entity, times in ROWS:
            for _ in range(times):
                writer.writerow(["gpt", "shoes", "Convenience", f"q{q}", 1, 1, entity])
                q += 1
    return path


def store(tmp_path):
    db = str(tmp_path / "e.db")
    assert (
        run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", db, "--study", "s").returncode
        == 0
    )
    return db


def sql(db, query):
    conn = sqlite3.connect(db)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def listed(db):
    rows = run_cli("entities", "list", "--db", db, "--format", "csv").stdout.splitlines()[1:]
    return {r.split(",")[0]: int(r.split(",")[-1]) for r in rows}


def test_sql_over_live_entities_counts_one_row_per_live_entity(tmp_path):
    db = store(tmp_path)
    assert run_cli("entities", "merge", "Puma", "Nike", "--into", "Nike", "--db", db, "--who", "ana").returncode == 0
    # The table keeps the merged-away row (for undo), and says where it went.
    assert sql(db, "SELECT COUNT(*) FROM entities") == [(3,)]
    assert sql(db, "SELECT e.name, n.name FROM entities e JOIN entities n ON n.id = e.merged_into") == [
        ("Puma", "Nike")
    ]
    assert sql(db, "SELECT COUNT(*) FROM live_entities") == [(2,)]
    assert (
        sorted(sql(db, "SELECT name FROM live_entities"))
        == [("Adidas",), ("Nike",)]
        == sorted((n,) for n in listed(db))
    )
    # Mentions per live entity, as a datasette user would write it: 8 for Nike, none lost.
    per_entity = sql(
        db,
        "SELECT l.name, COUNT(*) FROM mentions m JOIN aliases a ON a.surface_key = m.surface_key "
        "JOIN live_entities l ON l.id = a.entity_id GROUP BY l.id ORDER BY l.name",
    )
    assert per_entity == [("Adidas", 2), ("Nike", 8)]
    # A merge of the merged: Nike into Adidas. Puma is in Adidas now, through Nike.
    assert (
        run_cli("entities", "merge", "Nike", "Adidas", "--into", "Adidas", "--db", db, "--who", "ana").returncode == 0
    )
    assert sql(db, "SELECT name, live_name FROM merged_entities ORDER BY name") == [
        ("Nike", "Adidas"),
        ("Puma", "Adidas"),
    ]
    assert sql(db, "SELECT COUNT(*) FROM live_entities") == [(1,)]
    # Undo gives Nike its spellings back: it is live again, and Puma is in Nike again.
    assert run_cli("entities", "undo", "--db", db, "--who", "ana").returncode == 0
    assert sql(db, "SELECT name, live_name FROM merged_entities") == [("Puma", "Nike")]
    assert sql(db, "SELECT name FROM entities WHERE merged_into IS NULL ORDER BY name") == [("Adidas",), ("Nike",)]


def test_the_puma_sequence_a_merged_away_name_is_reused_after_confirmation(tmp_path):
    db = store(tmp_path)
    assert run_cli("entities", "merge", "Puma", "Nike", "--into", "Nike", "--db", db, "--who", "ana").returncode == 0
    # Without confirmation: refused in one line that says what the name is and how to confirm.
    refused = run_cli("entities", "rename", "Adidas", "Puma", "--db", db, "--who", "bo")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "'Puma' is the name of an entity merged into Nike" in refused.stderr and "--reuse-merged" in refused.stderr
    assert listed(db) == {"Nike": 8, "Adidas": 2}
    # Naming a merge after it says the same, and how to get there.
    named = run_cli("entities", "merge", "Adidas", "Nike", "--into", "Puma", "--db", db, "--who", "bo")
    assert named.returncode == 2 and "a merge emptied" in named.stderr and "--reuse-merged" in named.stderr
    # A live entity's name stays refused, confirmation or not: that is a merge.
    live = run_cli("entities", "rename", "Adidas", "Nike", "--reuse-merged", "--db", db, "--who", "bo")
    assert live.returncode == 2 and "merge them instead" in live.stderr

    out = run_cli(
        "entities", "rename", "Adidas", "Puma", "--reuse-merged", "--db", db, "--who", "bo", "--why", "sold as Puma"
    )
    assert out.returncode == 0, out.stderr
    assert listed(db) == {"Nike": 8, "Puma": 2}
    assert sql(db, "SELECT name FROM entities WHERE merged_into IS NOT NULL") == [
        ("Puma (merged into Nike, entity 2)",)
    ]
    # Logged with who, when and why, and what it changed.
    log = json.loads(run_cli("export", "--db", db, "--what", "decisions", "--format", "json").stdout)
    reuse = log[-1]
    assert (reuse["action"], reuse["who"], reuse["why"], reuse["state"]) == ("rename", "bo", "sold as Puma", "active")
    assert reuse["at"] and "reusing the name of the Puma merged into Nike" in reuse["summary"]
    assert [c["to"] for c in json.loads(reuse["after"])] == ["Puma (merged into Nike, entity 2)", "Puma"]

    # While it stands, the merge cannot be undone (Puma would come back under another name).
    blocked = run_cli("entities", "undo", "--db", db, "--who", "ana")
    assert blocked.returncode == 2 and "#2 by bo" in blocked.stderr and "took the name 'Puma'" in blocked.stderr
    assert listed(db) == {"Nike": 8, "Puma": 2}

    # Undo takes back only the rename: the merge stands, each name where it was.
    assert "Undo: rename Adidas to Puma" in run_cli("entities", "undo", "--db", db, "--who", "bo").stdout
    assert listed(db) == {"Nike": 8, "Adidas": 2}
    assert sql(db, "SELECT name, live_name FROM merged_entities") == [("Puma", "Nike")]
    # Redo makes it again; undone again, the merge can be undone too, and Puma is back.
    assert run_cli("entities", "redo", "--db", db, "--who", "bo").returncode == 0
    assert listed(db) == {"Nike": 8, "Puma": 2}
    assert run_cli("entities", "undo", "--db", db, "--who", "bo").returncode == 0
    assert run_cli("entities", "undo", "--db", db, "--who", "ana").returncode == 0
    assert listed(db) == {"Nike": 5, "Puma": 3, "Adidas": 2}
    assert sql(db, "SELECT COUNT(*) FROM entities WHERE merged_into IS NOT NULL") == [(0,)]


def test_a_reused_name_can_be_undone_after_a_later_decision_only_if_nothing_took_it(tmp_path):
    from workbench.store.db import connect
    from workbench.store.entities import decisions as registry
    from workbench.store.entities import merges as entity_merges

    db = store(tmp_path)
    conn = connect(db)
    registry.merge(conn, ["Puma", "Nike"], into="Nike", who="ana")
    entity_merges.rename(conn, "Adidas", "Puma", who="bo", reuse_merged=True)
    registry.rename(conn, "Puma", "Puma AG", who="cy")  # a later decision changed the name
    with pytest.raises(registry.DecisionError, match="#3 by cy"):
        registry.undo(conn, "bo")
    assert registry.undo(conn, "cy")["id"] == 3
    assert registry.undo(conn, "bo")["id"] == 2
    assert sorted(r[0] for r in conn.execute("SELECT name FROM entities")) == ["Adidas", "Nike", "Puma"]


def build_old_store(path):
    """A store as the schema before merged_into left it, written by the decision code itself:
    chained merges, an undone merge, a split that took an emptied entity back, and an
    undone split whose new entity is left empty."""
    from workbench.store import schema_entities_search
    from workbench.store.db import _statements
    from workbench.store.entities import decisions as registry
    from workbench.store.schema import MIGRATIONS
    from workbench.store.surface import normalize_surface

    old = sqlite3.connect(path, isolation_level=None)
    old.row_factory = sqlite3.Row
    old.execute("PRAGMA foreign_keys = ON")
    before = MIGRATIONS.index(schema_entities_search.MERGED_INTO)
    for number, migration in enumerate(MIGRATIONS[:before]):
        for statement in _statements(migration):
            old.execute(statement)
        old.execute(f"PRAGMA user_version = {number + 1}")
    names = ["Nike", "Puma", "Adidas", "Reebok", "Hoka", "Paris", "Paris Hilton"]
    old.executemany(
        "INSERT INTO entities (id, name, region, created_at) VALUES (?, ?, ?, 'then')",
        [(i, n, "Europe" if n == "Puma" else None) for i, n in enumerate(names, start=1)],
    )
    spellings = [(n, i) for i, n in enumerate(names, start=1)] + [("Paris, France", 6)]
    old.executemany("INSERT INTO aliases VALUES (?, ?)", [(normalize_surface(n), i) for n, i in spellings])
    for decide in (
        lambda: registry.merge(old, ["Puma", "Nike"], into="Nike", who="ana"),  # 1
        lambda: registry.merge(old, ["Reebok", "Adidas"], into="Adidas", who="ana"),  # 2
        lambda: registry.merge(old, ["Adidas", "Nike"], into="Nike", who="ana"),  # 3: Reebok via Adidas
        lambda: registry.merge(old, ["Hoka", "Nike"], into="Nike", who="bo"),  # 4, undone
        lambda: registry.undo(old, "bo"),
        lambda: registry.merge(old, ["Paris Hilton", "Paris"], into="Paris", who="cy"),  # 5
        lambda: registry.split(old, "Paris", ["Paris Hilton"], "Paris Hilton", who="cy"),  # 6: takes 7 back
        lambda: registry.split(old, "Paris", ["Paris, France"], "Paris FR", who="dee"),  # 7: new entity 8
        lambda: registry.undo(old, "dee"),  # 8 is left empty, its spelling back in Paris
    ):
        decide()
    return old


def test_migration_keeps_every_entity_and_fills_merged_into_from_the_decision_log(tmp_path):
    from workbench.store.db import connect

    path = tmp_path / "old.db"
    old = build_old_store(path)
    columns = "id, name, region, attributes_json, created_at"
    rows_before = [tuple(r) for r in old.execute(f"SELECT {columns} FROM entities ORDER BY id")]
    aliases_before = [tuple(r) for r in old.execute("SELECT * FROM aliases ORDER BY surface_key")]
    old.close()

    conn = connect(path)
    assert [tuple(r) for r in conn.execute(f"SELECT {columns} FROM entities ORDER BY id")] == rows_before
    assert [tuple(r) for r in conn.execute("SELECT * FROM aliases ORDER BY surface_key")] == aliases_before
    into = dict(conn.execute("SELECT e.name, t.name FROM entities e LEFT JOIN entities t ON t.id = e.merged_into"))
    assert into == {
        "Nike": None,
        "Puma": "Nike",
        "Adidas": "Nike",
        "Reebok": "Adidas",  # merged into Adidas, which was merged into Nike
        "Hoka": None,  # its merge was undone
        "Paris": None,
        "Paris Hilton": None,  # a split took it back
        "Paris FR": "Paris",  # its split was undone
    }
    assert dict(conn.execute("SELECT name, live_name FROM merged_entities")) == {
        "Puma": "Nike",
        "Adidas": "Nike",
        "Reebok": "Nike",
        "Paris FR": "Paris",
    }
    assert sorted(r[0] for r in conn.execute("SELECT name FROM live_entities")) == [
        "Hoka",
        "Nike",
        "Paris",
        "Paris Hilton",
    ]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    # From here the triggers keep it: undoing the Adidas merge puts Reebok back in Adidas.
    from workbench.store.entities import decisions as registry

    assert registry.undo(conn, "ana")["id"] == 3
    assert dict(conn.execute("SELECT name, live_name FROM merged_entities")) == {
        "Puma": "Nike",
        "Reebok": "Adidas",
        "Paris FR": "Paris",
    }


OPS = st.lists(
    st.tuples(
        st.sampled_from(["merge", "split", "undo", "redo", "reuse"]),
        st.sampled_from(["ana", "bo"]),
        st.lists(st.sampled_from([n for n, _ in ROWS] + ["Hoka"]), min_size=1, max_size=3),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_merged_into_holds_after_any_sequence_of_decisions(tmp_path_factory, ops):
    """Whatever reviewers do, in any order: every entity holding a spelling has no merged_into,
    every emptied one that had spellings leads to a live entity, and live_entities is what
    `entities list` lists."""
    from workbench.store.db import connect, transaction
    from workbench.store.entities import decisions as registry
    from workbench.store.entities import merges as entity_merges
    from workbench.store.entities import names as entity_names
    from workbench.store.surface import normalize_surface

    conn = connect(tmp_path_factory.mktemp("m") / "e.db")
    with transaction(conn):
        entity_names.ensure_entities(
            conn, [(n, normalize_surface(n)) for n in ("Nike", "NIKE Inc", "Puma", "Adidas", "Hoka")]
        )
    for action, who, names in ops:
        try:
            if action == "merge":
                registry.merge(conn, names + ["Nike"], who=who)
            elif action == "split":
                registry.split(conn, names[0], ["NIKE Inc"], "Nike Inc", who=who)
            elif action == "reuse":
                entity_merges.rename(conn, "Nike", names[0], who=who, reuse_merged=True)
            else:
                getattr(registry, action)(conn, who)
        except registry.DecisionError:
            pass  # a refusal a reviewer reads; the invariants hold all the same
        live = {r[0] for r in conn.execute("SELECT id FROM live_entities")}
        assert (
            conn.execute(
                "SELECT COUNT(*) FROM entities WHERE merged_into IS NOT NULL AND id IN (SELECT entity_id FROM aliases)"
            ).fetchone()[0]
            == 0
        )
        emptied = {r[0] for r in conn.execute("SELECT id FROM entities WHERE merged_into IS NOT NULL")}
        assert emptied == {r[0] for r in conn.execute("SELECT id FROM entities")} - live
        assert {r[0] for r in conn.execute("SELECT id FROM merged_entities")} == emptied
        assert {r[0] for r in conn.execute("SELECT live_id FROM merged_entities")} <= live
        assert sorted(r[0] for r in conn.execute("SELECT name FROM live_entities")) == sorted(
            r[0] for r in registry.entity_table(conn)
        )
    conn.close()
