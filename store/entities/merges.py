"""Merged entities: where each went, and reusing a merged-away name.

A merge empties the entities it takes in: their spellings go to the one kept, their rows
stay (an undo gives the spellings back, and an id is never another entity's), with
`merged_into` saying where the spellings went. The name of an emptied entity stays taken, so
that undoing the merge brings it back as it was; a rename may take it for another entity
only when the reviewer confirms it (`reuse_merged`). The emptied row is then renamed
"Puma (merged into Nike, entity 7)", in the same decision, so undo takes back exactly that;
while that decision stands, nothing gives the emptied entity its spellings back.
"""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

from workbench.store.db import transaction
from workbench.store.entities import decisions as registry


class MergedAway(NamedTuple):
    id: int
    name: str
    live_id: int | None  # the entity its spellings are in now (None: they went nowhere)
    live_name: str | None


def merged_away(conn: sqlite3.Connection, name: str) -> MergedAway | None:
    """The entity named `name` when a merge emptied it (it holds no spelling); else None."""
    row = conn.execute(
        "SELECT e.id, e.name, m.live_id, m.live_name FROM entities e LEFT JOIN merged_entities m ON m.id = e.id "
        "WHERE e.name = ? AND NOT EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)",
        (name,),
    ).fetchone()
    return MergedAway(*row) if row else None


def live_entity_count(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT COUNT(*) FROM live_entities").fetchone()[0]


def merged_records(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every emptied entity: its name, the entity it was merged into and where its spellings are now."""
    return [
        {"id": r[0], "name": r[1], "merged_into": r[2], "live_id": r[3], "live_name": r[4]}
        for r in conn.execute(
            "SELECT id, name, merged_into, live_id, live_name FROM merged_entities ORDER BY name, id"
        ).fetchall()
    ]


def _retired_name(conn: sqlite3.Connection, gone: MergedAway) -> str:
    """A name for the emptied row that no entity has: it says where the spellings went."""
    base = f"{gone.name} (merged into {gone.live_name}, entity {gone.id})"
    name, n = base, 1
    while conn.execute("SELECT 1 FROM entities WHERE name = ?", (name,)).fetchone():
        n += 1
        name = f"{base} {n}"
    return name


def rename(
    conn: sqlite3.Connection,
    entity: str,
    new_name: str,
    *,
    who: str,
    why: str | None = None,
    reuse_merged: bool = False,
) -> int:
    """Rename an entity (see `entities.rename`). A name a merge emptied is refused unless
    `reuse_merged` confirms it: then the emptied entity gives its name up in the same
    decision (logged with who, when and why; undo takes back exactly that)."""
    with transaction(conn):
        wanted = " ".join(new_name.split())
        gone = merged_away(conn, wanted) if wanted else None
        if gone is None:
            return registry.rename(conn, entity, new_name, who=who, why=why)
        entity_id, old = registry.find_entity(conn, entity)
        where = f"merged into {gone.live_name}" if gone.live_name else "emptied by a merge"
        if not reuse_merged:
            raise registry.DecisionError(
                f"{wanted!r} is the name of an entity {where}; renaming {old!r} to it needs confirmation"
                " (--reuse-merged), and undoing that merge is then refused while the rename stands"
            )
        retired = _retired_name(conn, gone)
        changes = [
            {"op": "name", "entity": gone.id, "from": wanted, "to": retired, "retire": True},
            {"op": "name", "entity": entity_id, "from": old, "to": wanted},
        ]
        summary = f"rename {old} to {wanted}, reusing the name of the {wanted} {where}"
        return registry.record_decision(conn, "rename", summary, changes, who, why)
