"""`workbench plan`: how many questions and repetitions a study needs (docs/methods.md,
"Planning a study").

Answers to one question resemble each other, so repetitions buy less than questions: with
an intra-question correlation ICC, R repetitions of Q questions estimate a share p with

    Var(p^) = p (1 - p) (1 + (R - 1) ICC) / (Q R)          (design effect 1 + (R - 1) ICC)

and a paired difference between two models (each question's mean difference d_q, over Q
questions) with

    Var(d^) = (s2_b,diff + s2_w / R) / Q

where s2_b,diff is the between-question variance of the two models' difference in chance
and s2_w the within-question variance of one answer's difference (both models' within
variances summed). The questions needed follow from the normal approximation: a half-width
h at level 1 - a needs z(1 - a/2)^2 Var <= h^2; power 1 - b against a difference D needs
(z(1 - a/2) + z(1 - b))^2 Var <= D^2. The components come from stated assumptions (--p,
--icc) or from a pilot study's stored answers (one-way ANOVA over questions).
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from statistics import NormalDist
from typing import Any

import numpy as np

from workbench.store.errors import UserFacingError

REPETITIONS = (1, 2, 3, 5, 10, 20)  # the trade-off table's rows (and the study file's own R)
LEVEL = 0.95


class PlanError(UserFacingError):
    """A plan that cannot be made from what was given: one line, exit status 2."""


@dataclass(frozen=True)
class Components:
    """One share's variance components: its mean p, the between-question variance of the
    questions' chances and the mean within-question variance of an answer."""

    p: float
    between: float
    within: float
    source: str

    @property
    def icc(self) -> float:
        total = self.between + self.within
        return self.between / total if total > 0 else 0.0


@dataclass(frozen=True)
class PairedComponents:
    """A paired difference's: between-question variance of the difference in chance
    (s2_b,diff) and the within-question variance of one answer's difference (s2_w)."""

    between: float
    within: float
    source: str


def z(q: float) -> float:
    return NormalDist().inv_cdf(q)


def assumed(p: float, icc: float) -> Components:
    """Components of a share p whose questions' chances have intra-question correlation icc
    (Beta-distributed chances: Var(p_q) = icc p (1 - p), E p_q (1 - p_q) = (1 - icc) p (1 - p))."""
    return Components(p, icc * p * (1 - p), (1 - icc) * p * (1 - p), f"assumed: p {p:g}, ICC {icc:g}")


def assumed_paired(a: Components, b: Components, correlation: float = 0.0) -> PairedComponents:
    """The difference of two models' shares from each one's components, their questions'
    chances correlated `correlation` across the two models (0: unrelated, the cautious case)."""
    between = a.between + b.between - 2 * correlation * math.sqrt(a.between * b.between)
    return PairedComponents(max(between, 0.0), a.within + b.within, f"{a.source}; models' correlation {correlation:g}")


def half_width(c: Components, questions: int, repetitions: int, level: float = LEVEL) -> float:
    variance = c.p * (1 - c.p) * (1 + (repetitions - 1) * c.icc) / (questions * repetitions)
    return z(1 - (1 - level) / 2) * math.sqrt(variance)


def questions_for_half_width(c: Components, repetitions: int, target: float, level: float = LEVEL) -> int:
    variance_one = c.p * (1 - c.p) * (1 + (repetitions - 1) * c.icc) / repetitions  # of one question's mean
    return max(2, math.ceil(z(1 - (1 - level) / 2) ** 2 * variance_one / target**2))


def power(d: PairedComponents, questions: int, repetitions: int, difference: float, level: float = LEVEL) -> float:
    se = math.sqrt(_difference_variance(d, repetitions) / questions)
    return NormalDist().cdf(abs(difference) / se - z(1 - (1 - level) / 2))


def questions_for_power(
    d: PairedComponents, repetitions: int, difference: float, target: float = 0.8, level: float = LEVEL
) -> int:
    zs = z(1 - (1 - level) / 2) + z(target)
    return max(2, math.ceil(zs**2 * _difference_variance(d, repetitions) / difference**2))


