"""What a report's recipe must carry besides the study file: whether a person decided
anything about the study (verdicts on its lists, entity decisions) and whether its entities
have regions, which a new database gets only from `workbench import entities`."""

from __future__ import annotations

import sqlite3


def has_decisions(conn: sqlite3.Connection, study_id: int) -> bool:
    """A verdict on the study's lists, or any entity decision (entities are every study's)."""
    return (
        conn.execute(
            "SELECT 1 FROM verdicts WHERE study_id = ? UNION ALL SELECT 1 FROM entity_decisions LIMIT 1", (study_id,)
        ).fetchone()
        is not None
    )


def regions_named(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The regions of the entities the study's lists name (they drive its log-odds), sorted."""
    return [
        r
        for (r,) in conn.execute(
            "SELECT DISTINCT e.region FROM mention_lists l JOIN mentions m ON m.list_id = l.id "
            "JOIN aliases a ON a.surface_key = m.surface_key JOIN entities e ON e.id = a.entity_id "
            "WHERE l.study_id = ? AND e.region IS NOT NULL ORDER BY e.region",
            (study_id,),
        )
    ]
