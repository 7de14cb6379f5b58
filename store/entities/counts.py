"""How often each entity is mentioned, and by which spellings: counted from an index alone.

The Entities screen lists every entity with its mentions and spellings, and suggests merges
among the entities the lists that count now mention; it reads both again whenever the store
changes elsewhere. Counting through a join of every mention row to its alias (and its list)
took seconds at a million rows. Here the mentions are counted per spelling (surface key and
surface) over the covering index `mentions_spelling` (migration 28), a pass over the index
that never visits the table, and summed per entity in Python: a few thousand spellings, not a
million rows. Lists that no longer count (their answer's request superseded) are taken off by
reading their own mentions only, through the requests that superseded them: usually none.
"""

from __future__ import annotations

import sqlite3

from workbench.store.current_lists import counts_now

# The mentions of the lists that count no more: from the superseded requests to their lists
# (by the response key's index) and their mentions (by the list's), never a scan of the mentions
# (CROSS JOIN keeps that order: without statistics the planner would start from the mentions).
_NOT_NOW = """
    SELECT m.surface_key, m.surface, COUNT(*) FROM requests r
    CROSS JOIN mention_lists l ON l.response_key = r.key
    CROSS JOIN mentions m ON m.list_id = l.id
    WHERE r.superseded AND r.key IS NOT NULL
    GROUP BY m.surface_key, m.surface
"""


def spelling_counts(conn: sqlite3.Connection, now_only: bool = False) -> dict[tuple[str, str], int]:
    """Mentions per (surface key, surface): every mention row, or (now_only) those of the
    lists that count now (`current_lists.counts_now`); a spelling mentioned only in lists
    that no longer count is left out."""
    counts = {
        (key, surface): n
        for key, surface, n in conn.execute(
            "SELECT surface_key, surface, COUNT(*) FROM mentions GROUP BY surface_key, surface"
        )
    }
    if now_only:
        for key, surface, n in conn.execute(_NOT_NOW):
            counts[(key, surface)] -= n
        counts = {spelling: n for spelling, n in counts.items() if n}
    return counts


def entity_spellings(conn: sqlite3.Connection, now_only: bool = False) -> dict[int, list[tuple[str, int]]]:
    """Each entity's spellings mentioned (see `spelling_counts`) with their counts, most
    mentioned first, then by spelling; an entity none of whose spellings is mentioned is absent."""
    owner = dict(conn.execute("SELECT surface_key, entity_id FROM aliases").fetchall())
    found: dict[int, list[tuple[str, int]]] = {}
    for (key, surface), n in spelling_counts(conn, now_only).items():
        entity_id = owner.get(key)
        if entity_id is not None:
            found.setdefault(entity_id, []).append((surface, n))
    for spellings in found.values():
        spellings.sort(key=lambda s: (-s[1], s[0]))
    return found


def mentioned_entities(conn: sqlite3.Connection, study: str | None = None) -> list[tuple[str, int]]:
    """(name, mentions) of every entity mentioned in the lists that count now, in one study or
    in any, by name."""
    if study is not None:  # one study's lists: through the join (the CLI's `--study`, read once)
        return [
            (r[0], r[1])
            for r in conn.execute(
                f"""
                SELECT e.name, COUNT(*) FROM mentions m
                JOIN mention_lists l ON l.id = m.list_id
                JOIN aliases a ON a.surface_key = m.surface_key
                JOIN entities e ON e.id = a.entity_id
                WHERE {counts_now("l")} AND l.study_id = (SELECT id FROM studies WHERE name = ?)
                GROUP BY e.id ORDER BY e.name
                """,
                (study,),
            )
        ]
    spellings = entity_spellings(conn, now_only=True)
    return [
        (name, sum(n for _, n in spellings[entity_id]))
        for entity_id, name in conn.execute("SELECT id, name FROM entities ORDER BY name")
        if entity_id in spellings
    ]
