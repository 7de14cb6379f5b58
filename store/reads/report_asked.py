"""What a report's "What was asked" part reads: the questions of a study, what each model was
sent at each stage (one request's settings, which every request of the stage shares but for
its seed), the seeds, and how the local engine decoded the answers (`parallel`).

Aggregated in SQL: a study of a million requests reads a few rows."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.requests.file_questions import ASKED


def question_counts(conn: sqlite3.Connection, study_id: int) -> list[tuple[str, str, int]]:
    """(topic, cluster, questions) of the questions asked; for imported lists, which have no
    question table, the distinct questions their lists name."""
    rows = conn.execute(
        f"SELECT topic, cluster, COUNT(*) FROM questions WHERE study_id = ? AND {ASKED} "
        "GROUP BY topic, cluster ORDER BY topic, cluster",
        (study_id,),
    ).fetchall()
    if rows:
        return [tuple(r) for r in rows]
    rows = conn.execute(
        "SELECT topic, COALESCE(cluster, ''), COUNT(DISTINCT question) FROM mention_lists WHERE study_id = ? "
        "GROUP BY topic, cluster ORDER BY topic, cluster",
        (study_id,),
    ).fetchall()
    return [tuple(r) for r in rows]


def question_texts(conn: sqlite3.Connection, study_id: int) -> list[tuple[str, str, str]]:
    """(topic, cluster, question) of every question asked, in the order they were planned
    (imported lists: the question each names, in order)."""
    rows = conn.execute(
        f"SELECT topic, cluster, text FROM questions WHERE study_id = ? AND {ASKED} "
        "ORDER BY topic, cluster, position, id",
        (study_id,),
    ).fetchall()
    if rows:
        return [tuple(r) for r in rows]
    rows = conn.execute(
        "SELECT DISTINCT topic, COALESCE(cluster, ''), question FROM mention_lists WHERE study_id = ? "
        "ORDER BY topic, cluster, question",
        (study_id,),
    ).fetchall()
    return [tuple(r) for r in rows]


def stage_settings(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """Per model and stage, in the order first planned: the requests, their seeds (distinct,
    lowest, highest), and the first request's sampling settings and system prompt."""
    rows = conn.execute(
        """
        SELECT m.spec, r.model_id, r.stage, COUNT(*) AS requests, COUNT(DISTINCT r.seed) AS seeds,
               MIN(r.seed) AS seed_min, MAX(r.seed) AS seed_max, MIN(r.rowid) AS first
        FROM requests r JOIN models m ON m.id = r.model_id
        WHERE r.study_id = ? AND r.superseded = 0
        GROUP BY r.model_id, r.stage ORDER BY MIN(r.rowid)
        """,
        (study_id,),
    ).fetchall()
    out = []
    for row in rows:
        (payload,) = conn.execute("SELECT payload_json FROM requests WHERE rowid = ?", (row["first"],)).fetchone()
        asked = json.loads(payload or "{}")
        system = [m.get("content") for m in asked.get("messages") or [] if m.get("role") == "system"]
        out.append({**dict(row), "params": asked.get("params") or {}, "system": system[0] if system else None})
    return out


def parallel_used(conn: sqlite3.Connection, study_id: int) -> dict[int, list[int | None]]:
    """model id -> the `parallel` values its answers were decoded with (None: one at a time,
    or an engine that does not batch), most answers first."""
    found: dict[int, list[int | None]] = {}
    for model_id, parallel, _n in conn.execute(
        """
        SELECT r.model_id, p.parallel, COUNT(*) AS n FROM requests r JOIN responses p ON p.request_key = r.key
        WHERE r.study_id = ? AND r.superseded = 0 GROUP BY r.model_id, p.parallel ORDER BY r.model_id, n DESC
        """,
        (study_id,),
    ):
        found.setdefault(model_id, []).append(parallel)
    return found


def study_progress(conn: sqlite3.Connection, study: str | None) -> list[tuple[str, str, str | None, int, int]]:
    """(name, method, study file, requests asked, answered) of every study (or the one named),
    by name: what a view with no numbers says is under way."""
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT s.name, s.method, s.source_path, COUNT(r.key) AS asked, COUNT(p.request_key) AS answered "
            "FROM studies s LEFT JOIN requests r ON r.study_id = s.id AND r.superseded = 0 "
            "LEFT JOIN responses p ON p.request_key = r.key WHERE ? IS NULL OR s.name = ? "
            "GROUP BY s.id ORDER BY s.name",
            (study, study),
        )
    ]
