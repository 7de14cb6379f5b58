"""The Review screen's pages (one per list, for a filter) and the progress on a filter: what
each filter holds, and what its progress counts, in one place for the screen and the CLI.

Read again whenever the store changes elsewhere, at a million mention rows (216,000 lists).
Only a list with standing verdicts needs the review rules (which verdicts judge its answer,
whether its validators disagree, whether an adjudication settles it); verdicts are thousands
where lists are hundreds of thousands. So every other list becomes its page at once (no
verdict: unreviewed, in no reviewer queue), the filters that need a verdict read only the
lists verdicts are about, and progress counts from those lists and one COUNT of the rest.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from operator import itemgetter
from typing import Any, NamedTuple

from workbench.store.current_lists import counts_now
from workbench.store.db import tuples
from workbench.store.errors import InputError
from workbench.store.reads.change_log import changed_lists, lists_version
from workbench.store.review.base import latest_by_reviewer, standing
from workbench.store.review.reviewer_names import among, reviewer_key, same_reviewer
from workbench.store.review.state import disagreement, resolution

FILTERS = ("all", "unreviewed", "disagreements", "reviewer disagreements", "resolved")
# Filters only a list with a verdict can be in.
JUDGED = ("reviewer disagreements", "resolved")
# What the progress on a filter counts: the lists it covers, and for "unreviewed" every list
# in scope (the reviewed ones too), for "reviewer disagreements" the settled ones too.
PROGRESS_OF = {"unreviewed": ("all",), "reviewer disagreements": ("reviewer disagreements", "resolved")}
PAGE_COLUMNS = ("id", "study_id", "model", "topic", "cluster", "question", "repetition", "source", "agreement")
PAGE_COLUMNS += ("response_key",)
PAGE_KEYS = (*PAGE_COLUMNS, "verdict", "verdicts", "adjudication", "adjudicators", "blind")
_SCOPE = tuple(PAGE_COLUMNS.index(c) for c in ("study_id", "model", "topic", "question", "repetition"))
# The lists some standing verdict is about (their scope's), from the verdicts' side.
# CROSS JOIN: from the verdicts (thousands), never a scan of the lists (a million: 0.1 s).
_VERDICT_LISTS = """FROM verdicts v CROSS JOIN mention_lists j ON j.study_id = v.study_id AND j.model = v.model
    AND j.topic = v.topic AND j.question = v.question AND j.repetition = v.repetition WHERE v.undone = 0"""
_JUDGED_LISTS = f"l.id IN (SELECT j.id {_VERDICT_LISTS})"
_JUDGED_PAIRS = f"SELECT j.id, v.id {_VERDICT_LISTS}"


def _where(study, only, topic, model, list_ids, judged: bool) -> tuple[str, list[Any]]:
    clauses, args = [counts_now("l")], []  # a superseded answer's list is not the study's any more
    # Given list ids, they are looked up one by one: `+` keeps SQLite from reading every list of
    # the study through its index instead (0.09 s at a million lists, for a few ids).
    unindexed = "+" if list_ids is not None else ""
    for column, value in (("study_id", study), ("topic", topic), ("model", model)):
        if value:
            clauses.append(
                f"{unindexed}l.{column} = "
                + ("(SELECT id FROM studies WHERE name = ?)" if column == "study_id" else "?")
            )
            args.append(value)
    if only == "disagreements":
        clauses.append("l.agreement IS NOT NULL AND l.agreement < 1")
    if list_ids is not None:
        clauses.append("l.id IN (SELECT value FROM json_each(?))")
        args.append(json.dumps(list(list_ids)))
    if judged:
        clauses.append(_JUDGED_LISTS)
    return " AND ".join(clauses), args


def _rows(conn: sqlite3.Connection, where: tuple[str, list[Any]]) -> list[tuple]:
    columns = ", ".join(f"l.{c}" for c in PAGE_COLUMNS)
    return tuples(conn, f"SELECT {columns} FROM mention_lists l WHERE {where[0]} ORDER BY l.id", tuple(where[1]))


def _keep(conn, only: str, verdicts: dict, settled: Any, reviewer: str | None, blind: bool) -> bool:
    """Whether a list with these verdicts (and this adjudication settling it) is in `only`."""
    if only == "unreviewed":
        return among(reviewer, verdicts) is None if blind else not verdicts
    if only in JUDGED:
        if blind or disagreement(conn, verdicts) is None:
            return False
        return (settled is None) == (only == "reviewer disagreements")
    return True


def _item(page: dict[str, Any], verdicts: dict, settled: Any, blind: bool) -> dict[str, Any]:
    applied = [v for v in verdicts.values() if not v["blind"]]
    latest = max(applied or verdicts.values(), key=lambda v: v["id"], default=None)
    settled = None if blind else settled
    page["verdict"] = f"{latest['decision']}|{latest['reviewer']}" if latest is not None else None
    page["verdicts"] = {
        who: {"decision": v["decision"], "list": json.loads(v["after_json"]), "blind": bool(v["blind"])}
        for who, v in sorted(verdicts.items())
    }
    page["adjudication"] = (
        {"by": settled["reviewer"], "took": settled["took"], "settles": json.loads(settled["adjudicates"])}
        if settled is not None
        else None
    )
    page["adjudicators"] = sorted(who for who, v in verdicts.items() if v["adjudicates"])
    page["blind"] = blind
    return page


def _pages(conn, where: tuple, only: str, reviewer: str | None, blind: bool, every: dict) -> list[dict[str, Any]]:
    """The pages of the lists `where` selects that are in `only`. `every`: each scope's
    standing verdicts."""
    items = []
    for row in _rows(conn, where):
        scope = every.get(tuple(row[i] for i in _SCOPE)) if every else None
        if not scope:  # no verdict: in every filter but those of reviewed lists, with nothing to show
            if only not in JUDGED:
                page = dict(zip(PAGE_COLUMNS, row))
                page.update(verdict=None, verdicts={}, adjudication=None, adjudicators=[], blind=blind)
                items.append(page)
            continue
        page = dict(zip(PAGE_COLUMNS, row))
        verdicts = latest_by_reviewer(scope, page["response_key"])
        settled = resolution(scope, page["response_key"])
        if blind:
            verdicts = {who: v for who, v in verdicts.items() if same_reviewer(who, reviewer)}
        if _keep(conn, only, verdicts, settled, reviewer, blind):
            items.append(_item(page, verdicts, settled, blind))
    return items


def review_items(
    conn: sqlite3.Connection,
    study: str | None = None,
    only: str = "all",
    topic: str | None = None,
    model: str | None = None,
    list_ids: list[int] | None = None,
    reviewer: str | None = None,
    blind: bool = False,
) -> list[dict[str, Any]]:
    """What a reviewer reads per response: question, answer, experts' lists, current
    list and verdicts. `only`: all | unreviewed | disagreements (between experts) |
    reviewer disagreements (two reviewers' final lists differ and no adjudication settles
    them: the queue to adjudicate) | resolved (settled by an adjudication).
    Blind (a second reviewer): only the reviewer's own verdict is shown, and "unreviewed"
    means not reviewed by them; nothing of other reviewers shows, not even in `verdict`."""
    if only not in FILTERS:
        raise InputError(f"no review filter {only!r} (one of: {', '.join(FILTERS)})")
    where = _where(study, only, topic, model, list_ids, judged=only in JUDGED)
    return _pages(conn, where, only, reviewer, blind, standing(conn))


class PagesMark(NamedTuple):
    """What a read of the pages saw: which store (a file made again is another), its counts
    of list changes and of spellings re-resolved (store/reads/change_log.py), and each list some
    standing verdict is about, with those verdicts' ids."""

    store: int
    lists: int
    names: int
    judged: dict[int, frozenset[int]]


