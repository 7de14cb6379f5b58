"""The lapses of adjudications, as decisions of the log (store/decisions/log.py).

An adjudication settles the verdicts it was given on (`verdicts.settled`); a party's verdict
after it lapses it, and so does a party taking back the verdict it settled (store/review/base.py,
`in_force`). Each lapse is logged as the decision of the party whose verdict caused it: who,
when, the verdict (its why: which one), the adjudication's list before and the party's after;
undone when that verdict was taken back (the adjudication was then in force again).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from workbench.store.review.base import IN_SCOPE, judges, scope_of, settled_ids
from workbench.store.review.reviewer_names import reviewer_key


def _record(a: Any, study: str, who: str, at: str, why: str, after: str, ident: int, state: str) -> dict[str, Any]:
    parties = ", ".join(json.loads(a["adjudicates"]))
    return {
        "kind": "adjudication lapse",
        "id": ident,
        "action": "lapse",
        "summary": f"{a['reviewer']}'s adjudication (#{a['id']}) of {parties} lapsed: the list returns to the queue",
        "who": who,
        "at": at,
        "why": why,
        "study": study,
        "scope": json.dumps(
            {k: a[k] for k in ("model", "topic", "question", "repetition", "answer_key")}, ensure_ascii=False
        ),
        "before": a["after_json"],
        "after": after,
        "state": state,
    }


def lapses(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    """Every lapse of every standing adjudication, by the party verdict (or undo) that caused it."""
    for a in conn.execute(
        "SELECT v.*, s.name AS study FROM verdicts v JOIN studies s ON s.id = v.study_id "
        "WHERE v.adjudicates IS NOT NULL AND v.undone = 0 ORDER BY v.id"
    ).fetchall():
        scope = conn.execute(f"SELECT * FROM verdicts WHERE {IN_SCOPE} ORDER BY id", scope_of(a)).fetchall()
        settled = settled_ids(a, [v for v in scope if not v["undone"] or v["id"] > a["id"]])
        for who, verdict_id in settled.items():
            key = reviewer_key(who)
            mine = [v for v in scope if reviewer_key(v["reviewer"]) == key and judges(v, a["answer_key"])]
            previous = None
            for v in (v for v in mine if v["id"] > a["id"]):  # a change while the one before it was taken back
                if previous is None or previous["undone"]:
                    why = f"{v['reviewer']}'s {v['decision']} (#{v['id']}) after the adjudication"
                    state = "undone" if v["undone"] else "active"
                    yield _record(a, a["study"], v["reviewer"], v["at"], why, v["after_json"], v["id"], state)
                previous = v
            took_back = next((v for v in mine if v["id"] == verdict_id and v["undone"] and v["undone_at"]), None)
            if took_back is not None and took_back["undone_at"] >= a["at"]:
                why = f"{took_back['reviewer']} took back the verdict it settled (#{took_back['id']})"
                yield _record(
                    a, a["study"], took_back["reviewer"], took_back["undone_at"], why, "[]", verdict_id, "active"
                )
