"""What changed in the lists since a reader last looked: the counters and the log migrations
16 to 18 keep by triggers (store/schema.py), so that no writer, in any process, changes a list
unseen. The Metrics screen and the Review screen's pages read again only what they name."""

from __future__ import annotations

import sqlite3


def lists_version(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """(this store, a count that moves whenever a list could read differently, one that
    moves whenever a spelling could resolve to another entity or name): equal twice, the
    lists read the same (migrations 16 and 17)."""
    counts = dict(conn.execute("SELECT what, n FROM change_counts").fetchall())
    return counts["store"], counts["lists"], counts["names"]


def changed_lists(conn: sqlite3.Connection, since: int) -> list[int]:
    """Lists changed (added, edited, deleted, superseded) since the lists count was `since`."""
    return [row[0] for row in conn.execute("SELECT list_id FROM list_changes WHERE at > ?", (since,))]
