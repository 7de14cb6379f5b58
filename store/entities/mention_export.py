"""The ranked lists as `export --what mentions` writes them: one row per list and rank.

A list joins the store's tables it is made of (its study, the question its answer
replied to, the verdict that gives it, each name's entity), so the query lives here
and the ChoiceEval method only names the columns."""

from __future__ import annotations

import sqlite3

from workbench.store.current_lists import counts_now


def mention_export_rows(conn: sqlite3.Connection, study: str | None = None) -> sqlite3.Cursor:
    """Every stored list (of one study, or all) by list and rank; a list with no
    recommendation is one row with an empty rank."""
    where, args = (f"WHERE s.name = ? AND {counts_now()}", (study,)) if study else (f"WHERE {counts_now()}", ())
    return conn.execute(
        f"""
        SELECT s.name AS study, l.model, l.topic, l.cluster,
               -- a list the workbench asked for points at its question; an imported one
               -- keeps the id its file gave
               COALESCE(CAST(r.question_id AS TEXT), l.question) AS question_id,
               COALESCE(q.text, l.question) AS question, l.repetition,
               m.rank, m.surface, e.name AS entity, e.region, m.votes,
               -- a list a reviewer edited or rejected is the reviewer's, not the vote's
               CASE WHEN v.decision IN ('edit', 'reject') THEN 'review' ELSE l.source END AS source,
               l.n_experts, l.agreement, v.decision AS review, v.reviewer, l.response_key
        FROM mention_lists l JOIN studies s ON s.id = l.study_id
        -- the verdict that gives the list (see store.reviews: kept by what it judges, not by row)
        LEFT JOIN verdicts v ON v.id = (
            SELECT id FROM verdicts w WHERE w.study_id = l.study_id AND w.model = l.model AND w.topic = l.topic
                AND w.question = l.question AND w.repetition = l.repetition AND w.undone = 0 AND w.blind = 0
                AND (w.answer_key IS NULL OR l.response_key IS NULL OR w.answer_key = l.response_key)
            ORDER BY w.id DESC LIMIT 1)
        LEFT JOIN requests r ON r.key = l.response_key
        LEFT JOIN questions q ON q.id = r.question_id
        LEFT JOIN mentions m ON m.list_id = l.id
        LEFT JOIN aliases a ON a.surface_key = m.surface_key
        LEFT JOIN entities e ON e.id = a.entity_id
        {where} ORDER BY l.id, m.rank
        """,
        args,
    )
