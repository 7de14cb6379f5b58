"""A method's own tables: named migrations per method, applied after the core schema.

Each method lists its migrations as `(name, sql)` pairs, oldest first (`MethodBase.migrations`);
opening a store applies the ones it has not recorded, each in one transaction together with its
row in `method_migrations (method, name, applied_at)` (a table this module makes on first use, so
the core schema's numbering is not involved). A migration that has shipped is never
edited nor renamed: a change is a new pair at the end. Core migrations never touch a method's
tables (a method's tables come after the whole core schema).

The store imports nothing of the methods: the layer above hands it the registered methods'
migrations through `set_source` (the workbench package does, on import), and `apply` reads them
each time a store is opened. Whether anything is missing costs one query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from workbench.errors import MethodTablesError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.rollback import rollback

MethodMigrations = tuple[str, Sequence[tuple[str, str]]]  # (method name, its (name, sql) pairs)


# The built-in methods' migrations that core migrations 7 to 12 made before methods owned their
# tables, with what each created: a store that has it records it as applied when the record
# starts, and a store made since gets them from the methods. Found by what they made rather
# than by the store's version: a new store stopped between two core migrations has the version
# and none of the tables.
CORE_MADE: tuple[tuple[str, str, int, str], ...] = (
    ("coldstart", "rankings", 7, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rankings'"),
    ("identity", "outputs", 8, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'identity_outputs'"),
    ("identity", "probe_labels", 9, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'probe_reviews'"),
    ("entity", "label_scores", 10, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'label_scores'"),
    ("identity", "parse_mode", 11, "SELECT 1 FROM pragma_table_info('identity_outputs') WHERE name = 'parse_mode'"),
    (
        "coldstart",
        "match_corrections",
        12,
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'match_corrections'",
    ),
)

RECORD = """
CREATE TABLE method_migrations (
    method TEXT NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (method, name)
)
"""

_source: Callable[[], Iterable[MethodMigrations]] | None = None


def set_source(source: Callable[[], Iterable[MethodMigrations]] | None) -> None:
    """Where the registered methods' migrations come from (called at each opening)."""
    global _source
    _source = source


def registered() -> list[MethodMigrations]:
    """Every registered method's migrations, checked: names unique within a method, each a
    (name, sql) pair of strings."""
    found = []
    for method, migrations in _source() if _source is not None else ():
        pairs = list(migrations)
        names = [pair[0] if isinstance(pair, tuple) and len(pair) == 2 else None for pair in pairs]
        for pair, name in zip(pairs, names, strict=True):
            if not (isinstance(name, str) and name.strip() and isinstance(pair[1], str)):
                raise MethodTablesError(f"method {method!r}: a migration is not a (name, sql) pair of text: {pair!r}")
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise MethodTablesError(f"method {method!r}: two migrations named {duplicate!r}")
        found.append((method, pairs))
    return found


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _core_made(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    """The built-ins' migrations this store's core schema made (`CORE_MADE`)."""
    return {(method, name) for method, name, _number, made in CORE_MADE if conn.execute(made).fetchone()}


def _recorded(conn: sqlite3.Connection) -> set[tuple[str, str]] | None:
    """What the store records as applied; None before the record starts (a store that no
    version with method migrations has opened for writing)."""
    try:
        return {(m, n) for m, n in conn.execute("SELECT method, name FROM method_migrations").fetchall()}
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        return None


def _start_record(conn: sqlite3.Connection) -> None:
    """Make the record, with what the core schema made already, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _recorded(conn) is None:  # re-read under the write lock: another process may have
            conn.execute(RECORD)
            now = _now()
            conn.executemany(
                "INSERT INTO method_migrations VALUES (?, ?, ?)", [(m, n, now) for m, n in sorted(_core_made(conn))]
            )
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise


def missing(conn: sqlite3.Connection, path: Path | str, recorded: set[tuple[str, str]] | None = None):
    """The (method, name, sql) of the registered methods not yet applied, in order; refuses a
    store that a newer version of a registered method wrote (a name the method does not list)."""
    if recorded is None:
        recorded = _recorded(conn)
    if recorded is None:  # read-only, before the record starts: what the core schema made
        recorded = _core_made(conn)
    todo = []
    for method, pairs in registered():
        known = {name for name, _sql in pairs}
        newer = sorted(name for m, name in recorded if m == method and name not in known)
        if newer:
            raise MethodTablesError(
                f"{path}: method {method!r} tables are newer than this workbench understands "
                f"(migration {newer[0]!r}); upgrade the workbench or the method's package"
            )
        todo += [(method, name, sql) for name, sql in pairs if (method, name) not in recorded]
    return todo


def statements(script: str) -> list[str]:
    """A script's statements, split at each `;` that ends one (not one in a string, a comment or
    a trigger's body), so that they run inside the migration's transaction: executescript would
    commit on its own."""
    found, buffer = [], ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            found.append(buffer.strip())
            buffer = ""
    rest = buffer[:-1].strip()  # after the last `;`: a last statement without one, or a comment
    return [*found, rest + "\n;"] if rest else found


def apply(conn: sqlite3.Connection, path: Path | str) -> int:
    """Apply the registered methods' migrations this store has not recorded, each in one
    transaction with its record; returns how many were applied."""
    recorded = _recorded(conn)  # the one query an up-to-date store costs
    if recorded is None:
        _start_record(conn)
    todo = missing(conn, path, recorded)
    for method, name, sql in todo:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have applied it meanwhile.
            if (method, name) in (_recorded(conn) or ()):
                conn.execute("COMMIT")
                continue
            for statement in statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO method_migrations VALUES (?, ?, ?)", (method, name, _now()))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            rollback(conn)
            if "disk I/O error" in str(exc) or "full" in str(exc):
                raise  # the disk's fault, not the migration's: the caller says so, naming the file
            raise MethodTablesError(f"{path}: method {method!r} migration {name!r} failed: {exc}") from None
        except BaseException:
            rollback(conn)
            raise
    return len(todo)


def refuse_missing(conn: sqlite3.Connection, path: Path | str) -> None:
    """For a store opened read-only: refuse in one line when a registered method's tables are
    not all there (they cannot be made here), as a store of an older core schema is refused."""
    todo = missing(conn, path)
    if todo:
        methods = ", ".join(dict.fromkeys(method for method, _name, _sql in todo))
        raise MethodTablesError(
            f"{path}: lacks the tables of method {methods} (migration {todo[0][1]!r}) and the file "
            "is read-only here: open it once with write access"
        )
