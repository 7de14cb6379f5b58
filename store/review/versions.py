"""What you saw is what you judge: a list's version names what a reviewer is shown of it.

The version is a digest of the answer read and the list shown (the machine's extraction to
a blind reviewer; else the current list and each reviewer's final list on it). Any change
to what is shown (an edit or an undo by any reviewer, a re-extraction or a re-import that
changes the list, a new answer) gives another version; a change that shows nothing new (an
entity merge: lists show the spellings the answer used) keeps it. A verdict given with the
version shown (`if_version`) is recorded only while the list still reads so; otherwise it is
refused in one line saying what the list is now, and nothing is logged.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from workbench.errors import StaleVersion  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.db import transaction
from workbench.store.review.base import (
    APPLIES,
    IN_SCOPE,
    describe,
    extracted,
    latest_by_reviewer,
    list_row,
    scope_of,
    scope_verdicts,
    surfaces,
)


def _shown(conn: sqlite3.Connection, row: sqlite3.Row, blind: bool) -> tuple[list[str], dict[str, Any]]:
    """The list a reviewer is shown and everything the version covers."""
    if blind:
        names = [s for s, _ in extracted(conn, row)]
        return names, {"answer": row["response_key"], "list": names}
    names = surfaces(conn, row["id"])
    verdicts = latest_by_reviewer(scope_verdicts(conn, scope_of(row)), row["response_key"])
    finals = {who: json.loads(v["after_json"]) for who, v in sorted(verdicts.items())}
    return names, {"answer": row["response_key"], "list": names, "reviewers": finals}


def _digest(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


def version_of(conn: sqlite3.Connection, row: sqlite3.Row, blind: bool = False) -> str:
    return _digest(_shown(conn, row, blind)[1])


def list_version(conn: sqlite3.Connection, list_id: int, blind: bool = False) -> str:
    """The version of list `list_id` as a reviewer (blind or not) is shown it now."""
    return version_of(conn, list_row(conn, list_id), blind)


def check_version(conn: sqlite3.Connection, row: sqlite3.Row, blind: bool, seen: str | None) -> None:
    """Refuse (StaleVersion) unless the list still reads as version `seen` (None: no check)."""
    if seen is None:
        return
    names, payload = _shown(conn, row, blind)
    now = _digest(payload)
    if now == seen.strip().lower():
        return
    other = _digest(_shown(conn, row, not blind)[1])
    if other == seen.strip().lower():  # the other view's version: nothing changed, the wrong view was read
        view, shown_by = ("blind", "review lists --blind") if blind else ("open", "review lists without --blind")
        raise StaleVersion(
            f"list {row['id']}: version {seen} is the {'open' if blind else 'blind'} view's; a "
            f"{'blind' if blind else 'non-blind'} verdict takes the {view} view's version, {now} "
            f"(as {shown_by} shows it); nothing recorded",
            row["id"],
            now,
            names,
        )
    last = conn.execute(f"SELECT * FROM verdicts WHERE {IN_SCOPE} ORDER BY id DESC LIMIT 1", scope_of(row)).fetchone()
    after = f", last verdict {describe(last)}{' undone' if last['undone'] else ''}" if last is not None else ""
    raise StaleVersion(
        f"list {row['id']} changed since it was shown (version {seen}): it is now version {now}, "
        f"{json.dumps(names, ensure_ascii=False)}{after}; nothing recorded: show it again",
        row["id"],
        now,
        names,
    )


def verdict_trail(conn: sqlite3.Connection, row: sqlite3.Row) -> list[tuple[int, str, str, bool]]:
    """Every verdict on this list's answer, undone ones too, oldest first, as (id, reviewer,
    what: accept, edit, reject or adjudication, undone): a screen names who changed the list
    it shows by comparing two of these."""
    return [
        (r["id"], r["reviewer"], "adjudication" if r["adjudicates"] else r["decision"], bool(r["undone"]))
        for r in conn.execute(
            f"SELECT id, reviewer, decision, adjudicates, undone FROM verdicts WHERE {IN_SCOPE} AND {APPLIES} "
            "ORDER BY id",
            (*scope_of(row), row["response_key"], row["response_key"]),
        )
    ]


def with_version(conn: sqlite3.Connection, change, list_id: int | None, blind: bool = False) -> tuple[Any, str | None]:
    """`change(conn)`'s result and the version list `list_id` reads as right after it, in one
    transaction (a screen tells its own change of the list it shows from another's by it).
    `list_id` may be a callable of the result (None: no list, no version)."""
    with transaction(conn):
        result = change(conn)
        target = list_id(result) if callable(list_id) else list_id
        return result, list_version(conn, target, blind) if target is not None else None