def in_filter(conn: sqlite3.Connection, list_ids: list[int], only: str, reviewer: str | None, blind: bool) -> set[int]:
    """Which of these lists are in `only` by the review rules (whether they count now is the
    caller's to check: the lists of a search are read with it)."""
    where = ("l.id IN (SELECT value FROM json_each(?))", [json.dumps(list(list_ids))])
    return {page["id"] for page in _pages(conn, where, only, reviewer, blind, standing(conn))}


def judged_list_ids(conn: sqlite3.Connection) -> set[int]:
    """The lists some standing verdict is about (thousands where lists are hundreds of thousands)."""
    return {r[0] for r in conn.execute(f"SELECT DISTINCT j.id {_VERDICT_LISTS}")}


def pages_mark(conn: sqlite3.Connection) -> PagesMark:
    store, lists, names = lists_version(conn)
    judged: dict[int, set[int]] = {}
    for list_id, verdict_id in conn.execute(_JUDGED_PAIRS):
        judged.setdefault(list_id, set()).add(verdict_id)
    return PagesMark(store, lists, names, {i: frozenset(ids) for i, ids in judged.items()})


def pages_since(
    conn: sqlite3.Connection,
    earlier: tuple[list[dict[str, Any]], PagesMark] | None,
    only: str = "all",
    *,
    study: str | None = None,
    topic: str | None = None,
    model: str | None = None,
    list_ids: list[int] | None = None,
    reviewer: str | None = None,
    blind: bool = False,
) -> tuple[list[dict[str, Any]], PagesMark]:
    """`review_items` with these arguments, and the mark to give back with them next time.
    `earlier`: the pages and mark of a read with the same arguments. Then only the lists
    changed since (the store logs every list added, edited, deleted or superseded) and the
    lists whose standing verdicts changed (a verdict, an undo; after a merge or a rename, every
    list with verdicts: whether two reviewers' lists agree is read by entity) are read again;
    every other page is kept, its details (read for the response on screen) left out. The same
    pages as `review_items` gives, at the cost of what changed."""
    mark = pages_mark(conn)
    if earlier is None or earlier[1].store != mark.store or earlier[1].lists > mark.lists:
        return review_items(conn, study, only, topic, model, list_ids, reviewer, blind), mark
    pages, was = earlier
    judged = was.judged.keys() | mark.judged.keys()
    if was.names == mark.names:  # no spelling re-resolved: a list's verdicts show as they did
        judged = {i for i in judged if was.judged.get(i) != mark.judged.get(i)}
    changed = set(changed_lists(conn, was.lists)) | judged
    if len(changed) > len(pages) // 2:  # most lists replaced (an import): read them all
        return review_items(conn, study, only, topic, model, list_ids, reviewer, blind), mark
    wanted = set(list_ids) if list_ids is not None else None
    again = sorted(changed if wanted is None else changed & wanted)
    kept = [
        page if len(page) == len(PAGE_KEYS) else {k: page[k] for k in PAGE_KEYS}
        for page in pages
        if page["id"] not in changed and (wanted is None or page["id"] in wanted)
    ]
    fresh = review_items(conn, study, only, topic, model, again, reviewer, blind)
    return sorted(kept + fresh, key=itemgetter("id")), mark


