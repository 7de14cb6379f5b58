"""Replicas of one model (a pool of endpoints): each one's health as the running
coordinator sees it, and what each answered, for `workbench status` and the Run screen.

The coordinator writes its in-memory view every second or so, and once more when
the run ends (`record_health`); any other process reads it with the time it was
written, so an old view says how old it is.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.store.db import transaction, utc_now


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
    latency, and the last health the coordinator recorded (state, failed, in flight, when).
    Without a pool nothing is counted: displays poll this every second."""
    health = conn.execute(
        "SELECT h.model_id, m.spec, h.url, h.state, h.failed, h.in_flight, h.updated_at "
        "FROM endpoint_health h JOIN models m ON m.id = h.model_id ORDER BY m.spec, h.rowid"
    ).fetchall()
    if study_id is not None:
        used = {
            row[0]  # a model the study no longer has (its requests superseded) is not shown
            for row in conn.execute(
                "SELECT DISTINCT model_id FROM requests WHERE study_id = ? AND superseded = 0", (study_id,)
            )
        }
        health = [row for row in health if row[0] in used]
    if not health:
        return []
    pooled = sorted({row[0] for row in health})
    where, args = ("AND q.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    answered = {
        (row[0], row[1]): (row[2], row[3])
        for row in conn.execute(
            "SELECT q.model_id, p.endpoint, COUNT(*), AVG(p.latency_s) FROM requests q "
            "JOIN responses p ON p.request_key = q.key "
            f"WHERE q.model_id IN ({', '.join('?' * len(pooled))}) AND p.endpoint IS NOT NULL {where} "
            "GROUP BY q.model_id, p.endpoint",
            (*pooled, *args),
        )
    }
    out = []
    for model_id, spec, url, state, failed, in_flight, updated_at in health:
        count, latency = answered.get((model_id, url), (0, None))
        out.append(
            {
                "model": spec,
                "url": url,
                "answered": count,
                "mean_latency_s": round(latency, 3) if latency is not None else None,
                "state": state,
                "failed": failed,
                "in_flight": in_flight,
                "as_of": updated_at,
            }
        )
    return out