def _difference_variance(d: PairedComponents, repetitions: int) -> float:
    """One question's variance of the difference; refused where it is 0 (a pilot whose models
    answer every question alike, each question all one way): it would promise full power from 2
    questions, as a share without variance would plan any half-width from 2."""
    variance = d.between + d.within / repetitions
    if variance <= 0:
        raise PlanError(
            f"{d.source}: the models' difference is the same on every question and answer (its variance is 0) "
            "and plans no comparison; give --p, --icc and --difference instead of --pilot"
        )
    return variance


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
    """The methods the planner reads (those naming a `planner_module`), in order."""
    from workbench.methods import registry
    from workbench.methods.hook_types import hook

    return [registry.get(name) for name in registry.names() if hook(registry.get(name), "planner_module")]


def _planner_module(method: str | None) -> str:
    """The module planning the method's studies; "" for a method that has none (or not installed)."""
    from workbench.methods import registry
    from workbench.methods.hook_types import hook

    return hook(registry.get(method), "planner_module") if method in registry.names() else ""


def _planned_kinds() -> str:
    """The studies the planner reads, by the title of their method ("ChoiceEval")."""
    from workbench.methods.hook_types import title

    return " or ".join(title(m) for m in planning_methods()) or "no"


def pilot_outcomes(conn: sqlite3.Connection, study: str, outcome: str) -> dict[tuple[str, str], Any]:
    """Per model x topic (in that order), the pilot's answers as its method's planner module
    reads them (`pilot_scopes`): each scope's `per_question(judged_by)` gives per question
    (answers, answers with the outcome of `judged_by`, itself or another model's scope)."""
    from importlib import import_module

    from workbench.store import studies

    study_id = studies.study_id(conn, study)
    if study_id is None:
        known = ", ".join(studies.study_names(conn)) or "none"
        raise PlanError(f"--pilot: no study named {study!r} in this database (known: {known})")
    method = studies.study_method(conn, study)
    module = _planner_module(method)
    if not module:
        raise PlanError(
            f"--pilot {study!r}: its method ({method}) has no pilot the planner reads (it reads "
            f"{_planned_kinds()} studies' answers): give --p and --icc instead"
        )
    return import_module(module).pilot_scopes(conn, study_id, outcome)


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
    from workbench.store.plan_reads import answer_spans

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
    from workbench.models import continue_identities, resolve
    from workbench.specs import parse_spec
    from workbench.store import studies
    from workbench.store.errors import UserFacingError

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

    @property
    def questions(self) -> int | None:
        """The questions of its smallest topic (each topic's shares stand on their own)."""
        return min(self.topics.values()) if self.topics else None


def study_design(path: str) -> StudyDesign:
    """The study file read as `workbench run` reads it (a bad file: one line naming the key)."""
    from importlib import import_module

    from workbench.studies.spec import load_study

    study = load_study(path)
    models = [str(m) for m in getattr(study, "models", [])]
    module = _planner_module(study.method)
    if not module:
        reason = f"a {study.method} study: the planner counts a {_planned_kinds()} study's questions"
        return StudyDesign(study.name, {}, getattr(study, "repetitions", 1), models, reason)
    return StudyDesign(study.name, import_module(module).topics(study), study.repetitions, models)


@dataclass(frozen=True)
class Goal:
    half_width: float = 0.05
    difference: float | None = None
    power: float = 0.8
    level: float = LEVEL


def trade_off(
    share: Components, paired: PairedComponents | None, goal: Goal, repetitions: list[int]
) -> list[dict[str, float | int | None]]:
    """Per number of repetitions: the questions needed for the half-width and (with a
    difference) for the power."""
    rows = []
    for r in repetitions:
        row: dict[str, float | int | None] = {"repetitions": r}
        row["questions_for_half_width"] = questions_for_half_width(share, r, goal.half_width, goal.level)
        if paired is not None and goal.difference:
            row["questions_for_power"] = questions_for_power(paired, r, goal.difference, goal.power, goal.level)
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
    out["half_width"] = half_width(share, q, r, goal.level)
    if paired is not None and goal.difference:
        out["power"] = power(paired, q, r, goal.difference, goal.level)
    return out


def hours(requests: int, models: list[str], rates: dict[str, float | None]) -> float | None:
    """Hours for `requests` per model, the models one after another at their rates; None
    when a model's rate is unknown."""
    if not models or any(rates.get(m) is None for m in models):
        return None
    return sum(requests / rates[m] for m in models) / 3600  # type: ignore[operator]
