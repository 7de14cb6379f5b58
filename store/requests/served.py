"""Which model each reply said it came from, against the model asked for.

A pool's replica can serve another model than its siblings (a different checkpoint loaded
under the same URL scheme, a misconfigured proxy); its replies would be mixed into the
study unseen. Every reply's `model` field is stored (`responses.served_model`) and a reply
naming another model is flagged in the responses export and counted per replica here.
"""

from __future__ import annotations

import sqlite3
from typing import Any


def differs(asked: str | None, served: str | None) -> bool | None:
    """Whether a reply names another model than the one asked (None: nothing to compare).
    Case and surrounding spaces aside, the served name may carry a suffix of the asked one's
    (OpenAI answers "gpt-4o" with "gpt-4o-2024-08-06"); anything else is another model."""
    if not asked or not served:
        return None
    asked, served = asked.strip().lower(), served.strip().lower()
    return not (served == asked or served.startswith(asked))


def served_names(conn: sqlite3.Connection, study_id: int | None = None) -> list[dict[str, Any]]:
    """Per model, replica and served name: how many replies, and whether the name differs."""
    where, args = ("AND q.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    rows = conn.execute(
        "SELECT m.spec, m.name, p.endpoint, p.served_model, COUNT(*) FROM requests q "
        "JOIN responses p ON p.request_key = q.key JOIN models m ON m.id = q.model_id "
        f"WHERE p.served_model IS NOT NULL AND q.superseded = 0 {where} "
        "GROUP BY m.spec, m.name, p.endpoint, p.served_model ORDER BY m.spec, p.endpoint",
        args,
    ).fetchall()
    return [
        {
            "model": spec,
            "asked": name,
            "endpoint": endpoint,
            "served": served,
            "replies": count,
            "differs": differs(name, served),
        }
        for spec, name, endpoint, served, count in rows
    ]
