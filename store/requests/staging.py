"""Keys an import has seen, with the line that first gave each, kept out of memory.

An import reads its file a chunk at a time; the checks that span rows (a rank given twice in
one ranking, a second response for one ranking) need every key the file gave before. Those
are kept in a TEMP table of the connection (SQLite keeps TEMP tables in a file of its own,
not in memory), so a file of millions of rows is checked in the memory of one chunk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count

from workbench.store.rollback import rollback

_names = count()


class SeenKeys:
    """The keys (tuples of `width` values) given so far, each with its first line."""

    def __init__(self, conn: sqlite3.Connection, width: int) -> None:
        self.conn, self.width = conn, width
        self.table = f"seen_keys_{next(_names)}"
        columns = ", ".join(f"k{i}" for i in range(width))
        conn.execute(f"CREATE TEMP TABLE {self.table} ({columns}, line INTEGER, PRIMARY KEY ({columns})) WITHOUT ROWID")
        conn.execute(f"CREATE TEMP TABLE {self.table}_chunk (position INTEGER PRIMARY KEY, line INTEGER, {columns})")

    def add(self, keyed: list[tuple[int, tuple]]) -> list[tuple[int, int, tuple]]:
        """Record one chunk's (line, key) pairs, in line order (a line may give several); return
        (line, first line, key) for each whose key an earlier line gave, in an earlier chunk or
        earlier in this one."""
        slots = ", ".join("?" * (self.width + 2))
        columns = ", ".join(f"k{i}" for i in range(self.width))
        self.conn.execute(f"DELETE FROM {self.table}_chunk")
        self.conn.executemany(
            f"INSERT INTO {self.table}_chunk VALUES ({slots})", [(n, ln, *k) for n, (ln, k) in enumerate(keyed)]
        )
        same = " AND ".join(f"s.k{i} = c.k{i}" for i in range(self.width))
        before = dict(
            self.conn.execute(f"SELECT c.position, s.line FROM {self.table}_chunk c JOIN {self.table} s ON {same}")
        )
        firsts: dict[tuple, int] = {}
        repeats = []
        for position, (line, key) in enumerate(keyed):
            first = before.get(position) or firsts.setdefault(key, line)
            if first != line:
                repeats.append((line, first, key))
        self.conn.execute(
            f"INSERT OR IGNORE INTO {self.table} SELECT {columns}, line FROM {self.table}_chunk ORDER BY position"
        )
        return repeats

    def close(self) -> None:
        self.conn.execute(f"DROP TABLE IF EXISTS temp.{self.table}")
        self.conn.execute(f"DROP TABLE IF EXISTS temp.{self.table}_chunk")


@contextmanager
def scratch(conn: sqlite3.Connection) -> Iterator[None]:
    """A transaction of an import's scratch (TEMP) tables alone: staging a large file takes no
    lock on the store, so a run writing its answers meanwhile is not held up while it is read.
    Inside a transaction of the caller's, the statements are simply part of it."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    except BaseException:
        rollback(conn)
        raise
    conn.execute("COMMIT")
