"""Reviewers' corrections of cold-start catalog matches.

The catalog matcher links each item of an answer to a catalog entry (or to none). A
reviewer can point an item at another entry, or mark it out of the catalog; the
correction is kept with who and when, survives re-parsing (it is re-applied to the item
with the same list, rank and surface text) and can be undone.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from workbench.store.current_lists import counts_now
from workbench.store.db import transaction
from workbench.store.errors import InputError
from workbench.store.review.reviewer_names import placeholders, spellings_of

POSITION = ("study_id", "model", "seed", "persona_category", "persona", "rank")
ROW_FIELDS = [
    "key",
    "model",
    "seed",
    "persona_category",
    "persona",
    "rank",
    "surface",
    "item",
    "match_score",
    "corrected_by",
]


def position_key(row: dict[str, Any]) -> str:
    """A stable, printable name for one ranked item: model/seed/category/persona/rank."""
    return "/".join(str(row[k]) for k in ("model", "seed", "persona_category", "persona", "rank"))


def rows(conn: sqlite3.Connection, study_id: int, only: str = "all") -> list[dict[str, Any]]:
    """Ranked items with their match: `all`, `unmatched` (out of catalog) or `uncertain`
    (fuzzy matches below 95)."""
    where = {
        "all": "",
        "unmatched": "AND k.item IS NULL AND k.surface != ''",
        "uncertain": "AND k.item IS NOT NULL AND k.match_score < 95",
    }[only]
    out = []
    for row in conn.execute(
        "SELECT k.model, k.seed, k.persona_category, k.persona, k.rank, k.surface, k.item, k.match_score, "
        "(SELECT reviewer FROM match_corrections c WHERE c.study_id = k.study_id AND c.model = k.model "
        " AND c.seed = k.seed AND c.persona_category = k.persona_category AND c.persona = k.persona "
        " AND c.rank = k.rank AND c.undone = 0 ORDER BY c.id DESC LIMIT 1) AS corrected_by "
        f"FROM rankings k WHERE k.study_id = ? AND {counts_now('k', 'request_key')} {where} "
        "ORDER BY k.model, k.seed, k.persona_category, k.persona, k.rank",
        (study_id,),
    ):
        record = dict(row)
        record["key"] = position_key(record)
        out.append(record)
    return out


def _locate(conn: sqlite3.Connection, study_id: int, key: str) -> dict[str, Any]:
    for row in rows(conn, study_id):
        if row["key"] == key:
            return row
    raise InputError(f"no ranked item {key!r} (model/seed/category/persona/rank, as `review matches` lists)")


def catalog_item(conn: sqlite3.Connection, study_id: int, text: str) -> str:
    """The catalog entry a reviewer means: exact (case and spacing aside), else the closest one."""
    from rapidfuzz import fuzz, process

    items = [
        r[0] for r in conn.execute("SELECT item FROM catalog_items WHERE study_id = ? ORDER BY position", (study_id,))
    ]
    if not items:
        raise InputError("this study has no catalog stored")
    wanted = " ".join(text.split()).lower()
    for item in items:
        if " ".join(item.split()).lower() == wanted:
            return item
    best = process.extractOne(text, items, scorer=fuzz.WRatio)
    if best is None or best[1] < 86:
        raise InputError(f"{text!r} is not in the catalog (closest: {best[0] if best else '-'!r})")
    return best[0]


def correct(conn: sqlite3.Connection, study_id: int, key: str, item: str | None, reviewer: str) -> dict[str, Any]:
    """Point a ranked item at catalog entry `item` (None: out of the catalog)."""
    row = _locate(conn, study_id, key)
    new = catalog_item(conn, study_id, item) if item is not None else None
    with transaction(conn):
        conn.execute(
            "INSERT INTO match_corrections (study_id, model, seed, persona_category, persona, rank, surface, "
            "old_item, new_item, reviewer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                study_id,
                row["model"],
                row["seed"],
                row["persona_category"],
                row["persona"],
                row["rank"],
                row["surface"],
                row["item"],
                new,
                reviewer,
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )
        conn.execute(
            "UPDATE rankings SET item = ? WHERE study_id = ? AND model = ? AND seed = ? AND "
            "persona_category = ? AND persona = ? AND rank = ?",
            (new, study_id, row["model"], row["seed"], row["persona_category"], row["persona"], row["rank"]),
        )
    return {"key": key, "before": row["item"], "after": new}


def undo(conn: sqlite3.Connection, study_id: int, reviewer: str) -> dict[str, Any] | None:
    """Take back the reviewer's latest correction in this study."""
    names = spellings_of(conn, "match_corrections", "reviewer", reviewer)  # one person, however written
    last = conn.execute(
        f"SELECT * FROM match_corrections WHERE study_id = ? AND reviewer IN ({placeholders(names)}) "
        "AND undone = 0 ORDER BY id DESC LIMIT 1",
        (study_id, *names),
    ).fetchone()
    if last is None:
        return None
    position = [last[k] for k in POSITION]
    with transaction(conn):
        conn.execute("UPDATE match_corrections SET undone = 1 WHERE id = ?", (last["id"],))
        still = conn.execute(
            "SELECT new_item FROM match_corrections WHERE study_id = ? AND model = ? AND seed = ? AND "
            "persona_category = ? AND persona = ? AND rank = ? AND undone = 0 ORDER BY id DESC LIMIT 1",
            position,
        ).fetchone()
        first = conn.execute(
            "SELECT old_item FROM match_corrections WHERE study_id = ? AND model = ? AND seed = ? AND "
            "persona_category = ? AND persona = ? AND rank = ? ORDER BY id LIMIT 1",
            position,
        ).fetchone()
        restored = still[0] if still else first[0]  # another correction, else what the matcher found
        conn.execute(
            "UPDATE rankings SET item = ? WHERE study_id = ? AND model = ? AND seed = ? AND "
            "persona_category = ? AND persona = ? AND rank = ?",
            (restored, *position),
        )
    return {"key": position_key(dict(last)), "undone": last["new_item"], "restored": restored}


def reapply(conn: sqlite3.Connection, study_id: int) -> int:
    """After re-parsing: every standing correction again, where the item's text is unchanged."""
    latest = conn.execute(
        "SELECT c.* FROM match_corrections c WHERE c.study_id = ? AND c.undone = 0 AND c.id = (SELECT MAX(id) "
        "FROM match_corrections d WHERE d.study_id = c.study_id AND d.model = c.model AND d.seed = c.seed AND "
        "d.persona_category = c.persona_category AND d.persona = c.persona AND d.rank = c.rank AND d.undone = 0)",
        (study_id,),
    ).fetchall()
    applied = 0
    for c in latest:
        applied += conn.execute(
            "UPDATE rankings SET item = ? WHERE study_id = ? AND model = ? AND seed = ? AND persona_category = ? "
            "AND persona = ? AND rank = ? AND surface IS ?",
            (c["new_item"], *[c[k] for k in POSITION], c["surface"]),
        ).rowcount
    return applied


def studies_with_rankings(conn) -> list[tuple[int, str]]:
    """(id, name) of each study holding rankings, by name."""
    from workbench.store.requests.studies import study_names_by_id

    names = study_names_by_id(conn)
    held = [row[0] for row in conn.execute("SELECT DISTINCT study_id FROM rankings")]
    return sorted(((sid, names[sid]) for sid in held if sid in names), key=lambda found: found[1])
