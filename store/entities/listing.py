"""Every entity as a curator browses it: name, mentions, region and the spellings it stands for."""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

from workbench.store.entities.counts import entity_spellings


class EntityRow(NamedTuple):
    name: str
    mentions: int
    region: str | None
    spellings: list[str]  # the surface forms mentioned, most frequent first


def entity_rows(conn: sqlite3.Connection) -> list[EntityRow]:
    """Every entity that holds a surface form (an entity emptied by a merge keeps its row
    for undo but is not listed), most mentioned first, then by name. Mentions are every
    mention row of its spellings, counted from an index (store/entities/counts.py)."""
    spellings = entity_spellings(conn)
    found = []
    for entity_id, name, region in conn.execute(
        "SELECT e.id, e.name, e.region FROM entities e WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)"
    ):
        mine = spellings.get(entity_id, [])
        found.append(EntityRow(name, sum(n for _, n in mine), region, [s for s, _ in mine]))
    return sorted(found, key=lambda r: (-r.mentions, r.name))


def matching(rows: list[EntityRow], text: str) -> list[EntityRow]:
    """The rows whose name or one of whose spellings holds `text`, case ignored (all when blank)."""
    needle = text.strip().casefold()
    if not needle:
        return rows
    return [r for r in rows if needle in r.name.casefold() or any(needle in s.casefold() for s in r.spellings)]


def own_decisions(conn: sqlite3.Connection, who: str) -> list[dict[str, Any]]:
    """`who`'s entity decisions from the decision log, latest first, each with its state: `who`
    as any spelling of the same person (store/review/reviewer_names.py), as undo takes them back."""
    from workbench.store.decisions.log import decision_log
    from workbench.store.review.reviewer_names import same_reviewer

    return [d for d in decision_log(conn) if d["kind"] == "entity" and same_reviewer(d["who"], who)][::-1]
