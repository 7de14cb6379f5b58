"""`workbench plan`: how many questions and repetitions a study needs (docs/methods.md,
"Planning a study"): a pilot's variance components, the models' throughput, the study file's
design and the trade-off table. The formulas are workbench/analysis/sizing_power.py's.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import Any

import numpy as np

from workbench.analysis.sizing_power import (  # noqa: F401  (the planner's names, as callers import them)
    LEVEL,
    REPETITIONS,
    Components,
    PairedComponents,
    PlanError,
    assumed,
    assumed_paired,
    half_width,
    power,
    questions_for_half_width,
    questions_for_power,
    z,
)

# -- from a pilot's stored answers -------------------------------------------------


def anova(hits: np.ndarray, n: np.ndarray) -> tuple[float, float, float] | None:
    """(p, between, within) of one scope's binary outcome, from each question's hits and
    answers: the one-way ANOVA estimators (between clipped at 0); None without two
    questions or without a question answered twice."""
    keep = n > 0
    hits, n = hits[keep].astype(float), n[keep].astype(float)
    q, total = hits.size, n.sum()
    if q < 2 or total <= q:
        return None
    p = hits.sum() / total
    msw = float(np.sum(hits - hits**2 / n)) / (total - q)
    msb = float(np.sum(n * (hits / n - p) ** 2)) / (q - 1)
    n0 = (total - float(np.sum(n**2)) / total) / (q - 1)
    return float(p), max(0.0, (msb - msw) / n0), msw


def planning_methods() -> list[Any]:
    """The methods the planner reads (those offering a `planner` part), in order."""
    from workbench.methods import registry
    from workbench.methods.hooks import part

    return [registry.get(name) for name in registry.names() if part(registry.get(name), "planner") is not None]


def _planner(method: str | None) -> Any:
    """The part sizing the method's studies (`hook_types.Sizing`); None for a method that has
    none (or not installed)."""
    from workbench.methods import registry
    from workbench.methods.hooks import part

    return part(registry.get(method), "planner") if method in registry.names() else None


def _planned_kinds() -> str:
    """The studies the planner reads, by the title of their method ("ChoiceEval")."""
    from workbench.methods.hooks import title

    return " or ".join(title(m) for m in planning_methods()) or "no"


def pilot_outcomes(conn: sqlite3.Connection, study: str, outcome: str) -> dict[tuple[str, str], Any]:
    """Per model x topic (in that order), the pilot's answers as its method's planner module
    reads them (`pilot_scopes`): each scope's `per_question(judged_by)` gives per question
    (answers, answers with the outcome of `judged_by`, itself or another model's scope)."""

    from workbench.store.requests import studies

    study_id = studies.study_id(conn, study)
    if study_id is None:
        known = ", ".join(studies.study_names(conn)) or "none"
        raise PlanError(f"--pilot: no study named {study!r} in this database (known: {known})")
    method = studies.study_method(conn, study)
    planner = _planner(method)
    if planner is None:
        raise PlanError(
            f"--pilot {study!r}: its method ({method}) has no pilot the planner reads (it reads "
            f"{_planned_kinds()} studies' answers): give --p and --icc instead"
        )
    return planner.pilot_scopes(conn, study_id, outcome)


def pilot_components(conn: sqlite3.Connection, study: str, outcome: str = "peir") -> tuple[Components, list[dict]]:
    """The share's components from a pilot: each model x topic's ANOVA estimates, averaged
    (weighted by questions); and the per-scope rows, for the table."""
    scopes = pilot_outcomes(conn, study, outcome)
    rows, weighted = [], []
    for (model, topic), scope in scopes.items():
        per_q = scope.per_question(scope)
        n = np.array([v[0] for v in per_q.values()])
        hits = np.array([v[1] for v in per_q.values()])
        estimate = anova(hits, n)
        row = {"model": model, "topic": topic, "questions": int(n.size), "answers": int(n.sum())}
        if estimate is None:
            row["na_reason"] = "needs 2 questions and a question answered twice"
        else:
            row.update(p=estimate[0], between=estimate[1], within=estimate[2])
            weighted.append((n.size, *estimate))
        rows.append(row)
    if not weighted:
        raise PlanError(
            f"--pilot {study!r}: no model x topic with 2 questions and a question answered twice "
            "(no ranked lists, or one answer per question): give --p and --icc instead"
        )
    w = np.array([x[0] for x in weighted], dtype=float)
    p, between, within = (float(np.average([x[i] for x in weighted], weights=w)) for i in (1, 2, 3))
    if between + within <= 0:
        raise PlanError(
            f"--pilot {study!r}: the outcome ({outcome}) is the same in every answer (p {p:.3f}): "
            "its variance is 0 and plans nothing; give --p and --icc instead"
        )
    source = f"pilot {study!r}: {len(weighted)} model x topic(s), outcome {outcome}"
    return Components(p, between, within, source), rows


def pilot_paired(conn: sqlite3.Connection, study: str, outcome: str = "peir") -> PairedComponents | None:
    """The paired difference's components from every pair of the pilot's models on every
    topic (outcome of A, the first in name order, for both: its e*), averaged; None with
    fewer than two models."""
    scopes = pilot_outcomes(conn, study, outcome)
    estimates = []
    for (ka, sa), (kb, sb) in combinations(scopes.items(), 2):
        if ka[1] != kb[1]:
            continue
        qa, qb = sa.per_question(sa), sb.per_question(sa)  # both by A's outcome (its e*)
        common = sorted(set(qa) & set(qb))
        if len(common) < 2:
            continue
        na, ha = (np.array([qa[q][i] for q in common], dtype=float) for i in (0, 1))
        nb, hb = (np.array([qb[q][i] for q in common], dtype=float) for i in (0, 1))
        if np.any(na < 2) or np.any(nb < 2):
            continue  # a question answered once has no within-question variance
        wa, wb = ha * (na - ha) / (na * (na - 1)), hb * (nb - hb) / (nb * (nb - 1))  # unbiased s2 per question
        d = hb / nb - ha / na
        between = max(0.0, float(np.var(d, ddof=1) - np.mean(wa / na + wb / nb)))
        estimates.append((len(common), between, float(np.mean(wa + wb))))
    if not estimates:
        return None
    w = np.array([e[0] for e in estimates], dtype=float)
    between, within = (float(np.average([e[i] for e in estimates], weights=w)) for i in (1, 2))
    return PairedComponents(between, within, f"pilot {study!r}: {len(estimates)} model pair x topic(s)")


# -- throughput -----------------------------------------------------------------------


def measured_rates(conn: sqlite3.Connection) -> dict[str, tuple[float, int, str]]:
    """Per model identity: answers per second while it was answering (its answers'
    [started, finished] spans merged, so concurrency counts and the pauses between runs do
    not), the number of answers timed, and the label the store knows the model by."""
    from workbench.store.requests.plan_reads import answer_spans

    spans: dict[str, list[tuple[float, float]]] = {}
    labels: dict[str, str] = {}
    for identity, label, started, finished in answer_spans(conn):
        try:
            begin, end = datetime.fromisoformat(started).timestamp(), datetime.fromisoformat(finished).timestamp()
        except (TypeError, ValueError):
            continue
        spans.setdefault(identity, []).append((begin, max(begin, end)))
        labels[identity] = label
    rates = {}
    for identity, timed in spans.items():
        busy, reach = 0.0, -math.inf
        for begin, end in timed:  # ordered by start: the union of the spans
            if begin > reach:
                busy += end - begin
            elif end > reach:
                busy += end - reach
            reach = max(reach, end)
        if busy > 0:
            rates[identity] = (len(timed) / busy, len(timed), labels[identity])
    return rates


def model_rates(
    conn: sqlite3.Connection, study: str, models: list[str], measured: dict[str, tuple[float, int, str]]
) -> tuple[dict[str, float | None], dict[str, str]]:
    """Each model of the study file (as written) with its measured throughput, found by the
    model's identity as `workbench run` keys it: what the model is, not how the file spells
    it (transport options, the replicas serving it). And why a model has none."""
    from workbench.engines.resolve import continue_identities, resolve
    from workbench.engines.specs import parse_spec
    from workbench.store.errors import UserFacingError
    from workbench.store.requests import studies

    found, reasons = {}, {}
    for text in models:
        try:
            found[text] = resolve(parse_spec(text))
        except UserFacingError as exc:  # a GGUF not on this machine: no identity to look up
            reasons[text] = f"the model is not found here ({exc})"
    kept = continue_identities(list(found.values()), studies.study_identities(conn, study))
    identities = {text: r.identity for text, r in zip(found, kept)}
    rates: dict[str, float | None] = {}
    for text in models:
        rate = measured.get(identities.get(text, ""), (None,))[0]
        if rate is None:
            reasons.setdefault(text, "not measured in --db")
        rates[text] = rate
    return rates, reasons


# -- the study file and the table -------------------------------------------------------


@dataclass(frozen=True)
class StudyDesign:
    """What a study file asks: its questions per topic, repetitions and models."""

    name: str
    topics: dict[str, int]
    repetitions: int
    models: list[str]
    na_reason: str | None = None  # why its questions cannot be counted
    strata: int = 1  # the clusters a topic's questions are drawn within

    @property
    def questions(self) -> int | None:
        """The questions of its smallest topic (each topic's shares stand on their own)."""
        return min(self.topics.values()) if self.topics else None


def study_design(path: str) -> StudyDesign:
    """The study file read as `workbench run` reads it (a bad file: one line naming the key)."""

    from workbench.methods.study_files import load_study

    study = load_study(path)
    models = [str(m) for m in getattr(study, "models", [])]
    planner = _planner(study.method)
    if planner is None:
        reason = f"a {study.method} study: the planner counts a {_planned_kinds()} study's questions"
        return StudyDesign(study.name, {}, getattr(study, "repetitions", 1), models, reason)
    strata = planner.strata(study) if hasattr(planner, "strata") else 1
    return StudyDesign(study.name, planner.topics(study), study.repetitions, models, strata=strata)


@dataclass(frozen=True)
class Goal:
    half_width: float = 0.05
    difference: float | None = None
    power: float = 0.8
    level: float = LEVEL


def trade_off(
    share: Components, paired: PairedComponents | None, goal: Goal, repetitions: list[int], strata: int = 1
) -> list[dict[str, float | int | None]]:
    """Per number of repetitions: the questions needed for the half-width and (with a
    difference) for the power, in `strata` clusters."""
    rows = []
    for r in repetitions:
        row: dict[str, float | int | None] = {"repetitions": r}
        row["questions_for_half_width"] = questions_for_half_width(share, r, goal.half_width, goal.level, strata)
        if paired is not None and goal.difference:
            row["questions_for_power"] = questions_for_power(paired, r, goal.difference, goal.power, goal.level, strata)
        rows.append(row)
    return rows


def current(
    share: Components, paired: PairedComponents | None, goal: Goal, design: StudyDesign
) -> dict[str, float | int | None]:
    """What the study file gives: its half-width and, with a difference, its power."""
    q, r = design.questions, design.repetitions
    out: dict[str, float | int | None] = {"questions": q, "repetitions": r}
    if q is None or q < 2:
        return out
    out["half_width"] = half_width(share, q, r, goal.level, design.strata)
    if paired is not None and goal.difference:
        out["power"] = power(paired, q, r, goal.difference, goal.level, design.strata)
    return out


def hours(requests: int, models: list[str], rates: dict[str, float | None]) -> float | None:
    """Hours for `requests` per model, the models one after another at their rates; None
    when a model's rate is unknown."""
    if not models or any(rates.get(m) is None for m in models):
        return None
    return sum(requests / rates[m] for m in models) / 3600  # type: ignore[operator]
