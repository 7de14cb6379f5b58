"""The primitive changes an entity decision is made of (an alias moved, an entity renamed,
created or given a region, a pair forbidden), each applied forwards or backwards: what
store/entities/decisions.py records and store/entities/undo.py takes back and makes again."""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.errors import DecisionError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.db import utc_now


def apply_change(conn: sqlite3.Connection, change: dict[str, Any], forward: bool) -> None:
    op = change["op"]
    if op == "alias":
        target = change["to"] if forward else change["from"]
        conn.execute("UPDATE aliases SET entity_id = ? WHERE surface_key = ?", (target, change["key"]))
    elif op == "name":
        conn.execute(
            "UPDATE entities SET name = ? WHERE id = ?", (change["to"] if forward else change["from"], change["entity"])
        )
    elif op == "create":
        if forward:
            conn.execute(
                "INSERT INTO entities (id, name, region, attributes_json, created_at) VALUES (?, ?, ?, ?, ?)",
                (change["entity"], change["name"], change.get("region"), change.get("attributes", "{}"), utc_now()),
            )
        else:
            conn.execute("DELETE FROM entities WHERE id = ?", (change["entity"],))
    elif op == "region":
        conn.execute(
            "UPDATE entities SET region = ? WHERE id = ?",
            (change["to"] if forward else change["from"], change["entity"]),
        )
    elif op == "forbid":
        if forward:
            conn.execute(
                "INSERT OR IGNORE INTO forbidden_pairs (entity_a, entity_b, decision_id) VALUES (?, ?, ?)",
                (change["a"], change["b"], change.get("decision")),
            )
        else:
            conn.execute("DELETE FROM forbidden_pairs WHERE entity_a = ? AND entity_b = ?", (change["a"], change["b"]))
