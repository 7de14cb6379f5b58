"""What the report's extraction-validity section and its brands appendix read: each reviewed
list's machine extraction beside the list it counts as now, and every brand a study's lists
count with its region and the decision that set it.

A list a reviewer changed keeps the machine's extraction in `mention_lists.extracted_json`
(store/review/verdicts.py); a list accepted as extracted, or never reviewed, has its mentions only."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.current_lists import counts_now
from workbench.store.surface import normalize_surface

# A list reviewed: a standing verdict, not blind, on its scope (what the metrics follow).
_REVIEWED = (
    "EXISTS (SELECT 1 FROM verdicts v WHERE v.study_id = l.study_id AND v.model = l.model AND v.topic = l.topic "
    "AND v.question = l.question AND v.repetition = l.repetition AND v.undone = 0 AND v.blind = 0)"
)


def topic_lists(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """Every list that counts now: its topic, whether a reviewer settled it, the machine's names
    and the names it counts as now (both as written, in rank order)."""
    rows = conn.execute(
        f"SELECT l.id, l.topic, l.extracted_json, {_REVIEWED} AS reviewed FROM mention_lists l "
        f"WHERE l.study_id = ? AND {counts_now('l')} ORDER BY l.id",
        (study_id,),
    ).fetchall()
    now: dict[int, list[str]] = {}
    for list_id, surface in conn.execute(
        "SELECT m.list_id, m.surface FROM mentions m JOIN mention_lists l ON l.id = m.list_id "
        "WHERE l.study_id = ? ORDER BY m.list_id, m.rank",
        (study_id,),
    ):
        now.setdefault(list_id, []).append(surface)
    out = []
    for list_id, topic, extracted, reviewed in rows:
        final = now.get(list_id, [])
        machine = [s for s, _votes in json.loads(extracted)] if extracted is not None else final
        out.append({"topic": topic, "reviewed": bool(reviewed), "machine": machine, "final": final})
    return out


def entity_keys(conn: sqlite3.Connection) -> dict[str, int]:
    """Each spelling's entity (by its normalised form): two spellings of one entity are one name."""
    return dict(conn.execute("SELECT surface_key, entity_id FROM aliases"))


def name_key(aliases: dict[str, int], name: str) -> str:
    key = normalize_surface(name)
    entity = aliases.get(key)
    return f"e{entity}" if entity is not None else f"s{key}"


def counted_brands(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """Each entity the study's lists count now: its name, region, the answers naming it, and
    the latest standing decision that set its region (who, when, why), if one did."""
    rows = conn.execute(
        f"""
        SELECT e.id, e.name, e.region, COUNT(DISTINCT m.list_id) AS answers
        FROM mentions m JOIN mention_lists l ON l.id = m.list_id
        JOIN aliases a ON a.surface_key = m.surface_key JOIN entities e ON e.id = a.entity_id
        WHERE l.study_id = ? AND {counts_now("l")}
        GROUP BY e.id ORDER BY answers DESC, e.name
        """,
        (study_id,),
    ).fetchall()
    set_by: dict[int, dict[str, Any]] = {}
    for who, at, why, changes in conn.execute(
        "SELECT who, at, why, changes_json FROM entity_decisions WHERE undone = 0 ORDER BY id"
    ):
        for change in json.loads(changes):
            if change.get("op") == "region" and change.get("entity") is not None:
                set_by[int(change["entity"])] = {"who": who, "at": at, "why": why}
    return [
        {"name": name, "region": region, "answers": answers, "decision": set_by.get(entity_id)}
        for entity_id, name, region, answers in rows
    ]
