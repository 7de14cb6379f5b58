"""The names of a gazetteer list that a reviewer should check (`mention_lists.flagged_json`,
migration 32): found only by a near spelling or by common words at a sentence's start."""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def flagged_of(conn: sqlite3.Connection, list_id: int) -> list[dict[str, Any]]:
    """[{"name", "text", "kind", "start", "end"}] of one list, in list order (empty when none)."""
    row = conn.execute("SELECT flagged_json FROM mention_lists WHERE id = ?", (list_id,)).fetchone()
    return json.loads(row[0]) if row and row[0] else []


def flag_line(flag: dict[str, Any]) -> str:
    """What a reviewer reads: "near spelling: 'Salomn' counted as Salomon"."""
    return f"{flag['kind']}: {flag['text']!r} counted as {flag['name']}"
