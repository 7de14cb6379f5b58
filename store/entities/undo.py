"""Taking an entity decision back and making it again, only while the store is as the
decision (or its undo) left it; otherwise refused, naming what changed it since."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.db import transaction
from workbench.store.entities.changes import DecisionError, apply_change
from workbench.store.entities.retired import retired_blocker
from workbench.store.review.reviewer_names import placeholders, spellings_of

ENTITY_ACTIONS = ("merge", "split", "rename", "forbid", "region", "attributes")


def _state(conn: sqlite3.Connection, change: dict[str, Any]) -> Any:
    """What the store holds now for the thing one change is about."""
    op = change["op"]
    if op == "alias":
        row = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (change["key"],)).fetchone()
        return row[0] if row else None
    if op == "name":
        row = conn.execute("SELECT name FROM entities WHERE id = ?", (change["entity"],)).fetchone()
        return row[0] if row else None
    if op == "create":
        return conn.execute("SELECT 1 FROM entities WHERE id = ?", (change["entity"],)).fetchone() is not None
    if op == "forbid":
        return (
            conn.execute(
                "SELECT 1 FROM forbidden_pairs WHERE entity_a = ? AND entity_b = ?", (change["a"], change["b"])
            ).fetchone()
            is not None
        )
    if op == "region":
        row = conn.execute("SELECT region FROM entities WHERE id = ?", (change["entity"],)).fetchone()
        return row[0] if row else None
    raise DecisionError(f"unknown change {op!r}")


def _expected(change: dict[str, Any], forward: bool) -> Any:
    """What the store holds for a change's subject once it is applied (forward) or taken back."""
    op = change["op"]
    if op in ("create", "forbid"):
        # An entity is never deleted (its id could be taken by another), so it stays after undo.
        return True if forward or op == "create" else False
    return change["to"] if forward else change["from"]


def _touches(change: dict[str, Any], other: dict[str, Any]) -> bool:
    subject = {"alias": "key", "name": "entity", "create": "entity", "region": "entity"}
    if change["op"] == "forbid" or other["op"] == "forbid":
        return change["op"] == other["op"] == "forbid" and (change["a"], change["b"]) == (other["a"], other["b"])
    kind = {"name": "entity-name", "create": "entity-name", "region": "entity-region", "alias": "alias"}
    return kind[change["op"]] == kind[other["op"]] and change[subject[change["op"]]] == other[subject[other["op"]]]


def _blocker(
    conn: sqlite3.Connection, decision_id: int, changes: list[dict[str, Any]], forward: bool, undone_order: int = 0
) -> str | None:
    """Why a decision cannot be taken back (forward=False) or made again (forward=True): the
    first change whose subject no longer is as the decision left it, and what changed it.
    Taking back, only a later decision can have changed it (an earlier one still standing
    is what it changed, not a change since); making again, any decision since the undo."""
    since = decision_id if not forward else 0
    for change in changes:
        if change["op"] == "name":  # a name is one entity's: can it be taken (back)?
            wanted = change["to"] if forward else change["from"]
            holder = conn.execute(
                "SELECT id FROM entities WHERE name = ? AND id != ?", (wanted, change["entity"])
            ).fetchone()
            if holder is not None and not any(c["op"] == "name" and c["entity"] == holder[0] for c in changes):
                for row in conn.execute(
                    "SELECT id, who, summary, changes_json FROM entity_decisions WHERE id != ? AND id > ? "
                    "AND undone = 0 ORDER BY id DESC",
                    (decision_id, since),
                ):
                    if any(
                        c["op"] in ("name", "create") and c["entity"] == holder[0]
                        for c in json.loads(row["changes_json"])
                    ):
                        return f"#{row['id']} by {row['who']} ({row['summary']}) took the name {wanted!r} since"
                return f"an import or an extraction gave the name {wanted!r} to another entity since"
        if _state(conn, change) == _expected(change, not forward):
            continue
        for row in conn.execute(
            "SELECT id, who, summary, changes_json FROM entity_decisions WHERE id != ? AND id > ? AND undone = 0 "
            "ORDER BY id DESC",
            (decision_id, since),
        ):
            if any(_touches(change, other) for other in json.loads(row["changes_json"])):
                return f"#{row['id']} by {row['who']} ({row['summary']}) changed it since"
        if undone_order:  # making again: another decision taken back after this one was
            for row in conn.execute(
                "SELECT id, who, summary, changes_json FROM entity_decisions WHERE undone > ? ORDER BY undone DESC",
                (undone_order,),
            ):
                if any(_touches(change, other) for other in json.loads(row["changes_json"])):
                    return f"undoing #{row['id']} by {row['who']} ({row['summary']}) changed it since"
        return "an import or an extraction changed it since"
    return None


