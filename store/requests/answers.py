"""The answers a method reads back from the queue: a study's current requests and their replies.

"Current" is a request of the study's present plan: one a changed study file no longer
asks is marked superseded (`queue.supersede_others`) and kept, never read as an answer.
Methods read their answers through these functions, so that rule lives in one place.
Rows are in plan order (the order the requests were planned in) unless said otherwise.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from itertools import islice

# Keys per `IN (...)` list: far below SQLite's limit on bound parameters.
_CHUNK = 500


def replies(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str) -> list[sqlite3.Row]:
    """Every current request of a study x model x stage, answered or not:
    key, status, payload_json, text (None while there is no reply)."""
    return conn.execute(
        "SELECT r.key, r.status, r.payload_json, p.text FROM requests r LEFT JOIN responses p ON p.request_key = r.key "
        "WHERE r.study_id = ? AND r.model_id = ? AND r.stage = ? AND r.superseded = 0 ORDER BY r.rowid",
        (study_id, model_id, stage),
    ).fetchall()


def answered(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str) -> list[sqlite3.Row]:
    """The current requests of a study x model x stage that have a reply: key, payload_json, text."""
    return conn.execute(
        "SELECT r.key, r.payload_json, p.text FROM requests r JOIN responses p ON p.request_key = r.key "
        "WHERE r.study_id = ? AND r.model_id = ? AND r.stage = ? AND r.superseded = 0 ORDER BY r.rowid",
        (study_id, model_id, stage),
    ).fetchall()


def answers_to_extract(conn: sqlite3.Connection, study_id: int, model_id: int, made_with: str) -> list[sqlite3.Row]:
    """A model's current answered questions (stage `answer`) whose ranked list is missing, or
    was extracted otherwise than `made_with` (the digest of the extraction's settings) says; an
    imported list is kept: key, topic, cluster, question, repetition, text, listed (1: a list
    is there, to be replaced), was (that list's digest; None where none was recorded)."""
    return conn.execute(
        """
        SELECT r.key, q.topic, q.cluster, q.text AS question, r.repetition, p.text,
               l.id IS NOT NULL AS listed, l.extracted_with AS was
        FROM requests r
        JOIN responses p ON p.request_key = r.key
        JOIN questions q ON q.id = r.question_id
        LEFT JOIN mention_lists l ON l.response_key = r.key AND l.study_id = r.study_id
        WHERE r.study_id = ? AND r.model_id = ? AND r.stage = 'answer' AND r.status = 'done'
          AND r.superseded = 0
          AND (l.id IS NULL OR (l.source != 'import' AND l.extracted_with IS NOT ?))
        ORDER BY r.rowid
        """,
        (study_id, model_id, made_with),
    ).fetchall()


def with_extra_follow_ups(
    conn: sqlite3.Connection, study_id: int, model_id: int, stage: str, most: int
) -> list[sqlite3.Row]:
    """A model's current answers with more than `most` current requests of `stage` planned
    from them (another settings' extraction requests among them): key, question, text."""
    return conn.execute(
        """
        SELECT r.key, q.text AS question, p.text FROM requests r
        JOIN responses p ON p.request_key = r.key
        JOIN questions q ON q.id = r.question_id
        WHERE r.study_id = ? AND r.model_id = ? AND r.stage = 'answer' AND r.superseded = 0
          AND (SELECT COUNT(*) FROM requests f WHERE f.parent_key = r.key AND f.stage = ? AND f.superseded = 0) > ?
        """,
        (study_id, model_id, stage, most),
    ).fetchall()


def mark_follow_ups(conn: sqlite3.Connection, parent_keys: list[str], stage: str, current: set[str]) -> None:
    """The requests of `stage` planned from `parent_keys`: those in `current` count, the others
    are superseded."""
    for parent in parent_keys:
        for row in follow_ups(conn, parent, stage):
            conn.execute(
                "UPDATE requests SET superseded = ? WHERE key = ?", (int(row["key"] not in current), row["key"])
            )


def count_again(conn: sqlite3.Connection, keys: list[str]) -> None:
    """These requests, superseded meanwhile, count again (settings put back)."""
    conn.executemany("UPDATE requests SET superseded = 0 WHERE key = ? AND superseded = 1", [(k,) for k in keys])


def follow_ups(conn: sqlite3.Connection, parent_key: str, stage: str) -> list[sqlite3.Row]:
    """The requests of a stage planned from one answer (its `parent_key`), superseded or
    not, by repetition: key, repetition, status, text (None while there is no reply)."""
    return conn.execute(
        "SELECT r.key, r.repetition, r.status, p.text FROM requests r "
        "LEFT JOIN responses p ON p.request_key = r.key "
        "WHERE r.parent_key = ? AND r.stage = ? ORDER BY r.repetition",
        (parent_key, stage),
    ).fetchall()


def answered_with_follow_up(
    conn: sqlite3.Connection, study_id: int, model_id: int, *, stage: str, follow_up: str, judged_by: str
) -> list[sqlite3.Row]:
    """The current answered requests of a study x model x stage, each with the reply to its
    follow-up turn (a request of stage `follow_up` planned from it) and the latest current
    reply judging that follow-up (stage `judged_by`, planned from the follow-up):
    key, payload_json, text, follow_up_text, judge_text (None where there is none)."""
    return conn.execute(
        "SELECT r.key, r.payload_json, p.text, "
        "(SELECT p2.text FROM requests r2 JOIN responses p2 ON p2.request_key = r2.key "
        " WHERE r2.parent_key = r.key AND r2.stage = :follow_up) AS follow_up_text, "
        "(SELECT p3.text FROM requests r2 JOIN requests r3 ON r3.parent_key = r2.key "
        " JOIN responses p3 ON p3.request_key = r3.key "
        " WHERE r2.parent_key = r.key AND r2.stage = :follow_up AND r3.stage = :judged_by AND r3.superseded = 0 "
        " ORDER BY r3.rowid DESC LIMIT 1) AS judge_text "
        "FROM requests r JOIN responses p ON p.request_key = r.key "
        "WHERE r.study_id = :study AND r.model_id = :model AND r.stage = :stage AND r.superseded = 0 "
        "ORDER BY r.rowid",
        {"study": study_id, "model": model_id, "stage": stage, "follow_up": follow_up, "judged_by": judged_by},
    ).fetchall()


def current_requests(conn: sqlite3.Connection, study_ids: Iterable[int], stage: str) -> Iterator[sqlite3.Row]:
    """The current requests of a stage of these studies, answered or not, in plan order
    across them: key, study_id, payload_json. Streamed: an export need not hold them all."""
    ids = list(study_ids)
    if not ids:
        return iter(())
    return conn.execute(
        f"SELECT key, study_id, payload_json FROM requests WHERE study_id IN ({','.join('?' * len(ids))}) "
        "AND stage = ? AND superseded = 0 ORDER BY rowid",
        (*ids, stage),
    )


def follow_up_texts(conn: sqlite3.Connection, parent_keys: Iterable[str], stage: str) -> dict[str, str]:
    """The reply to each request's follow-up turn (stage `stage`, planned from it), by the
    request's key; a request with none is left out. Where a request has two (its follow-up
    planned again), the first planned is the one given."""
    texts: dict[str, str] = {}
    for chunk in _chunks(parent_keys):
        for parent, text in conn.execute(
            f"SELECT r.parent_key, p.text FROM requests r JOIN responses p ON p.request_key = r.key "
            f"WHERE r.parent_key IN ({','.join('?' * len(chunk))}) AND r.stage = ? ORDER BY r.rowid",
            (*chunk, stage),
        ):
            texts.setdefault(parent, text)
    return texts


def payloads(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, str]:
    """What was asked (the request's payload, as JSON text) by request key."""
    found: dict[str, str] = {}
    for chunk in _chunks(keys):
        found.update(
            conn.execute(
                f"SELECT key, payload_json FROM requests WHERE key IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall()
        )
    return found


def _chunks(keys: Iterable[str]) -> Iterator[list[str]]:
    keys = iter(dict.fromkeys(keys))
    while chunk := list(islice(keys, _CHUNK)):
        yield chunk
