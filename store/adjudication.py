"""Adjudication as a state: a third reviewer settles a list two reviewers judged differently.

The two (or more) *validators* of a list are the reviewers whose latest verdicts on it are
not adjudications; they disagree when their final lists differ (each name read as the entity
it resolves to). A non-blind verdict by anyone else on such a list is an adjudication
(`verdicts.adjudicates` names the validators, `took` whose list it took, NULL for the
adjudicator's own): it gives the list metrics read, and while it is the verdict that does,
the list is *resolved* and leaves the `reviewer disagreements` queue. Agreement and kappa
compare validators only, never an adjudicator.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.queue import transaction
from workbench.store.review_base import (
    ReviewRefused,
    as_written,
    checked_names,
    latest_by_reviewer,
    list_row,
    scope_of,
    scope_verdicts,
    surfaces,
    validators,
)
from workbench.store.review_state import disagreement, resolution  # noqa: F401  (where readers find them)
from workbench.store.review_versions import check_version
from workbench.store.reviews import record_verdict

OWN = "own"  # --take own: the adjudicator's own list (a reviewer cannot be called so)


def adjudicate(
    conn: sqlite3.Connection,
    list_id: int,
    adjudicator: str,
    take: str | None = None,
    entities: list[str] | None = None,
    *,
    if_version: str | None = None,
    why: str | None = None,
) -> int:
    """Settle a reviewer disagreement on list `list_id`: take validator `take`'s final list,
    or (take None or "own") the adjudicator's own `entities` (empty: a rejection). Refused
    when the validators agree, when the adjudicator is one of them, or when the list is no
    longer the version shown (`if_version`). Returns the verdict's id."""
    adjudicator = (adjudicator or "").strip()
    if not adjudicator:
        raise ReviewRefused("an adjudication needs the adjudicator's name")
    with transaction(conn):
        row = list_row(conn, list_id)
        check_version(conn, row, False, if_version)
        verdicts = latest_by_reviewer(scope_verdicts(conn, scope_of(row)), row["response_key"])
        judged = validators(verdicts)
        settles = disagreement(conn, verdicts)
        if settles is None:
            who = ", ".join(sorted(judged)) or "nobody"
            raise ReviewRefused(f"list {list_id} has no reviewer disagreement to adjudicate (judged by {who})")
        if adjudicator in settles:
            raise ReviewRefused(
                f"{adjudicator} is one of the reviewers who disagree on list {list_id} ({', '.join(settles)}): "
                "a third reviewer adjudicates (a verdict of your own changes your list)"
            )
        if take not in (None, OWN):
            if take not in judged:
                raise ReviewRefused(
                    f"{take!r} has no verdict on list {list_id} to take (its reviewers: {', '.join(settles)})"
                )
            names = as_written(json.loads(judged[take]["after_json"]))
        else:
            take, names = None, checked_names(entities or [])
        decision = "reject" if not names else "accept" if names == surfaces(conn, list_id) else "edit"
        return record_verdict(
            conn, row, adjudicator, decision, names, why=why, adjudication=(json.dumps(settles), take)
        )


def adjudicator_counts(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """Who adjudicated how many lists of a study (standing adjudications), by name."""
    rows = conn.execute(
        "SELECT reviewer, COUNT(DISTINCT model || char(31) || topic || char(31) || question || char(31) || repetition) "
        "FROM verdicts WHERE study_id = ? AND undone = 0 AND adjudicates IS NOT NULL GROUP BY reviewer ORDER BY reviewer",
        (study_id,),
    ).fetchall()
    return [{"reviewer": who, "lists": n} for who, n in rows]


def validator_names(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The reviewers with a standing verdict on the study's lists that is not an adjudication."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT reviewer FROM verdicts WHERE study_id = ? AND undone = 0 AND adjudicates IS NULL "
            "ORDER BY reviewer",
            (study_id,),
        )
    ]
