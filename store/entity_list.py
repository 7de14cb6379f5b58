"""Every entity as a curator browses it: name, mentions, region and the spellings it stands for."""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple


class EntityRow(NamedTuple):
    name: str
    mentions: int
    region: str | None
    spellings: list[str]  # the surface forms mentioned, most frequent first


def entity_rows(conn: sqlite3.Connection) -> list[EntityRow]:
    """Every entity that holds a surface form (an entity emptied by a merge keeps its row
    for undo but is not listed), most mentioned first, then by name."""
    spellings: dict[int, list[str]] = {}
    for entity_id, surface in conn.execute(
        "SELECT a.entity_id, m.surface FROM mentions m JOIN aliases a ON a.surface_key = m.surface_key "
        "GROUP BY a.entity_id, m.surface ORDER BY a.entity_id, COUNT(*) DESC, m.surface"
    ):
        spellings.setdefault(entity_id, []).append(surface)
    found = [
        EntityRow(name, mentions, region, spellings.get(entity_id, []))
        for entity_id, name, region, mentions in conn.execute(
            "SELECT e.id, e.name, e.region, (SELECT COUNT(*) FROM mentions m JOIN aliases a "
            "ON a.surface_key = m.surface_key WHERE a.entity_id = e.id) FROM entities e "
            "WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)"
        )
    ]
    return sorted(found, key=lambda r: (-r.mentions, r.name))


def matching(rows: list[EntityRow], text: str) -> list[EntityRow]:
    """The rows whose name or one of whose spellings holds `text`, case ignored (all when blank)."""
    needle = text.strip().casefold()
    if not needle:
        return rows
    return [r for r in rows if needle in r.name.casefold() or any(needle in s.casefold() for s in r.spellings)]


def own_decisions(conn: sqlite3.Connection, who: str) -> list[dict[str, Any]]:
    """`who`'s entity decisions from the decision log, latest first, each with its state."""
    from workbench.store.decision_log import decision_log

    return [d for d in decision_log(conn) if d["kind"] == "entity" and d["who"] == who][::-1]
