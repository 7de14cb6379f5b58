"""A merged-away name reused: while the rename that reused it stands, the emptied entity gets no
spelling back (see store/entities/merges.py). Kept apart from entity_merges.py, which builds on
store/entities/decisions.py, so that the undo and redo there can ask without an import cycle."""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def retired_blocker(conn: sqlite3.Connection, changes: list[dict[str, Any]], forward: bool) -> str | None:
    """Why giving spellings back to an entity is refused: a standing decision reused its name
    (so it would come back under "Puma (merged into Nike, entity 7)" beside another Puma)."""
    gaining = {c["to"] if forward else c["from"] for c in changes if c["op"] == "alias"}
    if not gaining:
        return None
    for row in conn.execute(
        "SELECT id, who, summary, changes_json FROM entity_decisions WHERE undone = 0 AND action = 'rename' "
        "AND changes_json LIKE '%\"retire\": true%' ORDER BY id DESC"
    ):
        for change in json.loads(row["changes_json"]):
            if change.get("retire") and change["entity"] in gaining:
                return (
                    f"#{row['id']} by {row['who']} ({row['summary']}) took the name {change['from']!r} since; "
                    "undo that first"
                )
    return None
