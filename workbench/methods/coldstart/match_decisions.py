"""Cold-start's catalog-match corrections as decisions: the rows `export --what decisions` writes
for them, and making one again in another store (`workbench import decisions`), found by its list
position (model, seed, persona, rank) and the item's text there. A correction taken back in the
other store is not made again; one already here is not recorded twice, nor made again once taken
back here; a position this store lacks refuses the file, naming the line."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from workbench.errors import InputError
from workbench.store.decisions.portable import here_state
from workbench.store.review.reviewer_names import clean_reviewer

POSITION = ("model", "seed", "persona_category", "persona", "rank")


class MatchCorrections:
    """The decision kind "catalog match" (the method base's `decision_kinds`)."""

    kind = "catalog match"

    def records(self, conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
        return _match_corrections(conn)

    def replay(
        self, conn: sqlite3.Connection, where: str, record: dict[str, Any], study_id: Callable[[], int], refused: list
    ) -> str:
        return replay_match(conn, where, record, study_id, refused)


def _match_corrections(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    from workbench.store.requests.studies import study_names_by_id

    names = study_names_by_id(conn)
    for row in conn.execute("SELECT c.* FROM match_corrections c ORDER BY c.id"):
        if row["study_id"] not in names:
            continue
        yield {
            "kind": "catalog match",
            "id": row["id"],
            "action": "match",
            "summary": f"{row['surface']}: {row['old_item']} -> {row['new_item'] or 'not in catalog'}",
            "who": row["reviewer"],
            "at": row["at"],
            "why": None,
            "study": names[row["study_id"]],
            "scope": json.dumps(
                {k: row[k] for k in ("model", "seed", "persona_category", "persona", "rank", "surface")},
                ensure_ascii=False,
            ),
            "before": row["old_item"],
            "after": row["new_item"],
            "state": "undone" if row["undone"] else "active",
        }


def replay_match(
    conn: sqlite3.Connection, where: str, record: dict[str, Any], study_of: Callable[[], int], refused: list
) -> str:
    """One catalog-match correction: the ranked item pointed at the entry it was (or none)."""
    if record.get("state") != "active":
        return "undone"
    try:
        scope = json.loads(record["scope"])
        position = tuple(scope[k] for k in POSITION)
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{where}: the correction's `scope` names no model, seed, persona and rank") from None
    who = clean_reviewer(str(record.get("who") or ""), source=where)
    study_id = study_of()
    row = conn.execute(
        "SELECT item, surface FROM rankings WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
        "AND persona = ? AND rank = ?",
        (study_id, *position),
    ).fetchone()
    if row is None:
        raise InputError(f"{where}: no ranked item {'/'.join(map(str, position))} here (run the same study first)")
    here = conn.execute(
        "SELECT MIN(undone) FROM match_corrections WHERE study_id = ? AND model = ? AND seed = ? "
        "AND persona_category = ? AND persona = ? AND rank = ? AND reviewer = ? AND at = ?",
        (study_id, *position, who, record.get("at")),
    ).fetchone()[0]
    if here is not None:
        return here_state(here)
    if row[1] != scope.get("surface"):
        refused.append(
            f"{where}: {who}'s catalog match at {'/'.join(map(str, position))} refused (the item here "
            "reads otherwise); nothing recorded for it, the file keeps it"
        )
        return "refused"
    conn.execute(
        "INSERT INTO match_corrections (study_id, model, seed, persona_category, persona, rank, surface, old_item, "
        "new_item, reviewer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (study_id, *position, row[1], row[0], record.get("after"), who, record.get("at")),
    )
    conn.execute(
        "UPDATE rankings SET item = ? WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
        "AND persona = ? AND rank = ?",
        (record.get("after"), study_id, *position),
    )
    return "correction"
