"""Replicas of one model (a pool of endpoints): each one's health as the running
coordinator sees it, and what each answered, for `workbench status` and the Run screen.

The coordinator writes its in-memory view every second or so, and once more when
the run ends (`record_health`); any other process reads it with the time it was
written, so an old view says how old it is.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.store.db import utc_now
from workbench.store.queue import transaction


def record_health(conn: sqlite3.Connection, model_id: int, endpoints: list[dict[str, Any]]) -> None:
    now = utc_now()
    with transaction(conn):
        # Replicas no longer in the spec are gone from the pool: their rows would read as live.
        current = [e["url"] for e in endpoints]
        conn.execute(
            f"DELETE FROM endpoint_health WHERE model_id = ? AND url NOT IN ({', '.join('?' * len(current))})",
            (model_id, *current),
        )
        conn.executemany(
            "INSERT INTO endpoint_health (model_id, url, state, done, failed, in_flight, latency_s, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (model_id, url) DO UPDATE SET state = excluded.state, "
            "done = excluded.done, failed = excluded.failed, in_flight = excluded.in_flight, "
            "latency_s = excluded.latency_s, updated_at = excluded.updated_at",
            [
                (
                    model_id,
                    e["url"],
                    e["state"],
                    e["done"],
                    e["failed"],
                    e["in_flight"],
                    e["latency_s"],
                    now,
                )
                for e in endpoints
            ],
        )


def endpoint_records(conn: sqlite3.Connection, study_id: int | None = None) -> list[dict[str, Any]]:
    """Per model and replica: answers stored from it (in this study, or all), their mean
    latency, and the last health the coordinator recorded (state, failed, in flight, when)."""
    where, args = ("AND q.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    answered = {
        (row[0], row[1]): (row[2], row[3])
        for row in conn.execute(
            "SELECT q.model_id, p.endpoint, COUNT(*), AVG(p.latency_s) FROM responses p "
            f"JOIN requests q ON q.key = p.request_key WHERE p.endpoint IS NOT NULL {where} "
            "GROUP BY q.model_id, p.endpoint",
            args,
        )
    }
    models = (
        {row[0] for row in conn.execute("SELECT DISTINCT model_id FROM requests WHERE study_id = ?", (study_id,))}
        if study_id is not None
        else None
    )
    out = []
    for row in conn.execute(
        "SELECT h.model_id, m.spec, h.url, h.state, h.failed, h.in_flight, h.updated_at "
        "FROM endpoint_health h JOIN models m ON m.id = h.model_id ORDER BY m.spec, h.rowid"
    ):
        if models is not None and row[0] not in models:
            continue
        count, latency = answered.get((row[0], row[2]), (0, None))
        out.append(
            {
                "model": row[1],
                "url": row[2],
                "answered": count,
                "mean_latency_s": round(latency, 3) if latency is not None else None,
                "state": row[3],
                "failed": row[4],
                "in_flight": row[5],
                "as_of": row[6],
            }
        )
    return out
