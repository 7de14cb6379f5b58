"""ChoiceEval for `workbench plan` (docs/methods.md, "Planning a study"): the study's
`planner_module`. The questions a study file asks per topic, and a pilot study's answers as
per-question outcomes: whether an answer names the model's preferred entity on the topic
(--outcome peir) or any entity (--outcome direct)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import Any

from workbench.methods.choice.counts import ResponseList, presence_of
from workbench.methods.choice.metrics import preferred_entity


def topics(study: Any) -> dict[str, int]:
    """The questions of each topic: the file's, and those `generate` asks of every cluster."""
    counted = Counter(q.topic for q in study.questions)
    for topic, per_cluster in study.generate.items():
        counted[topic] += per_cluster * len(study.clusters)
    return dict(counted)


def strata(study: Any) -> int:
    """The clusters a topic's questions are drawn within (compare's strata: its t test has
    questions - clusters degrees of freedom)."""
    named = {q.cluster for q in study.questions}
    if study.generate:
        named |= {getattr(c, "name", c) for c in study.clusters}
    return max(1, len(named))


@dataclass(frozen=True)
class PilotScope:
    """One model x topic of a pilot: its answers, the outcome asked and, for peir, the
    entity whose naming is the outcome (the model's preferred entity on the topic)."""

    lists: list[ResponseList]
    outcome: str
    entity: str | None

    def per_question(self, judged_by: PilotScope) -> dict[tuple[str, str], tuple[int, int]]:
        """Per question (cluster, wording): (answers, answers with the outcome of `judged_by`,
        this scope or another model's on the same topic: its preferred entity named)."""
        named = _outcome(self.outcome, judged_by.entity)
        counts: dict[tuple[str, str], list[int]] = {}
        for item in self.lists:
            cell = counts.setdefault((item.cluster or "", item.question), [0, 0])
            cell[0] += 1
            cell[1] += bool(named(item))
        return {k: (v[0], v[1]) for k, v in counts.items()}


def _outcome(outcome: str, entity: str | None):
    if outcome == "direct":
        return lambda item: bool(item.entities)
    return lambda item: entity in item.entities


def pilot_scopes(conn: sqlite3.Connection, study_id: int, outcome: str) -> dict[tuple[str, str], PilotScope]:
    """Per model x topic, in that order: the stored lists of the pilot study."""
    from workbench.store.entities import mentions

    scopes: dict[tuple[str, str], list] = {}
    for row in mentions.load_lists(conn, study_id):
        scopes.setdefault((row[0], row[1]), []).append(ResponseList(*row[:5], tuple(row[5]), tuple(row[6])))
    out = {}
    for key, lists in sorted(scopes.items()):
        entity = preferred_entity(lists, presence_of(lists))[0] if outcome == "peir" else None
        out[key] = PilotScope(lists, outcome, entity)
    return out
