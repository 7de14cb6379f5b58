"""A method owns its tables: named migrations per method, applied by the store when it opens,
recorded per method; stores written while the core schema made the built-ins' tables keep every
row and find those migrations recorded as applied."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from workbench import methods
from workbench.methods.registry import MethodBase
from workbench.store import db
from workbench.store.db import StoreError, _statements, connect
from workbench.store.method_migrations import CORE_MADE
from workbench.store.schema import MIGRATIONS, SCHEMA_VERSION

DUMP = Path(__file__).resolve().parents[1] / "data" / "store_schema_25.sql"
BUILTIN_TABLES = {
    "coldstart": {"rankings", "catalog_items", "match_corrections"},
    "identity": {"identity_outputs", "identity_recommendations", "reference_shares", "probe_reviews"},
    "entity": {"label_scores", "entity_meta"},
}
METHOD_TABLES = set().union(*BUILTIN_TABLES.values())


def builtin_migrations() -> set[tuple[str, str]]:
    return {(name, migration) for name in methods.names() for migration, _sql in methods.get(name).migrations}


def recorded(conn) -> set[tuple[str, str]]:
    return {(m, n) for m, n in conn.execute("SELECT method, name FROM method_migrations")}


def schema(conn) -> set[tuple]:
    return set(map(tuple, conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")))


def table_rows(conn, tables) -> dict[str, list[tuple]]:
    return {t: sorted(map(tuple, conn.execute(f"SELECT * FROM {t}"))) for t in sorted(tables)}


def store_of_schema_25(path: Path) -> Path:
    raw = sqlite3.connect(path)
    raw.executescript(DUMP.read_text())
    raw.close()
    return path


def store_at(path: Path, version: int) -> Path:
    """A store as the workbench left it at an earlier core `version`, the built-ins' migrations run
    where the core schema ran them then (their SQL is the old core migrations', word for word)."""
    made_at = {number: (method, name) for method, name, number, _made in CORE_MADE}
    old = sqlite3.connect(path, isolation_level=None)
    old.execute("PRAGMA foreign_keys = ON")
    for number in range(1, version + 1):
        script = MIGRATIONS[number - 1]
        if number in made_at:
            method, name = made_at[number]
            script = dict(methods.get(method).migrations)[name]
        for statement in _statements(script):
            old.execute(statement)
        old.execute(f"PRAGMA user_version = {number}")
    old.close()
    return path


@pytest.fixture
def toy():
    """A toy method registered for one test, with its own table."""

    class Toy(MethodBase):
        name = "toy"
        summary = "a toy with a table of its own"
        migrations = (("words", "CREATE TABLE toy_words (study_id INTEGER, word TEXT NOT NULL)"),)

        async def after_answers(self, stages):
            pass

        def metric_records(self, conn, study, convention="paper"):
            return [{"metric": "words", "value": conn.execute("SELECT COUNT(*) FROM toy_words").fetchone()[0]}]

    methods.register(Toy)
    try:
        yield Toy
    finally:
        methods.unregister("toy")


def test_a_store_of_schema_25_keeps_every_row_and_records_the_builtins_as_applied(tmp_path):
    path = store_of_schema_25(tmp_path / "old.db")
    old = sqlite3.connect(path)
    tables = [r[0] for r in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    before = table_rows(old, tables)
    old.close()
    assert all(before[t] for t in METHOD_TABLES)  # the fixture has rows in every method table

    conn = connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    after = table_rows(conn, tables)
    # cold-start's ranking_keys (run on opening) gives each ranking its answer's key: the dump's has none
    after["rankings"] = [row[:-1] for row in after["rankings"] if row[-1] is None]
    assert after == before
    core_made = {(m, n) for m, n, _number, _made in CORE_MADE}
    assert recorded(conn) == builtin_migrations() == core_made | {("coldstart", "ranking_keys")}
    # the same tables, indexes and columns as a store made now
    new = connect(tmp_path / "new.db")
    assert schema(conn) == schema(new)
    assert recorded(new) == builtin_migrations()


@pytest.mark.parametrize("version", [6, 8, 10])
def test_a_store_of_an_older_version_gets_the_method_migrations_it_lacks(tmp_path, version):
    """At 8 the identity outputs existed without their probe labels: the store records the first
    as applied and runs the others, on the rows it had; at 10 only 11 and 12 run."""
    path = store_at(tmp_path / "old.db", version)
    if version >= 8:
        with sqlite3.connect(path) as old:
            old.execute("INSERT INTO studies VALUES (1, 's', 'identity', NULL, '{}', 'then', 'then')")
            old.execute(
                "INSERT INTO models (id, identity, spec, engine, name, params_json, created_at) "
                "VALUES (1, 'm', 'm', 'openai', 'm', '{}', 'then')"
            )
            old.execute(
                "INSERT INTO requests (key, study_id, model_id, stage, payload_json, created_at, updated_at) "
                "VALUES ('k', 1, 1, 'answer', '{}', 'then', 'then')"
            )
            old.execute(
                "INSERT INTO identity_outputs (request_key, study_id, model, grp, condition, parsed, probe_label) "
                "VALUES ('k', 1, 'm', 'women', 'explicit', 1, 'yes')"
            )
    conn = connect(path)
    assert recorded(conn) == builtin_migrations()
    assert schema(conn) == schema(connect(tmp_path / "new.db"))
    if version >= 8:  # what 9 (at 8) and 11 did to the row already there, and only those
        row = conn.execute("SELECT probe_rule_label, probe_label_source, parse_mode FROM identity_outputs").fetchone()
        assert tuple(row) == (("yes", "rules") if version == 8 else (None, None)) + ("json",)


def test_a_new_store_gets_every_methods_tables_from_the_methods(db_path):
    conn = connect(db_path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert METHOD_TABLES <= tables
    assert recorded(conn) == builtin_migrations()
    for name, owned in BUILTIN_TABLES.items():  # each from its own method's migrations
        sql = " ".join(s for _name, s in methods.get(name).migrations)
        assert all(f"CREATE TABLE {t} " in sql for t in owned)


def test_core_migrations_7_to_12_are_kept_as_no_ops():
    assert [MIGRATIONS[n - 1] for _m, _n, n, _made in CORE_MADE] == [""] * len(CORE_MADE)
    assert not any(
        f"TABLE {t} " in m or f"ON {t}" in m or f"TABLE {t}\n" in m for m in MIGRATIONS for t in METHOD_TABLES
    )


def test_a_registered_method_adds_its_own_table_once(db_path, toy):
    connect(db_path).close()  # an existing store, then a method arrives
    conn = connect(db_path)
    conn.execute("INSERT INTO toy_words VALUES (1, 'hello')")
    assert ("toy", "words") in recorded(conn)
    assert methods.get("toy").metric_records(conn, None) == [{"metric": "words", "value": 1}]
    dump = list(conn.iterdump())
    conn.close()

    again = connect(db_path)  # running twice changes nothing
    assert again.total_changes == 0 and list(again.iterdump()) == dump
    again.close()

    toy.migrations += (("index", "CREATE INDEX toy_words_study ON toy_words (study_id)"),)  # a later version
    conn = connect(db_path)
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'toy_words_study'").fetchone()
    assert [
        n for m, n in conn.execute("SELECT method, name FROM method_migrations WHERE method = 'toy' ORDER BY rowid")
    ] == [
        "words",
        "index",
    ]
    assert [tuple(r) for r in conn.execute("SELECT word FROM toy_words")] == [("hello",)]


def test_a_failing_method_migration_changes_nothing_and_says_which(db_path, toy):
    toy.migrations = (("words", "CREATE TABLE toy_words (word TEXT); INSERT INTO nowhere VALUES (1)"),)
    with pytest.raises(StoreError, match=r"method 'toy' migration 'words' failed: no such table: nowhere"):
        connect(db_path)
    toy.migrations = (("words", "CREATE TABLE toy_words (word TEXT)"),)
    conn = connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM toy_words").fetchone()[0] == 0


def test_a_store_newer_than_the_code_is_refused(db_path, toy):
    connect(db_path).execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this workbench understands"):
        connect(db_path)
    other = db_path.with_name("other.db")
    connect(other).execute("INSERT INTO method_migrations VALUES ('toy', 'columns', 'later')")
    with pytest.raises(StoreError, match=r"method 'toy' tables are newer than this workbench.*'columns'"):
        connect(other)


def test_migrations_that_are_not_name_and_sql_pairs_are_refused(db_path, toy):
    toy.migrations = (("words", "CREATE TABLE a (x)"), ("words", "CREATE TABLE b (x)"))
    with pytest.raises(StoreError, match="method 'toy': two migrations named 'words'"):
        connect(db_path)
    toy.migrations = ("CREATE TABLE a (x)",)
    with pytest.raises(StoreError, match="method 'toy': a migration is not a"):
        connect(db_path)


def test_a_read_only_store_reads_as_before_or_refuses_in_one_line(tmp_path, monkeypatch):
    """A store with every method's migrations: read as it is. A store at today's core version that
    no version with method migrations has written has the tables its core schema made, not cold-
    start's ranking keys, nor a registered method's table: it cannot get them here, refused in one
    line, the file untouched."""
    for name in ("current.db", "made_before.db"):
        made = connect(tmp_path / name)
        if name == "made_before.db":
            made.execute("DROP TABLE method_migrations")
            made.execute("ALTER TABLE rankings DROP COLUMN request_key")
        made.execute("PRAGMA journal_mode = DELETE")
        made.close()
    before = (tmp_path / "made_before.db").read_bytes()
    monkeypatch.setattr(db, "_writable", lambda _path: False)
    conn = connect(tmp_path / "current.db", create=False)
    assert conn.execute("SELECT COUNT(*) FROM rankings").fetchone()[0] == 0
    conn.close()
    with pytest.raises(StoreError, match="lacks the tables of method coldstart .migration 'ranking_keys'"):
        connect(tmp_path / "made_before.db", create=False)

    class Late(MethodBase):
        name = "late"
        migrations = (("notes", "CREATE TABLE late_notes (x)"),)

        async def after_answers(self, stages):
            pass

        def metric_records(self, conn, study, convention="paper"):
            return []

    methods.register(Late)
    try:
        with pytest.raises(StoreError) as refused:
            connect(tmp_path / "current.db", create=False)
    finally:
        methods.unregister("late")
    message = str(refused.value)
    assert "\n" not in message and "method late" in message and "open it once with write access" in message
    assert (tmp_path / "made_before.db").read_bytes() == before
