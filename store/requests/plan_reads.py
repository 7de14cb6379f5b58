"""What `workbench compare` and `workbench plan` read beside the lists: a study's models, and
the span of every timed answer (for each model's throughput)."""

from __future__ import annotations

import sqlite3

from workbench.store.current_lists import counts_now


def listed_models(conn: sqlite3.Connection, study: str) -> list[str]:
    """The models with ranked lists that count in a study (not a removed model's), in name order."""
    from workbench.store.requests.studies import study_id

    return list_models(conn, study_id(conn, study))


def list_models(conn: sqlite3.Connection, study_id: int | None) -> list[str]:
    """The models with ranked lists that count in the study of this id, in name order."""
    rows = conn.execute(
        f"SELECT DISTINCT l.model FROM mention_lists l WHERE l.study_id = ? AND {counts_now('l')} ORDER BY l.model",
        (study_id,),
    )
    return [row[0] for row in rows]


def answer_spans(conn: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    """(model identity, its label, started at, finished at) of every stored answer, by model
    and start. By identity: a study file may name a model with options its identity leaves
    out (`parallel=8`), or by another spelling of its file."""
    return conn.execute(
        "SELECT m.identity, m.spec, s.started_at, s.finished_at FROM responses s "
        "JOIN requests r ON r.key = s.request_key JOIN models m ON m.id = r.model_id "
        "WHERE r.stage = 'answer' ORDER BY m.identity, s.started_at"
    ).fetchall()
