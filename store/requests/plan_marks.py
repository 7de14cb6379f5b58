"""What each model's plan was made from, so a resumed run can skip planning it again.

Planning a million requests takes most of a minute (every payload built and keyed, every
key looked up); a resume of an unchanged study does not need it. After a model's plan is
stored, its mark (table `plan_marks`, migration 20) holds two digests: of the study as loaded (with every file it reads) with
the model's identity and parameters, and of what planning read from the store (ChoiceEval's
question ids, imported questions included). A run whose digests equal the mark's reuses the
stored plan; any difference plans that model again.

A method whose plan is made of units (`plan_units`: ChoiceEval's questions) also marks each
unit (table `plan_units`, migration 23) with a digest of what its requests are made from and
the keys it planned: a model whose mark differs plans again only the units whose digest
changed or that are new, and supersedes the keys of units gone. Marks are removed (or a
unit's digest emptied) before the store changes and written once it has: a run killed
between the two plans those units again instead of trusting a mark the store no longer
matches.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

from workbench.store.db import transaction, utc_now

_HEX = frozenset("0123456789abcdef")
PENDING = ""  # the digest of a unit being planned again: equal to none, so planned again


def marks(conn: sqlite3.Connection, study_id: int) -> dict[str, tuple[str, str, int]]:
    """The marks of a study's models: model identity -> (study digest, context digest, requests planned)."""
    return {
        identity: (study_digest, context_digest, total)
        for identity, study_digest, context_digest, total in conn.execute(
            "SELECT m.identity, p.study_digest, p.context_digest, p.total FROM plan_marks p "
            "JOIN models m ON m.id = p.model_id WHERE p.study_id = ?",
            (study_id,),
        )
    }


def mark(conn: sqlite3.Connection, study_id: int, model_id: int, study_digest: str, context_digest: str, total: int):
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO plan_marks VALUES (?, ?, ?, ?, ?, ?)",
            (study_id, model_id, study_digest, context_digest, total, utc_now()),
        )


def forget(conn: sqlite3.Connection, study_id: int, model_id: int) -> None:
    """Before a model is planned whole: its marks no longer say what the store holds."""
    with transaction(conn):
        conn.execute("DELETE FROM plan_marks WHERE study_id = ? AND model_id = ?", (study_id, model_id))
        conn.execute("DELETE FROM plan_units WHERE study_id = ? AND model_id = ?", (study_id, model_id))


def pack_keys(keys: Iterable[str]) -> bytes | str:
    """Request keys as stored with their unit: 16 bytes each when they are 32 hex digits
    (every built-in method's), else one per line."""
    keys = list(keys)
    if all(len(k) == 32 and _HEX.issuperset(k) for k in keys):
        return b"".join(bytes.fromhex(k) for k in keys)
    return "\n".join(keys)


def unpack_keys(packed: bytes | str) -> list[str]:
    if isinstance(packed, bytes):
        return [packed[i : i + 16].hex() for i in range(0, len(packed), 16)]
    return packed.split("\n") if packed else []


def unit_marks(conn: sqlite3.Connection, study_id: int | None, identity: str) -> dict[str, tuple[str, int]]:
    """The marked units of a model's plan: unit -> (digest, requests planned)."""
    if study_id is None:
        return {}
    return {
        unit: (digest, total)
        for unit, digest, total in conn.execute(
            "SELECT u.unit, u.digest, u.total FROM plan_units u JOIN models m ON m.id = u.model_id "
            "WHERE u.study_id = ? AND m.identity = ?",
            (study_id, identity),
        )
    }


def unit_keys(
    conn: sqlite3.Connection, study_id: int, model_id: int, units: Iterable[str] | None = None
) -> Iterator[tuple[str, list[str]]]:
    """The marked units of a model (all, or those named) with the request keys they planned."""
    if units is None:
        rows = conn.execute(
            "SELECT unit, keys FROM plan_units WHERE study_id = ? AND model_id = ?", (study_id, model_id)
        )
    else:
        rows = (
            row
            for unit in units
            for row in conn.execute(
                "SELECT unit, keys FROM plan_units WHERE study_id = ? AND model_id = ? AND unit = ?",
                (study_id, model_id, unit),
            )
        )
    for unit, packed in rows:
        yield unit, unpack_keys(packed)


def begin_units(conn: sqlite3.Connection, study_id: int, model_id: int, touched: dict[str, Iterable[str]]) -> None:
    """Before units are planned again: the model's mark goes and each touched unit keeps every
    key it may hold in the store (its old ones and its new ones) under the pending digest."""
    with transaction(conn):
        conn.execute("DELETE FROM plan_marks WHERE study_id = ? AND model_id = ?", (study_id, model_id))
        conn.executemany(
            "INSERT OR REPLACE INTO plan_units VALUES (?, ?, ?, ?, 0, ?)",
            ((study_id, model_id, unit, PENDING, pack_keys(keys)) for unit, keys in touched.items()),
        )


