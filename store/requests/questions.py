"""A study's questions: stored once per wording, edited with their history, verified."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from workbench.store.db import transaction, tuples, utc_now
from workbench.store.errors import InputError
from workbench.store.requests.file_questions import ASKED


def insert_questions(
    conn: sqlite3.Connection, study_id: int, questions: Iterable[Any], provenance: dict[str, Any] | None = None
) -> None:
    """Store questions (idempotent; `study_questions` reads them back). A question whose
    text a reviewer has since edited is not brought back."""
    edited = {
        (r[0], r[1], r[2])
        for r in conn.execute("SELECT topic, cluster, old_text FROM question_edits WHERE study_id = ?", (study_id,))
    }
    questions = [q for q in questions if (q.topic, q.cluster, q.text) not in edited]
    with transaction(conn):
        # A question the study file dropped, imported (or generated) again, is asked again.
        conn.executemany(
            "UPDATE questions SET in_file = NULL WHERE study_id = ? AND topic = ? AND cluster = ? AND text = ? "
            "AND in_file = 0",
            [(study_id, q.topic, q.cluster, q.text) for q in questions],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO questions (study_id, topic, cluster, cluster_label, position, text, source, "
            "provenance_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    study_id,
                    q.topic,
                    q.cluster,
                    q.cluster_label,
                    q.position,
                    q.text,
                    q.source,
                    json.dumps(provenance) if provenance else None,
                )
                for q in questions
            ],
        )


def study_questions(conn: sqlite3.Connection, study_id: int, verified_only: bool = False) -> dict[tuple, int]:
    """Every question a study asks (from its file, imported or generated; not one its file
    dropped, see store/requests/file_questions.py): key -> id."""
    rows = tuples(  # a resumed 100k-question study reads them at every start
        conn,
        f"SELECT topic, cluster, text, id FROM questions WHERE study_id = ? AND {ASKED} "
        + ("AND verified = 1 " if verified_only else "")
        + "ORDER BY id",
        (study_id,),
    )
    return {(topic, cluster, text): id_ for topic, cluster, text, id_ in rows}


def edit_question(conn: sqlite3.Connection, study_id: int, question_id: int, new_text: str) -> None:
    """Change a question's wording (its answers, keyed by the old text, become superseded
    at the next run) and remember the edit so the study file's version stays replaced."""
    new_text = " ".join(new_text.split())
    if not new_text:
        raise InputError("a question cannot be empty")
    with transaction(conn):
        row = conn.execute(
            "SELECT topic, cluster, text FROM questions WHERE id = ? AND study_id = ?", (question_id, study_id)
        ).fetchone()
        if row is None:
            raise InputError(f"no question {question_id} in this study")
        if row["text"] == new_text:
            return
        clash = conn.execute(
            "SELECT 1 FROM questions WHERE study_id = ? AND topic = ? AND cluster = ? AND text = ?",
            (study_id, row["topic"], row["cluster"], new_text),
        ).fetchone()
        if clash:
            raise InputError("the cluster already has a question with that wording")
        conn.execute("UPDATE questions SET text = ? WHERE id = ?", (new_text, question_id))
        original = conn.execute(
            "SELECT old_text FROM question_edits WHERE study_id = ? AND topic = ? AND cluster = ? AND new_text = ?",
            (study_id, row["topic"], row["cluster"], row["text"]),
        ).fetchone()
        old = original["old_text"] if original else row["text"]
        conn.execute(
            "INSERT OR REPLACE INTO question_edits (study_id, topic, cluster, old_text, new_text, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (study_id, row["topic"], row["cluster"], old, new_text, utc_now()),
        )
        # The edited text itself must not count as edited away.
        conn.execute(
            "DELETE FROM question_edits WHERE study_id = ? AND topic = ? AND cluster = ? AND old_text = ?",
            (study_id, row["topic"], row["cluster"], new_text),
        )


def set_verified(conn: sqlite3.Connection, study_id: int, ids: list[int] | None, verified: bool = True) -> int:
    """Mark questions verified (all of the study's when `ids` is None)."""
    with transaction(conn):
        if ids is None:
            cur = conn.execute("UPDATE questions SET verified = ? WHERE study_id = ?", (int(verified), study_id))
        else:
            cur = conn.executemany(
                "UPDATE questions SET verified = ? WHERE study_id = ? AND id = ?",
                [(int(verified), study_id, i) for i in ids],
            )
        return cur.rowcount


QUESTION_FIELDS = ["id", "topic", "cluster", "cluster_label", "text", "source", "verified", "provenance_json"]


def question_records(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    return [
        dict(r)
        for r in conn.execute(
            "SELECT id, topic, cluster, cluster_label, text, source, verified, provenance_json FROM questions "
            f"WHERE study_id = ? AND {ASKED} ORDER BY topic, cluster, position, id",
            (study_id,),
        )
    ]
