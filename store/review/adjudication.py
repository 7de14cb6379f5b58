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

from workbench.store.current_lists import counts_now
from workbench.store.db import transaction
from workbench.store.review.base import (
    IN_SCOPE,
    ReviewRefused,
    as_written,
    checked_names,
    in_force,
    judges,
    latest_by_reviewer,
    list_row,
    scope_of,
    scope_verdicts,
    standing,
    surfaces,
    validators,
)
from workbench.store.review.repeat import refuse_repeat_adjudication
from workbench.store.review.reviewer_names import among, by_person, clean_reviewer, reviewer_key
from workbench.store.review.state import disagreement, resolution, settled_json  # noqa: F401  (readers find them)
from workbench.store.review.verdicts import record_verdict
from workbench.store.review.versions import check_version

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
    adjudicator = clean_reviewer(adjudicator, "an adjudicator's name")
    with transaction(conn):
        row = list_row(conn, list_id)
        check_version(conn, row, False, if_version)
        verdicts = latest_by_reviewer(scope_verdicts(conn, scope_of(row)), row["response_key"])
        judged = validators(verdicts)
        settles = disagreement(conn, verdicts)
        if settles is None:
            who = ", ".join(sorted(judged)) or "nobody"
            raise ReviewRefused(f"list {list_id} has no reviewer disagreement to adjudicate (judged by {who})")
        party = among(adjudicator, settles)  # "ANN" or "ann" + a zero-width space is ann
        if party is not None:
            raise ReviewRefused(
                f"{adjudicator} is {party}, one of the reviewers who disagree on list {list_id} "
                f"({', '.join(settles)}): a third reviewer adjudicates (a verdict of your own changes your list)"
            )
        if take not in (None, OWN):
            taken = among(take, judged)
            if taken is None:
                raise ReviewRefused(
                    f"{take!r} has no verdict on list {list_id} to take (its reviewers: {', '.join(settles)})"
                )
            take, names = taken, as_written(json.loads(judged[taken]["after_json"]))
        else:
            take, names = None, checked_names(entities or [])
        decision = "reject" if not names else "accept" if names == surfaces(conn, list_id) else "edit"
        settled = settled_json(verdicts, settles)
        # the same adjudication again records nothing (AlreadyRecorded), as a verdict given twice
        refuse_repeat_adjudication(conn, row, adjudicator, names, settled, take, why)
        return record_verdict(
            conn, row, adjudicator, decision, names, why=why, adjudication=(json.dumps(settles), take, settled)
        )


def adjudicator_counts(conn: sqlite3.Connection, study_id: int) -> list[dict[str, Any]]:
    """Who adjudicated how many lists of a study, by person: their standing adjudications of
    the lists' answers that have not lapsed (a party's verdict changed since: it settles
    nothing now). One a later adjudication replaced still counts as work done."""
    lists: dict[str, set[tuple]] = {}
    names: dict[str, str] = {}
    for scope, verdicts in standing(conn, study_id).items():
        if not any(v["adjudicates"] for v in verdicts):
            continue
        row = conn.execute(
            f"SELECT l.response_key FROM mention_lists l WHERE {IN_SCOPE} AND {counts_now('l')}", scope
        ).fetchone()
        for v in verdicts if row is not None else []:
            if v["adjudicates"] and judges(v, row[0]) and in_force(v, verdicts, row[0]):
                key = reviewer_key(v["reviewer"])
                names[key] = v["reviewer"]
                lists.setdefault(key, set()).add(scope)
    return sorted(({"reviewer": names[k], "lists": len(s)} for k, s in lists.items()), key=lambda a: a["reviewer"])


def validator_names(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The reviewers with a standing verdict on the study's lists that is not an adjudication,
    each person once (under the name of their latest verdict)."""
    rows = conn.execute(
        "SELECT reviewer FROM verdicts WHERE study_id = ? AND undone = 0 AND adjudicates IS NULL ORDER BY id",
        (study_id,),
    ).fetchall()
    return sorted(by_person({"reviewer": r[0]} for r in rows))
