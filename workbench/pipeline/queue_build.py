"""Planning a model unit by unit: an edited study plans again only the units it changed.

A method may split a model's plan into units (its optional `plan_units` hook: ChoiceEval
yields one per question, with its repetitions), each with a key and a digest of everything
its requests are made from. The units whose digest equals their mark (store/requests/plan_marks.py)
are neither built nor stored again; the others are planned, and the keys of units gone or
changed that no unit plans any more are superseded. The store ends as a whole plan leaves
it (`queue.plan` of every request, then `queue.supersede_others`): the same requests, the
same superseded flags, the answers of the units kept untouched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.pipeline.queue_limits import bounded
from workbench.store.db import transaction
from workbench.store.requests import plan_marks, queue


@dataclass
class Survey:
    """A model's units against their marks."""

    planned: list[tuple[str, str, list[queue.PlannedRequest]]] = field(default_factory=list)  # new or changed
    removed: list[str] = field(default_factory=list)  # marked, no longer in the plan
    kept: int = 0  # units whose mark still holds
    kept_total: int = 0  # their requests

    @property
    def requests(self) -> list[queue.PlannedRequest]:
        return [r for _unit, _digest, requests in self.planned for r in requests]


def count_units(units: Iterable, stored: dict[str, tuple[str, int]], total: int, limit: int, what: str) -> int:
    """`total` plus the requests of these units (a marked one by its mark, the others built
    and counted), PlanTooLarge as soon as it passes `limit`."""
    for unit, digest, requests in units:
        mark = stored.get(unit)
        if mark is not None and mark[0] == digest != plan_marks.PENDING:
            total += mark[1]
            if total > limit:
                bounded((), total, limit, what, keep=False)  # refuses, in its words
        else:
            total += bounded(requests, total, limit, what, keep=False)
    return total


def survey(units: Iterable, stored: dict[str, tuple[str, int]]) -> Survey:
    """Which units to plan: only those not marked with their digest are built."""
    found, seen = Survey(), set()
    for unit, digest, requests in units:
        if unit in seen:
            raise ValueError(f"the plan has unit {unit!r} twice: a unit's key must be unique in a model's plan")
        seen.add(unit)
        mark = stored.get(unit)
        if mark is not None and mark[0] == digest != plan_marks.PENDING:
            found.kept += 1
            found.kept_total += mark[1]
        else:
            found.planned.append((unit, digest, list(requests)))
    found.removed = [unit for unit in stored if unit not in seen]
    return found


def plan_model(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str, found: Survey) -> tuple[int, int]:
    """Store a surveyed plan; returns (requests new in the store, requests in the plan)."""
    if not found.kept:  # nothing to keep: the whole plan, as a method without units is planned
        return _plan_whole(conn, study_id, model_id, stage, found)
    return _plan_changed(conn, study_id, model_id, stage, found)


def _marks(found: Survey) -> list[tuple[str, str, int, list[str]]]:
    return [(unit, digest, len(requests), [r.key for r in requests]) for unit, digest, requests in found.planned]


def _plan_whole(conn, study_id: int, model_id: int, stage: str, found: Survey) -> tuple[int, int]:
    plan_marks.forget(conn, study_id, model_id)
    requests = found.requests
    new = queue.plan(conn, study_id, model_id, requests)
    queue.supersede_others(conn, study_id, model_id, stage, [r.key for r in requests])
    plan_marks.settle_follow_ups(conn, study_id, model_id, stage)  # extractions go with their answers
    plan_marks.finish_units(conn, study_id, model_id, _marks(found), ())
    return new, len(requests)


def _plan_changed(conn, study_id: int, model_id: int, stage: str, found: Survey) -> tuple[int, int]:
    marks = _marks(found)
    touched = {unit for unit, *_ in marks} | set(found.removed)
    old = {unit: keys for unit, keys in plan_marks.unit_keys(conn, study_id, model_id, touched)}
    new = {unit: keys for unit, _digest, _total, keys in marks}
    # Marked pending with every key they may leave in the store: a run killed before
    # finish_units plans them again and still supersedes what they no longer ask.
    plan_marks.begin_units(conn, study_id, model_id, {u: old.get(u, []) + new.get(u, []) for u in touched})
    requests = found.requests
    added = queue.plan(conn, study_id, model_id, requests)
    current = [r.key for r in requests]
    dropped = _dropped(conn, study_id, model_id, touched, {k for keys in old.values() for k in keys} - set(current))
    with transaction(conn):  # what was planned from an answer (its extractions) goes with it
        now, gone = queue.supersede_changed(conn, study_id, model_id, stage, current, dropped)
        plan_marks.follow_keys(conn, gone, 1)
        plan_marks.follow_keys(conn, now, 0)
    plan_marks.finish_units(conn, study_id, model_id, marks, found.removed)
    return added, found.kept_total + len(requests)


def _dropped(conn, study_id: int, model_id: int, touched: set[str], candidates: set[str]) -> list[str]:
    """The keys touched units no longer plan that no kept unit plans either (two questions of
    the same wording in two clusters ask the same request)."""
    if candidates:
        for unit, keys in plan_marks.unit_keys(conn, study_id, model_id):
            if unit not in touched:
                candidates.difference_update(keys)
    return sorted(candidates)
