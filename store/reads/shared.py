"""Read-only queries over the shared tables, for displays and exports.

Kept in the store so the layers above (the Run and Design screens, exports, the
runner's counters) hold no SQL of their own.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.store.requests.file_questions import ASKED
from workbench.store.requests.queue import STATUSES


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


def counts(conn: sqlite3.Connection, study_id: int | None = None) -> list[dict[str, Any]]:
    """Requests per study, model and stage, with a count per status."""
    where, args = ("AND r.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    rows = conn.execute(
        f"SELECT s.name AS study, m.spec AS model, r.stage, r.status, COUNT(*) AS n "
        f"FROM requests r JOIN studies s ON s.id = r.study_id JOIN models m ON m.id = r.model_id "
        f"WHERE r.superseded = 0 {where} GROUP BY s.name, m.spec, r.stage, r.status ORDER BY s.name, m.spec, r.stage",
        args,
    ).fetchall()
    grouped: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        entry = grouped.setdefault(
            (row["study"], row["model"], row["stage"]),
            {"study": row["study"], "model": row["model"], "stage": row["stage"], **{status: 0 for status in STATUSES}},
        )
        entry[row["status"]] = row["n"]
    return list(grouped.values())


def claims(conn: sqlite3.Connection, study_id: int | None = None) -> list[dict[str, Any]]:
    """Running requests per study, model, stage and holder (host:pid of the claiming run)."""
    where, args = ("AND r.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    rows = conn.execute(
        f"SELECT s.name AS study, m.spec AS model, r.stage, r.claimed_by AS owner, COUNT(*) AS n "
        f"FROM requests r JOIN studies s ON s.id = r.study_id JOIN models m ON m.id = r.model_id "
        f"WHERE r.status = 'running' AND r.superseded = 0 {where} GROUP BY s.name, m.spec, r.stage, r.claimed_by",
        args,
    ).fetchall()
    return [dict(row) for row in rows]


def error_summary(conn: sqlite3.Connection, study_id: int | None = None) -> list[dict[str, Any]]:
    """Errors met per study, model and kind; survived: its request answered since; final: it failed on it, still."""
    where, args = ("AND r.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    rows = conn.execute(
        f"SELECT s.name AS study, m.spec AS model, e.kind, COUNT(*) AS met, SUM(r.status = 'done') AS survived, "
        f"SUM(e.final = 1 AND r.status <> 'done') AS final, MAX(e.message) AS example "
        f"FROM request_errors e JOIN requests r ON r.key = e.request_key "
        f"JOIN studies s ON s.id = r.study_id JOIN models m ON m.id = r.model_id "
        f"WHERE r.superseded = 0 {where} GROUP BY s.name, m.spec, e.kind ORDER BY s.name, m.spec, e.kind",
        args,
    ).fetchall()
    return [dict(row) for row in rows]


def unanswered(conn: sqlite3.Connection, study_id: int, owner: str) -> tuple[int, int, int]:
    """(pending, running here or nowhere, running in another live process) for a study's current requests."""
    row = conn.execute(
        "SELECT COUNT(*) FILTER (WHERE status = 'pending'), "
        "COUNT(*) FILTER (WHERE status = 'running' AND (claimed_by IS NULL OR claimed_by = ?)), "
        "COUNT(*) FILTER (WHERE status = 'running' AND claimed_by IS NOT NULL AND claimed_by != ?) "
        "FROM requests WHERE study_id = ? AND superseded = 0",
        (owner, owner, study_id),
    ).fetchone()
    return row[0], row[1], row[2]


def answered(conn: sqlite3.Connection, study_id: int) -> tuple[int, int]:
    """(done, of which asked: not shared from another study's stored answer) of a study's
    current requests; a run reads it before and after, to tell what others answered meanwhile."""
    row = conn.execute(
        "SELECT COUNT(*), COUNT(*) FILTER (WHERE p.shared_from IS NULL) FROM requests r "
        "LEFT JOIN responses p ON p.request_key = r.key "
        "WHERE r.study_id = ? AND r.superseded = 0 AND r.status = 'done'",
        (study_id,),
    ).fetchone()
    return row[0], row[1]
