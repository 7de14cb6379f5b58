"""`import decisions` for the corrections a method's review makes (store/decisions/replay.py
does verdicts and entity decisions): a cold-start catalog match, found by its list position
(model, seed, persona, rank) and the item's text there, and an identity probe label, found by
its prompt's request key (derived from what was asked: the same in every run of the study).
A correction taken back in the other store is not made again; one already here is not
recorded twice, nor made again once taken back here; a position or prompt this store lacks refuses the file, naming the line."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.errors import InputError
from workbench.store.review.reviewer_names import clean_reviewer

POSITION = ("model", "seed", "persona_category", "persona", "rank")


def _here(undone: int) -> str:
    """A correction this store holds: imported before, then taken back here or not. An undo here
    is this store's decision: importing the file again does not bring the correction back."""
    return "present" if undone == 0 else "kept undone"


def replay_match(conn: sqlite3.Connection, where: str, record: dict[str, Any], study_id: int, refused: list) -> str:
    """One catalog-match correction: the ranked item pointed at the entry it was (or none)."""
    if record.get("state") != "active":
        return "undone"
    try:
        scope = json.loads(record["scope"])
        position = tuple(scope[k] for k in POSITION)
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{where}: the correction's `scope` names no model, seed, persona and rank") from None
    who = clean_reviewer(str(record.get("who") or ""), source=where)
    row = conn.execute(
        "SELECT item, surface FROM rankings WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
        "AND persona = ? AND rank = ?",
        (study_id, *position),
    ).fetchone()
    if row is None:
        raise InputError(f"{where}: no ranked item {'/'.join(map(str, position))} here (run the same study first)")
    here = conn.execute(
        "SELECT MIN(undone) FROM match_corrections WHERE study_id = ? AND model = ? AND seed = ? "
        "AND persona_category = ? AND persona = ? AND rank = ? AND reviewer = ? AND at = ?",
        (study_id, *position, who, record.get("at")),
    ).fetchone()[0]
    if here is not None:
        return _here(here)
    if row[1] != scope.get("surface"):
        refused.append(
            f"{where}: {who}'s catalog match at {'/'.join(map(str, position))} refused (the item here "
            "reads otherwise); nothing recorded for it, the file keeps it"
        )
        return "refused"
    conn.execute(
        "INSERT INTO match_corrections (study_id, model, seed, persona_category, persona, rank, surface, old_item, "
        "new_item, reviewer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (study_id, *position, row[1], row[0], record.get("after"), who, record.get("at")),
    )
    conn.execute(
        "UPDATE rankings SET item = ? WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
        "AND persona = ? AND rank = ?",
        (record.get("after"), study_id, *position),
    )
    return "correction"


def replay_probe(conn: sqlite3.Connection, where: str, record: dict[str, Any]) -> str:
    """One identity probe label, on the probe answer of the same prompt."""
    if record.get("state") != "active":
        return "undone"
    from workbench.store.review.probe_reviews import LABELS

    who = clean_reviewer(str(record.get("who") or ""), source=where)
    key = record.get("scope")
    if record.get("after") not in LABELS:
        raise InputError(f"{where}: a probe label is one of {', '.join(LABELS)}, not {record.get('after')!r}")
    row = conn.execute(
        "SELECT probe_label, probe_label_source FROM identity_outputs WHERE request_key = ?", (key,)
    ).fetchone()
    if row is None:
        raise InputError(f"{where}: no probe answer of prompt {key!r} here (run the same study first)")
    here = conn.execute(
        "SELECT MIN(undone) FROM probe_reviews WHERE request_key = ? AND reviewer = ? AND at = ?",
        (key, who, record.get("at")),
    ).fetchone()[0]
    if here is not None:
        return _here(here)
    conn.execute(
        "INSERT INTO probe_reviews (request_key, reviewer, label, previous_label, previous_source, at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (key, who, record.get("after"), row[0], row[1], record.get("at")),
    )
    conn.execute(
        "UPDATE identity_outputs SET probe_label = ?, probe_label_source = 'human' WHERE request_key = ?",
        (record.get("after"), key),
    )
    return "correction"
