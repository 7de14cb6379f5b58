"""Read-only queries over the shared tables, for displays and exports.

Kept in the store so the layers above (the Run and Design screens, exports, the
runner's counters) hold no SQL of their own.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.store.file_questions import ASKED


def recent_errors(conn: sqlite3.Connection, limit: int = 200) -> list[dict[str, Any]]:
    """The latest request errors, oldest first, with the model and stage they hit."""
    rows = conn.execute(
        "SELECT e.id, e.at, e.kind, e.message, e.final, m.spec AS model, r.stage "
        "FROM request_errors e JOIN requests r ON r.key = e.request_key JOIN models m ON m.id = r.model_id "
        "ORDER BY e.id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [dict(r) for r in reversed(rows)]


def stage_counts(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str) -> dict[str, int]:
    """Requests of one study, model and stage by status (superseded ones left out)."""
    return dict(
        conn.execute(
            "SELECT status, COUNT(*) FROM requests WHERE study_id = ? AND model_id = ? AND stage = ? "
            "AND superseded = 0 GROUP BY status",
            (study_id, model_id, stage),
        ).fetchall()
    )


def question_rows(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """A study's questions as the Design screen lists them."""
    return [
        dict(r)
        for r in conn.execute(
            "SELECT id, verified, topic, cluster, cluster_label, text, source FROM questions WHERE study_id = ? "
            f"AND {ASKED} ORDER BY topic, cluster, position, id",  # not one the study file dropped
            (study_id,),
        )
    ]


def is_verified(conn: sqlite3.Connection, question_id: int) -> bool:
    return bool(conn.execute("SELECT verified FROM questions WHERE id = ?", (question_id,)).fetchone()[0])


def next_position(conn: sqlite3.Connection, study_id: int, topic: str, cluster: str) -> int:
    """Where a question added to a cluster goes: after its last one."""
    return conn.execute(
        "SELECT COALESCE(MAX(position), -1) + 1 FROM questions WHERE study_id = ? AND topic = ? AND cluster = ?",
        (study_id, topic, cluster),
    ).fetchone()[0]