def finish_units(
    conn: sqlite3.Connection,
    study_id: int,
    model_id: int,
    planned: Iterable[tuple[str, str, int, list[str]]],
    removed: Iterable[str],
) -> None:
    """Once the store holds them: the units planned (unit, digest, requests, keys) marked,
    the units gone unmarked."""
    with transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO plan_units VALUES (?, ?, ?, ?, ?, ?)",
            ((study_id, model_id, unit, digest, total, pack_keys(keys)) for unit, digest, total, keys in planned),
        )
        conn.executemany(
            "DELETE FROM plan_units WHERE study_id = ? AND model_id = ? AND unit = ?",
            ((study_id, model_id, unit) for unit in removed),
        )


# The mark of a model the study no longer has (removed from its file, or not among a run's
# --model): its requests are superseded, its answers kept. Equal to no digest, so a model
# added back is planned again: its answers count again without asking twice.
RETIRED = "retired"


def retire_models(conn: sqlite3.Connection, study_id: int, kept: Iterable[int], stage: str) -> list[int]:
    """Supersede the requests of the study's models not in `kept` (those with requests of
    the plan's first `stage` there): their first-stage requests and every request planned
    from them (extraction, probes, their judges), whichever model asks it. Returns them."""
    kept = set(kept)
    retired = {
        m
        for (m,) in conn.execute(
            "SELECT model_id FROM plan_marks WHERE study_id = ? AND study_digest = ?", (study_id, RETIRED)
        )
    }
    gone = [
        model_id
        for (model_id,) in conn.execute("SELECT id FROM models").fetchall()
        if model_id not in kept
        and model_id not in retired
        and conn.execute(  # the index (study, model, stage, ...): a look-up, not a scan
            "SELECT 1 FROM requests WHERE study_id = ? AND model_id = ? AND stage = ? LIMIT 1",
            (study_id, model_id, stage),
        ).fetchone()
    ]
    for model_id in gone:
        with transaction(conn):
            _follow(conn, study_id, model_id, stage, 1, "")
            conn.execute("DELETE FROM plan_units WHERE study_id = ? AND model_id = ?", (study_id, model_id))
            conn.execute(
                "INSERT OR REPLACE INTO plan_marks VALUES (?, ?, ?, '', 0, ?)", (study_id, model_id, RETIRED, utc_now())
            )
    return gone


def was_retired(conn: sqlite3.Connection, study_id: int, model_id: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM plan_marks WHERE study_id = ? AND model_id = ? AND study_digest = ?",
            (study_id, model_id, RETIRED),
        ).fetchone()
        is not None
    )


def restore_follow_ups(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str) -> None:
    """A retired model planned again: the requests planned from its current answers count
    again with them (its first stage was planned as a whole plan does)."""
    with transaction(conn):
        _follow(conn, study_id, model_id, stage, 0, "AND superseded = 0")


def settle_follow_ups(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str) -> None:
    """Once a model's first stage is planned whole (a seed, a prompt or a template dropped or put
    back): what was planned from a superseded request (a probe, its judge) is superseded with
    it, and what was planned from a current one counts with it."""
    with transaction(conn):
        _follow(conn, study_id, model_id, stage, 1, "AND superseded = 1")
        _follow(conn, study_id, model_id, stage, 0, "AND superseded = 0")


def follow_keys(conn: sqlite3.Connection, keys: Iterable[str], superseded: int) -> None:
    """Mark every request planned from these (down the chain of `parent_key`: an answer's
    extraction requests, a probe's judge) as the requests themselves were just marked."""
    with transaction(conn):
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS follow_from (key TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM follow_from")
        conn.executemany("INSERT OR IGNORE INTO follow_from (key) VALUES (?)", ((k,) for k in keys))
        conn.execute(
            """
            WITH RECURSIVE chain(key) AS (
                SELECT r.key FROM requests r JOIN follow_from f ON r.parent_key = f.key
                UNION SELECT r.key FROM requests r JOIN chain c ON r.parent_key = c.key
            )
            UPDATE requests SET superseded = ? WHERE key IN chain AND superseded != ?
            """,
            (superseded, superseded),
        )
        conn.execute("DELETE FROM follow_from")


def _follow(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str, superseded: int, first: str) -> None:
    """Mark a model's first-stage requests (those `first` selects) and, down the chain of
    `parent_key`, every request planned from them."""
    conn.execute(
        f"""
        WITH RECURSIVE chain(key) AS (
            SELECT key FROM requests WHERE study_id = ? AND model_id = ? AND stage = ? {first}
            UNION SELECT r.key FROM requests r JOIN chain c ON r.parent_key = c.key
        )
        UPDATE requests SET superseded = ? WHERE key IN chain AND superseded != ?
        """,
        (study_id, model_id, stage, superseded, superseded),
    )
