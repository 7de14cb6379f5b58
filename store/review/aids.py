"""What the Review screen reads besides its items: where a list on screen went (an import, a
re-extraction or an edited study replaces lists, new ids, or supersedes their answers while
it is shown), and the names a reviewer's edit is completed from."""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.store.current_lists import counts_now


def whereabouts(conn: sqlite3.Connection, item: dict[str, Any]) -> tuple[bool, int | None]:
    """(whether the list `item["id"]` still counts, the list that counts now for the same
    answer slot — study, model, topic, question, repetition — when it does not, or None).
    Lookups by key, whatever the store's size."""
    counts = f"SELECT l.id FROM mention_lists l WHERE {{}} AND {counts_now('l')}"
    if conn.execute(counts.format("l.id = ?"), (item["id"],)).fetchone() is not None:
        return True, None
    now = conn.execute(
        counts.format("l.study_id = ? AND l.model = ? AND l.topic = ? AND l.question = ? AND l.repetition = ?"),
        tuple(item[c] for c in ("study_id", "model", "topic", "question", "repetition")),
    ).fetchone()
    return False, now[0] if now is not None else None


def known_names(conn: sqlite3.Connection) -> list[str]:
    """Every live entity's name (one that still stands for a spelling: not merged away), then
    every spelling mentioned, each once, in that order."""
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM entities e WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id) ORDER BY name"
        )
    ]
    spellings = [r[0] for r in conn.execute("SELECT DISTINCT surface FROM mentions ORDER BY surface")]
    return list(dict.fromkeys(names + spellings))
