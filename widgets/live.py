"""Screens that follow the store while shown: SQLite's change counter, polled.

`PRAGMA data_version` on a connection kept open moves whenever any other connection
commits: another process's verdicts, merges and imports, a headless run, and this app's
own writes (each made on a connection of its own). Reading it costs microseconds and
takes no lock, so a screen on view asks twice a second and reads the store again only
when it moved, its old numbers dimmed until the new ones arrive.
"""

from __future__ import annotations

import sqlite3

from workbench.store.db import connect, data_version

POLL_S = 0.5  # how often a screen on view asks; a change shows within about this, plus its read


class StoreWatch:
    """The store's change counter as one screen last read the store."""

    def __init__(self, db_path: str) -> None:
        self._conn: sqlite3.Connection | None = connect(db_path)
        self.seen = data_version(self._conn)

    def changed(self) -> bool:
        """Whether a commit came since the screen last began to read the store."""
        return self._conn is not None and data_version(self._conn) != self.seen

    def catch_up(self) -> None:
        """A read of the store begins now: every commit counted so far is in what it reads."""
        if self._conn is not None:
            self.seen = data_version(self._conn)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class LiveStore:
    """For a Screen: `follow_store()` on mount; `store_changed()` runs on the UI thread
    when the store moved while the screen is on view (under a modal too) and it is not
    reading or writing already (`store_busy()`); a read it starts calls `store_read_begins()`."""

    _store_watch: StoreWatch | None = None

    def follow_store(self) -> None:
        self._store_watch = StoreWatch(self.app.db_path)
        self.set_interval(POLL_S, self.poll_store, name="store-watch")

    def store_busy(self) -> bool:
        """A read or a write of this screen's is under way: its end is soon enough to look again."""
        return False

    def store_changed(self) -> None:
        raise NotImplementedError

    def store_read_begins(self) -> None:
        if self._store_watch is not None:
            self._store_watch.catch_up()

    def poll_store(self) -> None:
        """Read the store again if it moved (also called when the screen is shown again)."""
        watch = self._store_watch
        if watch is None or not self.is_current or self.store_busy():
            return
        try:
            moved = watch.changed()
        except sqlite3.Error:  # a store being replaced or locked for a moment: the next tick asks again
            return
        if moved:
            self.store_changed()

    def stop_following(self) -> None:
        if self._store_watch is not None:
            self._store_watch.close()
            self._store_watch = None
