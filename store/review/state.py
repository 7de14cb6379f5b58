"""The state of a list's review that adjudication reads: who validated it, whether they
disagree, and which adjudication settles it (see store/review/adjudication.py)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.review.base import (
    final_key,
    governing_of,
    latest_by_reviewer,
    scope_of,
    scope_verdicts,
    validators,
)
from workbench.store.review.reviewer_names import among


def disagreement(conn: sqlite3.Connection, verdicts: dict[str, Any]) -> list[str] | None:
    """The validators (by name) when their final lists differ, else None. `verdicts`: each
    reviewer's latest verdict judging the list's answer."""
    judged = validators(verdicts)
    finals = {final_key(conn, json.loads(v["after_json"])) for v in judged.values()}
    return sorted(judged) if len(finals) > 1 else None


def resolution(standing: list[Any], answer_key: str | None) -> Any | None:
    """The adjudication that settles a list: the verdict giving the list (the latest standing
    one, not blind, judging the answer, no lapsed adjudication) when it is one. `standing`:
    the scope's verdicts, oldest first."""
    latest = governing_of(standing, answer_key)
    return latest if latest is not None and latest["adjudicates"] else None


def as_adjudication(conn: sqlite3.Connection, row: sqlite3.Row, reviewer: str, after: list[str]) -> tuple:
    """(adjudicates, took, settled) for a non-blind verdict by `reviewer`: the validators it
    settles, whose list it gives (None for one of its own) and each one's verdict it settles
    (by id), or (None, None, None) when it settles none (no disagreement, or the reviewer is
    one of the validators, however they spell their name)."""
    verdicts = latest_by_reviewer(scope_verdicts(conn, scope_of(row)), row["response_key"])
    settles = disagreement(conn, verdicts)
    if settles is None or among(reviewer, settles) is not None:
        return None, None, None
    mine = final_key(conn, after)
    took = next((who for who in settles if final_key(conn, json.loads(verdicts[who]["after_json"])) == mine), None)
    return json.dumps(settles, ensure_ascii=False), took, settled_json(verdicts, settles)


def settled_json(verdicts: dict[str, Any], settles: list[str]) -> str:
    """What an adjudication of `settles` settles: each one's current verdict, by id."""
    return json.dumps({who: verdicts[who]["id"] for who in settles}, ensure_ascii=False)