def progress_counts(
    conn: sqlite3.Connection,
    reviewer: str | None,
    only: str = "all",
    *,
    study: str | None = None,
    topic: str | None = None,
    model: str | None = None,
    list_ids: list[int] | None = None,
    blind: bool = False,
) -> dict[str, Any]:
    """Progress on the current filter (`PROGRESS_OF` says which lists it counts): `total`
    lists, `by` each reviewer's verdicts among them (blind: the reviewer's own only), `mine`
    judged by `reviewer`, `reviewed` judged by anyone and `resolved` adjudicated (both None
    when blind: nothing of others shows). Only lists with a verdict are read one by one."""
    if only not in FILTERS:
        raise InputError(f"no review filter {only!r} (one of: {', '.join(FILTERS)})")
    every = standing(conn)
    total, judged = 0, []
    for part in PROGRESS_OF.get(only, (only,)):
        some = _pages(conn, _where(study, part, topic, model, list_ids, True), part, reviewer, blind, every)
        judged += some
        if part in JUDGED:  # every list of these has a verdict: all of them are in `some`
            total += len(some)
        else:
            clauses, args = _where(study, part, topic, model, list_ids, False)
            total += conn.execute(f"SELECT COUNT(*) FROM mention_lists l WHERE {clauses}", args).fetchone()[0]
    by = Counter(reviewer_key(who) for item in judged for who in item["verdicts"])  # a person, however spelt
    shown = {reviewer_key(who): who for item in reversed(judged) for who in item["verdicts"]}
    mine = by.get(reviewer_key(reviewer or ""), 0)
    return {
        "total": total,
        "by": {reviewer: mine} if blind else {shown[k]: n for k, n in by.items()},
        "mine": mine,
        "reviewed": None if blind else sum(1 for item in judged if item["verdicts"]),
        "resolved": None if blind else sum(1 for item in judged if item["adjudication"]),
    }


def review_progress(conn: sqlite3.Connection, reviewer: str, only: str = "all", **where: Any) -> dict[str, Any]:
    """Progress on the current filter (see `progress_counts`): `total`, `mine`, `reviewed`, `resolved`."""
    counts = progress_counts(conn, reviewer, only, **where)
    return {k: counts[k] for k in ("total", "mine", "reviewed", "resolved")}
