"""The entity registry's reviewer decisions: merge, split, rename, forbid — with undo and redo.

Every decision is stored with who, when and why, and as a list of primitive
changes (alias moved, entity renamed, entity created, pair forbidden), each of
which can be applied backwards (store/entities/changes.py). Undo reverts the latest
active decision; redo re-applies the most recently undone one; a new decision ends
the redo chain (store/entities/undo.py). Metrics join mentions through `aliases`, so
each decision changes them at once.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.db import transaction, utc_now
from workbench.store.entities.changes import DecisionError, apply_change
from workbench.store.entities.counts import entity_spellings, mentioned_entities  # noqa: F401  (where callers find it)
from workbench.store.entities.undo import ENTITY_ACTIONS, redo, undo  # noqa: F401  (where callers find them)
from workbench.store.review.reviewer_names import placeholders, spellings_of

REUSE = "merge under another name, then rename it with --reuse-merged"


def _normalize(text: str) -> str:
    from workbench.store.surface import normalize_surface  # one definition of "the same surface"

    return normalize_surface(text)


def find_entity(conn: sqlite3.Connection, name: str) -> tuple[int, str]:
    """An entity by its name, or by any surface form of it. A name merged away
    (its entity holds no surface form any more) means the entity its surface
    forms went to, never the empty one left behind."""
    row = conn.execute(
        "SELECT id, name FROM entities e WHERE name = ? AND EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)",
        (name,),
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT e.id, e.name FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.surface_key = ?",
            (_normalize(name),),
        ).fetchone()
    if row is None:
        raise DecisionError(f"no entity named {name!r}")
    return row[0], row[1]


def record_decision(
    conn: sqlite3.Connection,
    action: str,
    summary: str,
    changes: list[dict[str, Any]],
    who: str,
    why: str | None,
    at: str | None = None,
) -> int:
    """Log an entity decision and make its changes; `at`: when it was made (now, unless it is
    one made again from another store's log: `import decisions`)."""
    # A new decision ends the redo chain (the undone ones stay in the history).
    names = spellings_of(conn, "entity_decisions", "who", who)  # one person's chain, however written
    conn.execute(f"UPDATE entity_decisions SET undone = -1 WHERE undone > 0 AND who IN ({placeholders(names)})", names)
    decision = conn.execute(
        "INSERT INTO entity_decisions (action, summary, changes_json, who, why, at) VALUES (?, ?, ?, ?, ?, ?)",
        (action, summary, json.dumps(changes), who, why, at or utc_now()),
    ).lastrowid
    for change in changes:
        if change["op"] == "forbid":
            change["decision"] = decision
        apply_change(conn, change, forward=True)
    conn.execute("UPDATE entity_decisions SET changes_json = ? WHERE id = ?", (json.dumps(changes), decision))
    return decision


def _forbidden(conn: sqlite3.Connection, ids: list[int]) -> tuple[int, int] | None:
    marks = ",".join("?" * len(ids))
    row = conn.execute(
        f"SELECT entity_a, entity_b FROM forbidden_pairs WHERE entity_a IN ({marks}) AND entity_b IN ({marks})",
        (*ids, *ids),
    ).fetchone()
    return (row[0], row[1]) if row else None


def merge(
    conn: sqlite3.Connection,
    names: list[str],
    into: str | None = None,
    *,
    who: str,
    why: str | None = None,
    include_into: bool = False,
) -> int:
    """Make several entities one. The canonical name is `into` (default: the most
    mentioned of them); a forbidden pair among them refuses the merge."""
    with transaction(conn):
        if include_into and into and into not in names:
            # Naming the merge after another entity takes that entity in too (the app's
            # "choose the name": typing "Nike" means "these are Nike").
            taken = conn.execute(
                "SELECT 1 FROM entities e WHERE name = ? AND EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)",
                (into,),
            ).fetchone()
            if taken:
                names = [*names, into]
        found = list(dict.fromkeys(find_entity(conn, n) for n in names))
        if len(found) < 2:
            if len(set(names)) > 1:
                raise DecisionError(
                    f"{', '.join(map(repr, dict.fromkeys(names)))} are already one entity, {found[0][1]!r}"
                )
            raise DecisionError("a merge needs at least two different entities")
        ids = [i for i, _ in found]
        clash = _forbidden(conn, ids)
        if clash:
            a, b = (conn.execute("SELECT name FROM entities WHERE id = ?", (x,)).fetchone()[0] for x in clash)
            raise DecisionError(f"a reviewer marked {a!r} and {b!r} as different entities; undo that first")
        counts = {
            i: conn.execute(
                "SELECT COUNT(*) FROM mentions m JOIN aliases a ON a.surface_key = m.surface_key WHERE a.entity_id = ?",
                (i,),
            ).fetchone()[0]
            for i in ids
        }
        target, target_name = max(found, key=lambda f: (counts[f[0]], -f[0]))
        if into:
            by_name = {name: i for i, name in found}
            if into in by_name:
                target, target_name = by_name[into], into
            else:
                other = conn.execute("SELECT id FROM entities WHERE name = ?", (into,)).fetchone()
                if other and not conn.execute("SELECT 1 FROM aliases WHERE entity_id = ?", (other[0],)).fetchone():
                    raise DecisionError(f"{into!r} is the name of an entity a merge emptied; {REUSE}")
                if other:
                    raise DecisionError(f"{into!r} is another entity's name; include it in the merge")
        changes: list[dict[str, Any]] = []
        for entity_id in ids:
            if entity_id == target:
                continue
            for (key,) in conn.execute("SELECT surface_key FROM aliases WHERE entity_id = ?", (entity_id,)).fetchall():
                changes.append({"op": "alias", "key": key, "from": entity_id, "to": target})
        if into and into != target_name:
            changes.append({"op": "name", "entity": target, "from": target_name, "to": into})
        # A reviewer's "different" follows the surface forms: what was forbidden for a
        # merged-away entity now holds for the entity they joined.
        for entity_id in ids:
            if entity_id == target:
                continue
            for a, b in conn.execute(
                "SELECT entity_a, entity_b FROM forbidden_pairs WHERE ? IN (entity_a, entity_b)", (entity_id,)
            ).fetchall():
                other = b if a == entity_id else a
                low, high = sorted((target, other))
                if (
                    other != target
                    and not conn.execute(
                        "SELECT 1 FROM forbidden_pairs WHERE entity_a = ? AND entity_b = ?", (low, high)
                    ).fetchone()
                ):
                    changes.append({"op": "forbid", "a": low, "b": high})
        final = into or target_name
        return record_decision(conn, "merge", f"merge {', '.join(n for _, n in found)} into {final}", changes, who, why)


def split(
    conn: sqlite3.Connection,
    entity: str,
    surfaces: list[str],
    new_name: str | None = None,
    *,
    who: str,
    why: str | None = None,
) -> int:
    """Move some surface forms of an entity to a new entity of their own."""
    with transaction(conn):
        entity_id, entity_name = find_entity(conn, entity)
        if not surfaces:
            raise DecisionError(f"name the surface forms of {entity_name!r} to split off into a new entity")
        keys = list(dict.fromkeys(_normalize(s) for s in surfaces))
        owned = {k for (k,) in conn.execute("SELECT surface_key FROM aliases WHERE entity_id = ?", (entity_id,))}
        missing = [s for s, k in zip(surfaces, keys) if k not in owned]
        if missing:
            raise DecisionError(f"{entity_name!r} has no surface form {missing[0]!r}")
        if len(keys) == len(owned):
            raise DecisionError("a split must leave the entity at least one surface form; use rename instead")
        name = new_name or surfaces[0]
        existing = conn.execute(
            "SELECT id, (SELECT COUNT(*) FROM aliases WHERE entity_id = e.id) FROM entities e WHERE name = ?", (name,)
        ).fetchone()
        changes: list[dict[str, Any]] = []
        if existing and existing[1]:
            raise DecisionError(f"{name!r} is already an entity; split to another name, then merge")
        if existing:  # an entity emptied by an earlier merge takes its surface forms back
            new_id = existing[0]
        else:
            new_id = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM entities").fetchone()[0]
            region, attributes = conn.execute(
                "SELECT region, attributes_json FROM entities WHERE id = ?", (entity_id,)
            ).fetchone()
            changes.append({"op": "create", "entity": new_id, "name": name, "region": region, "attributes": attributes})
        changes += [{"op": "alias", "key": k, "from": entity_id, "to": new_id} for k in keys]
        return record_decision(
            conn, "split", f"split {', '.join(surfaces)} from {entity_name} as {name}", changes, who, why
        )


def rename(conn: sqlite3.Connection, entity: str, new_name: str, *, who: str, why: str | None = None) -> int:
    with transaction(conn):
        entity_id, old = find_entity(conn, entity)
        new_name = " ".join(new_name.split())
        if not new_name:
            raise DecisionError("a name cannot be empty")
        if conn.execute("SELECT 1 FROM entities WHERE name = ? AND id != ?", (new_name, entity_id)).fetchone():
            raise DecisionError(f"{new_name!r} is another entity; merge them instead")
        return record_decision(
            conn,
            "rename",
            f"rename {old} to {new_name}",
            [{"op": "name", "entity": entity_id, "from": old, "to": new_name}],
            who,
            why,
        )


def forbid(conn: sqlite3.Connection, first: str, second: str, *, who: str, why: str | None = None) -> int:
    """Record that two entities are different: suggestions never pair them again."""
    with transaction(conn):
        (a, a_name), (b, b_name) = find_entity(conn, first), find_entity(conn, second)
        if a == b:
            raise DecisionError(f"{first!r} and {second!r} are already one entity; split it instead")
        low, high = sorted((a, b))
        if conn.execute("SELECT 1 FROM forbidden_pairs WHERE entity_a = ? AND entity_b = ?", (low, high)).fetchone():
            raise DecisionError(f"{a_name!r} and {b_name!r} are already marked as different")
        return record_decision(
            conn, "forbid", f"{a_name} and {b_name} are different", [{"op": "forbid", "a": low, "b": high}], who, why
        )


def set_region(
    conn: sqlite3.Connection, names: list[str], region: str | None, *, who: str, why: str | None = None
) -> int:
    """Assign a region (None: clear it) to one or several entities, as one decision."""
    with transaction(conn):
        found = list(dict.fromkeys(find_entity(conn, n) for n in names))
        if not found:
            raise DecisionError("name at least one entity")
        changes = []
        for entity_id, _name in found:
            old = conn.execute("SELECT region FROM entities WHERE id = ?", (entity_id,)).fetchone()[0]
            if old != region:
                changes.append({"op": "region", "entity": entity_id, "from": old, "to": region})
        if not changes:
            raise DecisionError(
                f"{', '.join(n for _, n in found)} already {'in ' + region if region else 'without'} region"
            )
        shown = ", ".join(n for _, n in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        return record_decision(conn, "region", f"region of {shown}: {region or 'none'}", changes, who, why)


def decision_summary(conn, decision_id: int) -> str:
    row = conn.execute("SELECT summary FROM entity_decisions WHERE id = ?", (decision_id,)).fetchone()
    return row[0] if row else ""


def entity_table(conn: sqlite3.Connection) -> list[tuple[str, str | None, str, int]]:
    """(name, region, attributes JSON, mentions in the lists that count now) of every entity
    with a spelling, most mentioned first, then by name. Entities emptied by a merge keep their
    row (for undo) but are not listed. Counted from an index (store/entities/counts.py)."""
    spellings = entity_spellings(conn, now_only=True)
    found = [
        (name, region, attributes, sum(n for _, n in spellings.get(entity_id, ())))
        for entity_id, name, region, attributes in conn.execute(
            "SELECT e.id, e.name, e.region, e.attributes_json FROM entities e "
            "WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)"
        )
    ]
    return sorted(found, key=lambda row: (-row[3], row[0]))


def forbidden_names(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Pairs of entities a reviewer marked as different, by name."""
    return [
        (a, b)
        for a, b in conn.execute(
            "SELECT a.name, b.name FROM forbidden_pairs f JOIN entities a ON a.id = f.entity_a "
            "JOIN entities b ON b.id = f.entity_b"
        )
    ]
