"""What `workbench report` reads beyond the exports: a study's row, its models with the
span of their answers and seeds, and how much of its extracted lists a reviewer judged.

Aggregated here in SQL, so a report on a study of a million answers reads a few rows."""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.store.current_lists import counts_now


def study_row(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    """The study as stored: method, the file it was last run from, the parsed study, dates."""
    row = conn.execute(
        "SELECT id, name, method, source_path, spec_json, created_at, updated_at FROM studies WHERE name = ?",
        (name,),
    ).fetchone()
    return dict(row) if row else None


def model_facts(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """Each model the study's current requests were planned for, in the order first planned:
    how it was named and what it is (engine, served name or GGUF, its SHA-256, base URL,
    options), how many requests it has, its first and last answer and its request seeds."""
    rows = conn.execute(
        """
        SELECT m.id, m.spec, m.identity, m.engine, m.name, m.base_url, m.file_path, m.file_hash, m.params_json,
               COUNT(r.key) AS requests, COUNT(p.request_key) AS answers,
               MIN(COALESCE(p.started_at, p.finished_at)) AS first_answer, MAX(p.finished_at) AS last_answer,
               COUNT(DISTINCT r.seed) AS seeds, MIN(r.seed) AS seed_min, MAX(r.seed) AS seed_max
        FROM requests r
        JOIN models m ON m.id = r.model_id
        LEFT JOIN responses p ON p.request_key = r.key
        WHERE r.study_id = ? AND r.superseded = 0
        GROUP BY m.id
        ORDER BY MIN(r.rowid)
        """,
        (study_id,),
    ).fetchall()
    return [dict(row) for row in rows]


def list_review_counts(conn: sqlite3.Connection, study_id: int) -> dict[str, Any]:
    """The study's extracted lists, how many have a standing verdict that is not blind (what
    the metrics follow), and each reviewer's standing verdicts on them (blind ones apart)."""
    lists = conn.execute(
        f"SELECT COUNT(*) FROM mention_lists l WHERE study_id = ? AND {counts_now('l')}", (study_id,)
    ).fetchone()[0]
    reviewed = conn.execute(
        f"""
        SELECT COUNT(*) FROM mention_lists l
        WHERE l.study_id = ? AND {counts_now("l")} AND EXISTS (
            SELECT 1 FROM verdicts v WHERE v.study_id = l.study_id AND v.model = l.model AND v.topic = l.topic
               AND v.question = l.question AND v.repetition = l.repetition AND v.undone = 0 AND v.blind = 0)
        """,
        (study_id,),
    ).fetchone()[0]
    reviewers = conn.execute(
        "SELECT reviewer, SUM(blind = 0) AS open, SUM(blind = 1) AS blind FROM verdicts "
        "WHERE study_id = ? AND undone = 0 GROUP BY reviewer ORDER BY reviewer",
        (study_id,),
    ).fetchall()
    return {"lists": lists, "reviewed": reviewed, "reviewers": [dict(r) for r in reviewers]}