def _apply_back(conn: sqlite3.Connection, change: dict[str, Any]) -> None:
    if change["op"] == "create":
        return  # the entity stays (empty or holding what an import gave it): ids are never reused
    apply_change(conn, change, forward=False)


def _mine(conn: sqlite3.Connection, who: str | None) -> tuple[str, tuple[str, ...]]:
    """The SQL that keeps `who`'s decisions (every decision when None): `who` as any spelling of
    the same person (store/review/reviewer_names.py), so `--who ANN` undoes what `ann` decided."""
    if who is None:
        return "", ()
    names = spellings_of(conn, "entity_decisions", "who", who)
    return f"AND who IN ({placeholders(names)})", tuple(names)


def undo(
    conn: sqlite3.Connection, who: str | None = None, actions: tuple[str, ...] = ENTITY_ACTIONS
) -> dict[str, Any] | None:
    """Take back `who`'s latest active decision of these kinds (anyone's when `who` is None),
    only while the store still is as that decision left it; otherwise refused, naming the later
    decision that changed it. None when there is nothing to undo."""
    with transaction(conn):
        mine, args = _mine(conn, who)
        kinds = ",".join("?" * len(actions))
        row = conn.execute(
            f"SELECT id, summary, changes_json FROM entity_decisions WHERE undone = 0 {mine} "
            f"AND action IN ({kinds}) ORDER BY id DESC LIMIT 1",
            (*args, *actions),
        ).fetchone()
        if row is None:
            return None
        changes = json.loads(row["changes_json"])
        blocker = _blocker(conn, row["id"], changes, forward=False) or retired_blocker(conn, changes, False)
        if blocker:
            raise DecisionError(f"cannot undo #{row['id']} ({row['summary']}): {blocker}")
        for change in reversed(changes):
            _apply_back(conn, change)
        order = conn.execute("SELECT COALESCE(MAX(undone), 0) + 1 FROM entity_decisions").fetchone()[0]
        conn.execute("UPDATE entity_decisions SET undone = ? WHERE id = ?", (order, row["id"]))
        return {"id": row["id"], "summary": row["summary"]}


def redo(
    conn: sqlite3.Connection, who: str | None = None, actions: tuple[str, ...] = ENTITY_ACTIONS
) -> dict[str, Any] | None:
    """Make again `who`'s most recently undone decision of these kinds, when the store is still
    as its undo left it; otherwise refused, saying what changed it. None when nothing to redo."""
    with transaction(conn):
        mine, args = _mine(conn, who)
        kinds = ",".join("?" * len(actions))
        row = conn.execute(
            f"SELECT id, summary, changes_json, undone FROM entity_decisions WHERE undone > 0 {mine} "
            f"AND action IN ({kinds}) ORDER BY undone DESC LIMIT 1",
            (*args, *actions),
        ).fetchone()
        if row is None:
            return None
        changes = json.loads(row["changes_json"])
        standing = [c for c in changes if c["op"] != "create"]
        blocker = _blocker(conn, row["id"], standing, True, row["undone"]) or retired_blocker(conn, changes, True)
        if blocker:
            raise DecisionError(f"cannot redo #{row['id']} ({row['summary']}): {blocker}")
        for change in changes:
            if change["op"] == "create" and _state(conn, change):
                continue  # kept by its undo
            apply_change(conn, change, forward=True)
        conn.execute("UPDATE entity_decisions SET undone = 0 WHERE id = ?", (row["id"],))
        return {"id": row["id"], "summary": row["summary"]}
