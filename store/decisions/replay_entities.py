"""`import decisions` for entity decisions (merges, splits, renames, forbids, regions;
store/decisions/replay.py does the rest): each made again only where this store's entities
stand as they stood just before it in the other store. A decision whose entities stand
otherwise here (already merged the other way, a spelling in a third entity, two names one
entity) is refused alone and said, its line named: applied, it would move spellings between
the wrong entities and every number would read under another name."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from workbench.store.decisions.portable import replay_of
from workbench.store.entities.decisions import record_decision
from workbench.store.errors import InputError
from workbench.store.review.reviewer_names import clean_reviewer
from workbench.store.surface import normalize_surface


class StandsOtherwise(Exception):
    """This store's entities do not stand as the decision found them in the other store."""


def replay_entity_decision(
    conn: sqlite3.Connection, where: str, record: dict[str, Any], seen: Counter, refused: list[str]
) -> str:
    """One entity decision: the count it adds to ("entity decision", "present", ...)."""
    if record.get("state") != "active":
        return "undone"  # taken back in the other store: nothing to make again
    who, at, action = clean_reviewer(str(record.get("who") or ""), source=where), record["at"], record.get("action")
    here = conn.execute(
        "SELECT undone FROM entity_decisions WHERE action = ? AND who = ? AND at = ? ORDER BY id", (action, who, at)
    ).fetchall()
    seen[("entity", action, who, at)] += 1
    if len(here) >= seen[("entity", action, who, at)]:
        # Imported before, then taken back here: an undo here is a decision of this store.
        return "present" if here[seen[("entity", action, who, at)] - 1][0] == 0 else "kept undone"
    replay = replay_of(where, record)
    try:
        # A decision made as a no-op there (a rename to the name it had) changes nothing here
        # either: recorded as made, whatever its entity is called here (a rename taken back
        # there since may have left no entity of the name it had then).
        changes = [] if _noop(replay) else _translated(conn, where, replay)
        if action == "merge":
            _whole(conn, changes)
    except StandsOtherwise as exc:
        summary = str(record.get("summary") or action)  # "merge Puma, On into Puma"; a forbid's reads otherwise
        summary = summary if summary.startswith(str(action)) else f"{action} ({summary})"
        refused.append(f"{where}: {who}'s {summary} refused ({exc}); nothing recorded for it, the file keeps it")
        return "refused"
    if not changes and not _noop(replay):
        return "in effect"  # this store already reads as the decision left the other
    # logged and made as one made by hand (the person's redo chain ends, however written)
    record_decision(conn, action, record.get("summary") or action, changes, who, record.get("why"), at)
    return "entity decision"


def _noop(replay: dict[str, Any]) -> bool:
    """Whether every change of the decision set a name or region to what it was."""
    changes = replay.get("changes") or []
    return bool(changes) and all(c.get("op") in ("name", "region") and c.get("from") == c.get("to") for c in changes)


def _entity(conn: sqlite3.Connection, where: str, name: Any) -> tuple[int, bool]:
    """This store's entity of a name, and whether it stands under that very name: the entity so
    named holding a spelling, else the one holding the name as a spelling (renamed or merged
    here), else an entity a merge emptied of that name."""
    row = conn.execute(
        "SELECT id FROM entities e WHERE name = ? AND EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)",
        (name,),
    ).fetchone()
    if row is not None:
        return row[0], True
    if isinstance(name, str):
        row = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (normalize_surface(name),)).fetchone()
    if row is None:
        row = conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise InputError(f"{where}: no entity {name!r} in this database (run the same study here first)")
    return row[0], False


def _name(conn: sqlite3.Connection, entity: int) -> str:
    return conn.execute("SELECT name FROM entities WHERE id = ?", (entity,)).fetchone()[0]


