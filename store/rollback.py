"""Undoing a transaction after an error without hiding the error.

After some errors (a full disk, an I/O error while committing) SQLite has already rolled the
transaction back on its own. A ROLLBACK then fails with "cannot rollback - no transaction is
active", and that message replaced the one a user needed ("disk I/O error" on a new store).
"""

from __future__ import annotations

import sqlite3


def rollback(conn: sqlite3.Connection, savepoint: str | None = None) -> None:
    """Roll back the transaction at hand (or to `savepoint`, and release it) if there still is
    one; a failure to do so is not raised: the error being handled is the one to report, and
    SQLite's journal leaves the store as its last commit left it either way."""
    if not conn.in_transaction:
        return
    try:
        if savepoint is None:
            conn.execute("ROLLBACK")
        else:
            conn.execute(f"ROLLBACK TO {savepoint}")
            conn.execute(f"RELEASE {savepoint}")
    except sqlite3.Error:
        pass
