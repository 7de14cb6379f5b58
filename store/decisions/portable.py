"""What a decision needs to be made again in another store (`import decisions`), named by
values every store of the same study shares, never by this store's row ids.

A verdict: its decision, blindness, the adjudication it is (the parties, whose list it took,
their verdicts it settled by this log's ids) and a SHA-256 of the answer the reviewer read, so
a replay onto another run can tell an answer asked the same from one that reads otherwise. An
entity decision: its changes with each entity named as it was named just before the decision
(entity ids differ between stores; names and spellings do not), an entity the decision itself
created marked as such. Written by `export --what decisions` in the column `replay`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from workbench.store.errors import InputError


def answer_sha256(conn: sqlite3.Connection, response_key: str | None) -> str | None:
    """The SHA-256 of an answer's text (None: no answer stored under that key, an import)."""
    if not response_key:
        return None
    row = conn.execute("SELECT text FROM responses WHERE request_key = ?", (response_key,)).fetchone()
    return hashlib.sha256(row[0].encode("utf-8")).hexdigest() if row else None


def verdict_replay(conn: sqlite3.Connection, row: sqlite3.Row) -> str:
    return json.dumps(
        {
            "decision": row["decision"],
            "blind": bool(row["blind"]),
            "adjudicates": json.loads(row["adjudicates"]) if row["adjudicates"] else None,
            "took": row["took"],
            "settled": json.loads(row["settled"]) if row["settled"] else None,
            "sample": row["sample"],
            "undone_at": row["undone_at"],
            "answer_sha256": answer_sha256(conn, row["answer_key"]),
        },
        ensure_ascii=False,
    )


def replay_of(where: str, record: dict[str, Any]) -> dict[str, Any]:
    try:
        replay = json.loads(record.get("replay") or "")
    except (TypeError, ValueError):
        replay = None
    if not isinstance(replay, dict):
        raise InputError(
            f"{where}: no `replay` for this decision (the export of an older version): export the decisions "
            "again with `workbench export --what decisions --format json`"
        )
    return replay


def _entity_ids(change: dict[str, Any]) -> list[int]:
    op = change["op"]
    if op == "alias":
        return [change["from"], change["to"]]
    if op == "forbid":
        return [change["a"], change["b"]]
    return [change["entity"]]


def entity_replays(conn: sqlite3.Connection) -> dict[int, str]:
    """Per standing entity decision (by id): its changes as `replay` writes them. A name is the
    one the entity had just before the decision: today's, with every standing name change since
    (this decision's own included) taken back, latest first."""
    rows = conn.execute("SELECT id, changes_json FROM entity_decisions WHERE undone = 0 ORDER BY id").fetchall()
    names = {i: n for i, n in conn.execute("SELECT id, name FROM entities")}
    out: dict[int, str] = {}
    for decision_id, changes_json in reversed(rows):
        changes = json.loads(changes_json)
        for change in reversed(changes):
            if change["op"] == "name":
                names[change["entity"]] = change["from"]
        created = {c["entity"] for c in changes if c["op"] == "create"}
        refs = {
            str(i): {"created": True} if i in created else {"name": names.get(i)}
            for change in changes
            for i in _entity_ids(change)
        }
        out[decision_id] = json.dumps({"changes": changes, "entities": refs}, ensure_ascii=False)
    return out


def here_state(undone: int) -> str:
    """A correction this store holds: imported before, then taken back here or not. An undo here
    is this store's decision: importing the file again does not bring the correction back."""
    return "present" if undone == 0 else "kept undone"
