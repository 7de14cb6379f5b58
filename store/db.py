"""Opening the store: one SQLite file, WAL, busy timeout, forward migrations."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from store.schema import MIGRATIONS, SCHEMA_VERSION

# A reader (the TUI) and a writer (a headless run) share the file. WAL lets them
# proceed side by side; the busy timeout makes a momentary writer-writer clash
# wait instead of failing with "database is locked".
BUSY_TIMEOUT_MS = 30_000


class StoreError(Exception):
    """The database cannot be used as it is (newer schema, not a workbench file, ...)."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def connect(path: str | Path) -> sqlite3.Connection:
    """A configured sqlite3 connection with the schema brought up to date."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: not an SQLite database ({exc})") from exc
    if mode.lower() != "wal":  # e.g. a read-only medium; still usable
        pass
    # NORMAL is durable across application crashes in WAL mode (only a power
    # loss can drop the last transactions), and much faster than FULL.
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn, path)
    return conn


def migrate(conn: sqlite3.Connection, path: Path | str = "database") -> int:
    """Apply the migrations this database has not seen; returns the new version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: schema version {version} is newer than this workbench understands "
            f"({SCHEMA_VERSION}); upgrade the workbench"
        )
    for number in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have migrated.
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current > number:
                conn.execute("COMMIT")
                continue
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would commit implicitly)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def open_db(path: str | Path):
    """The store as a sqlite-utils Database (for table helpers and ad-hoc analysis)."""
    import sqlite_utils  # on use: it adds ~0.1 s to every command's start-up

    return sqlite_utils.Database(connect(path))


@contextmanager
def opened(path: str | Path) -> Iterator[sqlite3.Connection]:
    """A connection for one short piece of work (UI actions, polling), closed after it."""
    conn = connect(path)
    try:
        yield conn
    finally:
        conn.close()