def _translated(conn, where: str, replay: dict[str, Any]) -> list[dict[str, Any]]:
    """The decision's changes in this store's ids, each from what this store holds now; a change
    this store already reads as is left out. StandsOtherwise where the entities stand otherwise."""
    refs = replay.get("entities") or {}
    found = {int(k): _entity(conn, where, ref.get("name")) for k, ref in refs.items() if not ref.get("created")}
    ids = {k: entity for k, (entity, _) in found.items()}
    names = {int(k): ref.get("name") for k, ref in refs.items()}
    out = []
    for change in replay.get("changes") or []:
        noop = change.get("from") == change.get("to")  # made as a no-op (a rename to its own name): kept so
        change, op = dict(change), change.get("op")
        if op == "create":
            if conn.execute("SELECT 1 FROM entities WHERE name = ?", (change["name"],)).fetchone():
                raise InputError(f"{where}: an entity {change['name']!r} is already in this database")
            new = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM entities").fetchone()[0]
            ids[int(change["entity"])], change["entity"] = new, new
        elif op == "alias":
            if not _alias(conn, where, change, ids, names, found):
                continue
        elif op in ("name", "region"):
            change["entity"] = ids[int(change["entity"])]
            column = "name" if op == "name" else "region"
            change["from"] = conn.execute(
                f"SELECT {column} FROM entities WHERE id = ?", (change["entity"],)
            ).fetchone()[0]
        elif op == "forbid":
            pair = (ids[int(change["a"])], ids[int(change["b"])])
            if pair[0] == pair[1]:
                a, b = names.get(int(change["a"])), names.get(int(change["b"]))
                raise StandsOtherwise(f"{a!r} and {b!r} are one entity here, named {_name(conn, pair[0])!r}")
            change["a"], change["b"] = sorted(pair)
            if conn.execute(
                "SELECT 1 FROM forbidden_pairs WHERE entity_a = ? AND entity_b = ?", (change["a"], change["b"])
            ).fetchone():
                continue
        else:
            raise InputError(f"{where}: an entity change {op!r} this version does not know")
        if op in ("name", "region") and change["from"] == change["to"] and not noop:
            continue  # this store already reads so (an entities import set the region)
        out.append(change)
    return out


def _whole(conn: sqlite3.Connection, changes: list[dict[str, Any]]) -> None:
    """A merge takes in whole entities: each it empties must hold here only the spellings it moves
    (it did there). One holding more was merged with another entity here: made again, the merge
    would split that entity, taking back a decision of this store unsaid."""
    moved: dict[int, set[str]] = {}
    for change in changes:
        if change["op"] == "alias":
            moved.setdefault(change["from"], set()).add(change["key"])
    for entity, keys in moved.items():
        held = {k for (k,) in conn.execute("SELECT surface_key FROM aliases WHERE entity_id = ?", (entity,))}
        if held - keys:
            raise StandsOtherwise(
                f"the spelling {sorted(keys)[0]!r} is in {_name(conn, entity)!r} here, with "
                f"{', '.join(map(repr, sorted(held - keys)))}: made again, the merge would split it"
            )


def _alias(conn, where: str, change: dict[str, Any], ids, names, found) -> bool:
    """Point a spelling's move at this store's entities: True to make it, False where this store
    already reads so. The spelling must be where it was before the decision (or where it left it)."""
    now = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (change["key"],)).fetchone()
    if now is None:
        raise InputError(f"{where}: no spelling {change['key']!r} in this database")
    source, target = int(change["from"]), int(change["to"])
    before, after = ids.get(source), ids[target]
    if before == after and found.get(source, (0, False))[1]:
        # The entity the spelling was to leave stands here under its own name, holding the one it
        # was to join: merged the other way here. Made again, the names would swap.
        raise StandsOtherwise(
            f"{names.get(target)!r} and {names.get(source)!r} are already one entity here, named {_name(conn, after)!r}"
        )
    if now[0] == after:
        return False
    if now[0] != before:
        raise StandsOtherwise(
            f"the spelling {change['key']!r} is in {_name(conn, now[0])!r} here, "
            f"not in {names.get(source)!r} as before this decision"
        )
    change["from"], change["to"] = before, after
    return True
