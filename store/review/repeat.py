"""A verdict given twice: the same reviewer, the same list as it reads now, the same decision
and names. Run again (a script re-run, a key pressed twice), it would add a second verdict
that changes nothing and counts the reviewer's work twice ("74 verdicts" for 53 lists); it
is recorded once, and the second time says so instead.

"As it reads now": no other standing verdict on the list's scope came after the reviewer's
own, and the reviewer's verdict read the same answer. An identical verdict after someone
else's changed the list is a real decision (it takes the list back) and is recorded.
"""

from __future__ import annotations

import json
import sqlite3

from workbench.errors import AlreadyRecorded  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.review.base import IN_SCOPE, scope_of
from workbench.store.review.reviewer_names import reviewer_key


def _latest(conn: sqlite3.Connection, row: sqlite3.Row) -> sqlite3.Row | None:
    """The latest standing verdict on the list's scope (an adjudication or not)."""
    return conn.execute(
        f"SELECT * FROM verdicts WHERE {IN_SCOPE} AND undone = 0 ORDER BY id DESC LIMIT 1", scope_of(row)
    ).fetchone()


def refuse_repeat(
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    reviewer: str,
    decision: str,
    after: list[str],
    blind: bool,
    why: str | None = None,
) -> None:
    """Raise AlreadyRecorded when the latest standing verdict on the list's scope is this
    reviewer's, on the same answer, with the same decision, names and blindness, and no new
    reason (a reason given, other than the one recorded, is a correction of the record: it was
    dropped without a word)."""
    latest = _latest(conn, row)
    if latest is None or reviewer_key(latest["reviewer"]) != reviewer_key(reviewer):
        return
    if latest["answer_key"] != row["response_key"] or bool(latest["blind"]) != blind:
        return
    if latest["decision"] != decision or json.loads(latest["after_json"]) != after:
        return
    if why is not None and why != latest["why"]:
        return
    raise AlreadyRecorded(
        f"already recorded: {latest['reviewer']}'s {decision} on list {row['id']} is verdict {latest['id']}, "
        "given on this version; nothing changed",
        latest["id"],
    )


def refuse_repeat_adjudication(
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    adjudicator: str,
    after: list[str],
    settled: str,
    take: str | None,
    why: str | None = None,
) -> None:
    """Raise AlreadyRecorded when the latest standing verdict on the list's scope is this
    adjudicator's adjudication of the same verdicts (`settled`), taking the same list from the
    same reviewer, with no new reason: given twice, it was recorded twice."""
    latest = _latest(conn, row)
    if latest is None or latest["adjudicates"] is None or latest["answer_key"] != row["response_key"]:
        return
    if reviewer_key(latest["reviewer"]) != reviewer_key(adjudicator) or json.loads(latest["after_json"]) != after:
        return
    if latest["settled"] != settled or (latest["took"] or None) != (take or None):
        return
    if why is not None and why != latest["why"]:
        return
    raise AlreadyRecorded(
        f"already recorded: {latest['reviewer']}'s adjudication of list {row['id']} is verdict {latest['id']}, "
        "settling the same verdicts the same way; nothing changed",
        latest["id"],
    )
