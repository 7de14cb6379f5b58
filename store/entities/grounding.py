"""Voted entities the answer does not contain: how many, per model, and which, per list.

ChoiceEval's experts sometimes name what the answer never said (an entity from the question,
a brand they know). The vote checks every voted entity against the answer's text; those not
found are dropped from the list or kept and flagged (`grounding` in the study), and stored
with the list either way (`mention_lists.ungrounded_json`), so status, the report and the
Review screen can say how often it happens and where.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.current_lists import counts_now


def ungrounded_counts(conn: sqlite3.Connection, study_id: int | None = None) -> list[dict[str, Any]]:
    """Per study and model: voted lists, how many had names not found in the answer, and how many names."""
    where, args = ("AND l.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    rows = conn.execute(
        "SELECT s.name, l.model, COUNT(*), SUM(l.ungrounded_json IS NOT NULL), "
        "SUM(COALESCE(json_array_length(l.ungrounded_json), 0)) "
        f"FROM mention_lists l JOIN studies s ON s.id = l.study_id WHERE l.source = 'vote' AND {counts_now()} {where} "
        "GROUP BY s.name, l.model ORDER BY s.name, l.model",
        args,
    ).fetchall()
    return [
        {"study": study, "model": model, "lists": lists, "lists_with": with_some, "names": names}
        for study, model, lists, with_some, names in rows
    ]


def ungrounded_of(conn: sqlite3.Connection, list_id: int) -> list[str]:
    """The voted names of one list that its answer does not contain."""
    row = conn.execute("SELECT ungrounded_json FROM mention_lists WHERE id = ?", (list_id,)).fetchone()
    return json.loads(row[0]) if row and row[0] else []
