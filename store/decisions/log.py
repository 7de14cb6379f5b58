"""Every human decision in one log: who, when, why, what it is about, before and after.

Each kind keeps its own table (its undo needs its own shape), but what a decision is
about is always named by values that outlive the rows they judged: a verdict by study,
model, topic, question and repetition; an entity decision by the names and spellings it
changed; a match correction by its list position; a probe label by its prompt's key.
`export --what decisions` writes this log.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from workbench.store.decisions import method_kinds
from workbench.store.decisions.portable import entity_replays, verdict_replay
from workbench.store.review.adjudication_log import lapses

FIELDS = [
    *("kind", "id", "action", "summary", "who", "at", "why", "study", "scope", "before", "after", "state"),
    "replay",  # what `import decisions` needs to make it again in another store (decision_portable)
]


def _entity_decisions(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    replays = entity_replays(conn)  # what `import decisions` makes again: the standing ones
    for row in conn.execute("SELECT * FROM entity_decisions ORDER BY id"):
        changes = json.loads(row["changes_json"])
        yield {
            "kind": "entity",
            "id": row["id"],
            "action": row["action"],
            "summary": row["summary"],
            "who": row["who"],
            "at": row["at"],
            "why": row["why"],
            "study": None,
            "scope": "entities",
            "before": json.dumps([{k: v for k, v in c.items() if k != "to"} for c in changes], ensure_ascii=False),
            "after": json.dumps([{k: v for k, v in c.items() if k != "from"} for c in changes], ensure_ascii=False),
            "state": "active" if row["undone"] == 0 else "undone",
            "replay": replays.get(row["id"]),
        }


def _verdicts(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    for row in conn.execute(
        "SELECT v.*, s.name AS study FROM verdicts v JOIN studies s ON s.id = v.study_id ORDER BY v.id"
    ):
        yield {
            "kind": "verdict",
            "id": row["id"],
            "action": row["decision"]
            + (" (blind)" if row["blind"] else "")
            + (f" (adjudication of {', '.join(json.loads(row['adjudicates']))})" if row["adjudicates"] else ""),
            "summary": f"{row['decision']} {row['after_json']}",
            "who": row["reviewer"],
            "at": row["at"],
            "why": row["why"],
            "study": row["study"],
            "scope": json.dumps(
                {k: row[k] for k in ("model", "topic", "question", "repetition", "answer_key")}, ensure_ascii=False
            ),
            "before": row["before_json"],
            "after": row["after_json"],
            "state": "undone" if row["undone"] else "active",
            "replay": verdict_replay(conn, row),
        }


def decision_log(conn: sqlite3.Connection, study: str | None = None) -> list[dict[str, Any]]:
    """Every decision of every kind, oldest first (entity decisions belong to no one study)."""
    records = [
        *_entity_decisions(conn),
        *_verdicts(conn),
        *lapses(conn),  # an adjudication lapsed by a party's verdict: that party's decision
        *(record for kind in method_kinds.kinds().values() for record in kind.records(conn)),  # the methods'
    ]
    if study is not None:
        records = [r for r in records if r["study"] in (None, study)]
    return sorted(records, key=lambda r: (r["at"], r["kind"], r["id"]))
