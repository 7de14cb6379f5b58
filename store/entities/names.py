"""New spellings become entities: the one place an extraction, an import or a reviewer's
edit creates them (a spelling whose name an entity already has joins that entity)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from workbench.store.db import utc_now


def ensure_entities(conn: sqlite3.Connection, surfaces: Iterable[tuple[str, str]]) -> int:
    """Give every new surface key an entity named after its first surface form.
    Must run inside a transaction. Returns how many entities were created."""
    now = utc_now()
    created = 0
    known = {row[0] for row in conn.execute("SELECT surface_key FROM aliases")}
    names = {row[0]: row[1] for row in conn.execute("SELECT name, id FROM entities")}
    for surface, key in surfaces:
        if key in known:
            continue
        entity_id = names.get(surface)
        if entity_id is None:
            entity_id = conn.execute("INSERT INTO entities (name, created_at) VALUES (?, ?)", (surface, now)).lastrowid
            names[surface] = entity_id
            created += 1
        conn.execute("INSERT INTO aliases (surface_key, entity_id) VALUES (?, ?)", (key, entity_id))
        known.add(key)
        _apply_pending(conn, key, entity_id)
    return created


def _apply_pending(conn: sqlite3.Connection, key: str, entity_id: int) -> None:
    """Give a new surface the region and attributes imported earlier for its name."""
    row = conn.execute(
        "SELECT region, attributes_json FROM pending_attributes WHERE surface_key = ?", (key,)
    ).fetchone()
    if row is None:
        return
    current = conn.execute("SELECT region, attributes_json FROM entities WHERE id = ?", (entity_id,)).fetchone()
    if current[0] is None:  # a region set by a reviewer or a later import is never overwritten
        attributes = {**json.loads(row[1]), **json.loads(current[1])}
        conn.execute(
            "UPDATE entities SET region = ?, attributes_json = ? WHERE id = ?",
            (row[0], json.dumps(attributes), entity_id),
        )
