"""Requests answered elsewhere: a method's import stores them in the queue as done, so that
status, exports and metrics treat an imported study like one the workbench ran.

Keys are planned as `queue.plan` plans them (each study owns its keys, see `queue.own_keys`);
an imported request has no response: the method keeps what the file gave in its own tables.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from workbench.store.db import transaction, utc_now
from workbench.store.requests.queue import PlannedRequest, own_keys, request_rows


def plan_imported(
    conn: sqlite3.Connection, study_id: int, model_id: int, requests: Iterable[PlannedRequest]
) -> dict[str, str]:
    """Store each request as done; a request imported again keeps its row and takes the new
    payload (the file it came from, the prompt text it gave). Returns each planned key's
    key in the store, the one the method's own rows must point at."""
    requests = list(requests)
    now = utc_now()
    with transaction(conn):
        owned = own_keys(conn, study_id, [r.key for r in requests])
        conn.executemany(
            "INSERT INTO requests (key, study_id, model_id, stage, question_id, repetition, seed, payload_json, "
            "parent_key, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET payload_json = excluded.payload_json, updated_at = excluded.updated_at",
            request_rows(owned, study_id, model_id, requests, now),
        )
    return owned


def held_keys(conn: sqlite3.Connection, study_id: int, keys: Iterable[str]) -> set[str]:
    """Which of these keys the study already holds requests under."""
    keys = list(dict.fromkeys(keys))
    held: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        held.update(
            key
            for (key,) in conn.execute(
                f"SELECT key FROM requests WHERE study_id = ? AND key IN ({','.join('?' * len(chunk))})",
                (study_id, *chunk),
            )
        )
    return held
