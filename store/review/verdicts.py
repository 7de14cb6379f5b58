"""Human review of extracted lists: accept, edit or reject, per reviewer, undoable.

A verdict is data about an answer, not about a row: it is kept by what it judges
(study, model, topic, question, repetition) and the answer the reviewer read
(`answer_key`, the response key; none for an imported list). The list metrics read
is *settled* from the verdicts: the latest standing verdict that is not blind and
still judges the list's answer gives the list; without one the list is what the
machine extracted (kept in `mention_lists.extracted_json` while a verdict replaces
it). So re-extraction, a re-import or an edited study replace lists freely: the
verdicts are re-applied to the new lists (`settle_lists`), and the ones whose answer
was asked again are kept, reported as no longer applying, never applied.

Two reviewers: a second reviewer works blind on the validation sample (sees the
answer and the extraction, never another reviewer's list); blind verdicts are
compared (agreement, Cohen's kappa on the final lists), never applied. The list
metrics use is the adjudicated one: the first reviewer's, or whoever settles a
disagreement with a verdict that is not blind (an adjudication: store/review/adjudication.py).

A verdict given with the version of the list shown (`if_version`, store/review/versions.py)
is recorded only while the list still reads so. The reads (review pages, headless records,
exports) are in store/review/reads.py, re-exported here for the screens and the CLI.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.db import transaction, utc_now
from workbench.store.entities.names import ensure_entities
from workbench.store.errors import InputError
from workbench.store.review.base import (  # noqa: F401  (where callers find them)
    DECISIONS,
    IN_SCOPE,
    LIST_COLUMNS,
    SCOPE,
    ReviewRefused,
    as_written,
    checked_names,
    clean,
    describe,
    extracted,
    final_key,
    governing,
    is_name,
    list_row,
    scope_of,
    scope_verdicts,
    surfaces,
)
from workbench.store.review.pages import PagesMark, pages_since  # noqa: F401  (where callers find them)
from workbench.store.review.reads import (  # noqa: F401  (where callers find them)
    REVIEW_FIELDS,
    list_records,
    list_values,
    progress_counts,
    review_detail,
    review_items,
    review_progress,
    review_records,
    reviewed_counts,
)
from workbench.store.review.repeat import AlreadyRecorded, refuse_repeat  # noqa: F401  (where callers find it)
from workbench.store.review.reviewer_names import clean_reviewer, reviewer_key
from workbench.store.review.state import as_adjudication, resolution
from workbench.store.review.versions import StaleVersion, check_version, list_version  # noqa: F401


def _write_mentions(conn: sqlite3.Connection, list_id: int, slots: list[list[Any]]) -> None:
    from workbench.store.surface import normalize_surface

    rows = [(s, normalize_surface(s), votes) for s, votes in slots if normalize_surface(s)]
    ensure_entities(conn, ((s, k) for s, k, _ in rows))
    conn.execute("DELETE FROM mentions WHERE list_id = ?", (list_id,))
    conn.executemany(
        "INSERT INTO mentions (list_id, rank, surface, surface_key, votes) VALUES (?, ?, ?, ?, ?)",
        [(list_id, rank, s, k, v) for rank, (s, k, v) in enumerate(rows, start=1)],
    )


def list_in_study(conn: sqlite3.Connection, list_id: int, study: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM mention_lists WHERE id = ? AND study_id = (SELECT id FROM studies WHERE name = ?)",
            (list_id, study),
        ).fetchone()
        is not None
    )


def _settle(conn: sqlite3.Connection, row: sqlite3.Row) -> None:
    """Make one list what its verdicts say (inside a transaction)."""
    verdict = governing(conn, scope_of(row), row["response_key"])
    current = surfaces(conn, row["id"])
    if verdict is not None:
        after = as_written(json.loads(verdict["after_json"]))
        if after != current:
            if row["extracted_json"] is None:  # kept once, before the first verdict replaces it
                conn.execute(
                    "UPDATE mention_lists SET extracted_json = ? WHERE id = ?",
                    (json.dumps(extracted(conn, row)), row["id"]),
                )
            _write_mentions(conn, row["id"], [[s, None] for s in after])
            _touch(conn, row["id"])
    elif row["extracted_json"] is not None:
        _write_mentions(conn, row["id"], json.loads(row["extracted_json"]))
        conn.execute("UPDATE mention_lists SET extracted_json = NULL WHERE id = ?", (row["id"],))


def _touch(conn: sqlite3.Connection, list_id: int) -> None:
    # Mentions are inserted without a trigger (imports write millions); touching the list
    # moves the change counter for an edit of a list that had no mentions before.
    conn.execute("UPDATE mention_lists SET id = id WHERE id = ?", (list_id,))


def settle_lists(conn: sqlite3.Connection, study_id: int, list_ids: list[int]) -> None:
    """Re-apply the study's verdicts to the lists just stored (`list_ids`, inside the transaction
    that replaced them; the others were settled when their verdicts changed). Costs nothing for
    a study nobody reviewed."""
    if (
        not list_ids
        or conn.execute("SELECT 1 FROM verdicts WHERE study_id = ? LIMIT 1", (study_id,)).fetchone() is None
    ):
        return
    rows = conn.execute(
        "SELECT DISTINCT l.id, l.study_id, l.model, l.topic, l.question, l.repetition, l.response_key, "
        "l.extracted_json FROM mention_lists l JOIN verdicts v ON v.study_id = l.study_id AND v.model = l.model "
        "AND v.topic = l.topic AND v.question = l.question AND v.repetition = l.repetition "
        "WHERE l.study_id = ? AND l.id IN (SELECT value FROM json_each(?))",
        (study_id, json.dumps(list_ids)),
    ).fetchall()
    for row in rows:
        _settle(conn, row)


def review(
    conn: sqlite3.Connection,
    list_id: int,
    reviewer: str,
    decision: str,
    entities: list[str] | None = None,
    sample: str | None = None,
    *,
    blind: bool = False,
    why: str | None = None,
    if_version: str | None = None,
) -> int:
    """Record a verdict; `entities` is the corrected list for an edit (each name must hold a
    letter or digit). A blind verdict judges the machine's extraction and is kept for
    agreement only. With `if_version` (the version the reviewer was shown, from
    `list_version` or a review page), refused (StaleVersion) unless the list still reads so.
    A non-blind verdict by a third reviewer on a reviewer disagreement adjudicates it. The
    reviewer's standing verdict given again on the same version records nothing (AlreadyRecorded)."""
    if decision not in DECISIONS:
        raise InputError(f"unknown decision {decision!r} (accept, edit or reject)")
    reviewer = clean_reviewer(reviewer)
    after = checked_names(entities or []) if decision == "edit" else None
    if decision == "edit" and not after:
        raise ReviewRefused("an edit needs at least one name; reject says the answer recommends nothing")
    with transaction(conn):
        row = list_row(conn, list_id)
        check_version(conn, row, blind, if_version)
        before = [s for s, _ in extracted(conn, row)] if blind else surfaces(conn, list_id)
        after = before if decision == "accept" else [] if decision == "reject" else after
        refuse_repeat(conn, row, reviewer, decision, after, blind, why)  # the same verdict again records nothing
        return record_verdict(conn, row, reviewer, decision, after, before, blind=blind, why=why, sample=sample)


def record_verdict(
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    reviewer: str,
    decision: str,
    after: list[str],
    before: list[str] | None = None,
    *,
    blind: bool = False,
    why: str | None = None,
    sample: str | None = None,
    adjudication: tuple | None = None,
) -> int:
    """Insert one verdict on the list `row` and apply it (inside a transaction). `adjudication`:
    (the validators it settles as JSON, whose list it took, their verdicts it settles as JSON);
    found here when not given."""
    before = surfaces(conn, row["id"]) if before is None else before
    settles, took, settled = (None,) * 3 if blind else adjudication or as_adjudication(conn, row, reviewer, after)
    verdict_id = conn.execute(
        "INSERT INTO verdicts (study_id, model, topic, question, repetition, answer_key, reviewer, decision, "
        "before_json, after_json, blind, why, sample, at, adjudicates, took, settled) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            *scope_of(row),
            row["response_key"],
            reviewer,
            decision,
            json.dumps(before),
            json.dumps(after),
            int(blind),
            why,
            sample,
            utc_now(),
            settles,
            took,
            settled,
        ),
    ).lastrowid
    _settle(conn, row)  # a blind verdict too: it may lapse an adjudication of its reviewer's
    return verdict_id


def _latest_of(conn: sqlite3.Connection, reviewer: str, study: str | None) -> sqlite3.Row | None:
    """This reviewer's latest standing verdict (in `study`), however they spelt their name."""
    where, args = ("AND study_id = (SELECT id FROM studies WHERE name = ?)", (study,)) if study else ("", ())
    key = reviewer_key(reviewer)
    rows = conn.execute(f"SELECT * FROM verdicts WHERE undone = 0 {where} ORDER BY id DESC", args)
    return next((v for v in rows if reviewer_key(v["reviewer"]) == key), None)


def _settling(conn: sqlite3.Connection, row: sqlite3.Row | None) -> Any | None:
    return None if row is None else resolution(scope_verdicts(conn, scope_of(row)), row["response_key"])


def undo_review(conn: sqlite3.Connection, reviewer: str, study: str | None = None) -> dict[str, Any] | None:
    """Take back this reviewer's latest standing verdict (in `study`, if given). Refused, with
    the verdict that changed the list since, when the list no longer is what this verdict made
    it. None when the reviewer has nothing to undo. Undoing the verdict that lapsed an
    adjudication puts the adjudication back in force; undoing a verdict one settled lapses it."""
    reviewer = clean_reviewer(reviewer)
    with transaction(conn):
        verdict = _latest_of(conn, reviewer, study)
        if verdict is None:
            return None
        scope = scope_of(verdict)
        row = conn.execute(f"SELECT {LIST_COLUMNS} FROM mention_lists WHERE {IN_SCOPE}", scope).fetchone()
        note = ""
        if verdict["blind"]:
            pass  # a blind verdict gives no list (it may lapse an adjudication: its undo restores it)
        elif row is None or (verdict["answer_key"] and row["response_key"] not in (None, verdict["answer_key"])):
            note = "it no longer applied: the answer was asked again"
        elif surfaces(conn, row["id"]) != as_written(json.loads(verdict["after_json"])):
            later = governing(conn, scope, row["response_key"])
            by = describe(later) if later is not None and later["id"] != verdict["id"] else "an import or re-extraction"
            raise ReviewRefused(
                f"cannot undo your {verdict['decision']} (#{verdict['id']}): {by} changed this list since"
            )
        was = _settling(conn, row)
        conn.execute("UPDATE verdicts SET undone = 1, undone_at = ? WHERE id = ?", (utc_now(), verdict["id"]))
        if row is not None:
            _settle(conn, row)
        now = _settling(conn, row)
        if not verdict["blind"] and (was is None) != (now is None):  # a blind reviewer sees no other's
            settled = now or was
            what = "is in force again" if now is not None else "lapses: the list returns to the queue"
            note = f"{settled['reviewer']}'s adjudication (#{settled['id']}) {what}"
        return {
            "id": verdict["id"],
            "list_id": row["id"] if row is not None else None,
            "decision": verdict["decision"],
            "note": note,
        }
