"""Intervals over questions: all repetitions of a question resampled together.

Answers to one question resemble each other (the same prompt to the same model), so a
share of answers computed as if every answer were drawn on its own speaks about the
questions asked and no others: in simulated studies whose questions each have their own
chance of naming a brand (intra-question correlation 0.33, 10 repetitions) that interval
covered the share over questions of that kind in 71 % of studies, not 95 %. Here the unit
is the question: its answers (every repetition) are resampled as one, within its stratum
(the cluster a topic's questions are drawn from), so the interval speaks about questions
of the kind asked (docs/methods.md, "What an interval speaks about").

Within a stratum of k questions the bootstrap draws k - 1 of them and scales their sums by
k / (k - 1) (McCarthy and Snowden's with-replacement bootstrap): drawing k would shrink the
variance by (k - 1) / k, a 20 % under-estimate with five questions per cluster.

A share's interval is Clopper-Pearson's on its effective sample size, the resamples' variance
read as that of so many independent answers (`share_interval`: never zero-width, and it covers
shares near 0 or 1 that the logit's t interval missed); the log-odds' is Student's t times its
linearised standard error on Satterthwaite's degrees of freedom, and its p is that t's
(`linearised`). Not the resamples' percentiles: with two questions per cluster (the bundled
demo's design) the resamples take a handful of values, and their percentiles covered the
population value in 0.88-0.93 of simulated studies (bench/bench_question_coverage.py).

`--ci-unit answer` (`resampling_unit("answer")`) keeps the interval over answers, labelled
as what it is: about these questions only. Every record names its unit (`ci_unit`) and the
effective n beside n (`n_eff` = n / the design effect: the number of independent answers
that would give the same variance).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from workbench.metrics.intervals import (
    LEVEL,
    counted_sums,
    effective_n_interval,
    interval_fields,
    rounded_off,
    student_interval,
    t_test_p,
)
from workbench.metrics.pooled import pooled

QUESTION, ANSWER = "question", "answer"
CI_UNITS = (QUESTION, ANSWER)
# What each unit's interval speaks about, as every surface labels it.
UNIT_LABELS = {
    QUESTION: "questions resampled (all repetitions of each together)",
    ANSWER: "answers resampled: these questions only",
    "template": "templates resampled",
    # identity: each prompt is drawn from the template and asked once, so no interval is of
    # "these prompts only"; the claim is about prompts of the template
    "prompt": "prompts resampled (each drawn from the template, with its answers)",
    "seed": "seeds resampled",
    "cluster": "clusters resampled",
    "unit": "units resampled",
}
_UNIT: ContextVar[str] = ContextVar("ci_unit", default=QUESTION)


def answer_unit() -> str:
    """What an interval over answers resamples here: "question" (default) or "answer"."""
    return _UNIT.get()


@contextmanager
def resampling_unit(unit: str) -> Iterator[None]:
    """Every interval of a share of answers computed inside resamples `unit`s."""
    if unit not in CI_UNITS:
        raise ValueError(f"an interval's unit is one of {', '.join(CI_UNITS)}, not {unit!r}")
    token = _UNIT.set(unit)
    try:
        yield
    finally:
        _UNIT.reset(token)


def unit_label(unit: str | None) -> str:
    """ "questions resampled (...)": what an interval of this unit speaks about."""
    return UNIT_LABELS.get(unit or "", f"{unit} resampled")


@dataclass(frozen=True, eq=False)
class Questions:
    """A scope's questions, each with all its repetitions: its stratum (the cluster it is
    drawn from, codes in the order of the names), its answers, those naming any entity
    (and the United States in the first three), and per entity the answers naming it."""

    stratum: np.ndarray
    names: Sequence[str]  # each stratum code's name ("" for questions without a cluster)
    n: np.ndarray
    named: np.ndarray
    naming: Callable[[str], np.ndarray]
    us_top3: np.ndarray | None = None  # answers naming the United States in their first three
    # every recommendation slot of the scope (repeats kept): its question's row, its answer's
    # row (0 .. n - 1) and its entity's code in `names` (what region shares count per question)
    slots: Callable[[], SlotRows] | None = None

    def strata(self, hits: np.ndarray) -> list[tuple[str, np.ndarray]]:
        """(stratum name, rows (hits, answers) of its questions), in code order; the rows
        sorted, so that the numbers do not depend on the order the questions came in."""
        rows = np.column_stack([hits, self.n]).astype(float)
        out = []
        for code in np.unique(self.stratum).tolist():
            held = rows[self.stratum == code]
            out.append((self.names[code], held[np.lexsort((held[:, 1], held[:, 0]))]))
        return out


@dataclass(frozen=True)
class SlotRows:
    """A scope's recommendation slots, one row each: question row, answer row, entity code."""

    question: np.ndarray
    answer: np.ndarray
    entity: np.ndarray
    names: Sequence[str]  # each entity code's name
    answers: int  # the scope's answers (those without a slot too)


def stratum_text(name: str) -> str:
    return f"cluster {name!r}" if name else "the questions without a cluster"


def share_fields(hits: np.ndarray, questions: Questions, seed: int | None = None) -> dict:
    """A share of answers (hits per question over answers per question, pooled): its
    effective n and design effect, and its interval's fields, over questions (stratified)
    or, under `--ci-unit answer`, over answers (Clopper-Pearson's on the answers)."""
    n, named = int(questions.n.sum()), int(np.sum(hits))
    if answer_unit() == ANSWER:
        low, high = effective_n_interval(named / n, None, n) if n >= 2 else (None, None)
        fields = interval_fields(low, high, units=n, unit=ANSWER)
        # conditional on the questions, answers are independent: n is the effective n
        return {"n_eff": float(n) if n else None, "design_effect": 1.0 if n else None, **fields}
    fields = interval_fields(None, None, units=len(questions.n), unit=QUESTION)
    if len(questions.n) < 2:
        return {"n_eff": None, "design_effect": None, **fields}
    (share,) = pooled(collapsed([rows for _, rows in questions.strata(hits)]))
    low, high = share.interval(len(questions.n))
    return {**dict(zip(("n_eff", "design_effect"), share.design_effect())), **fields, "ci_low": low, "ci_high": high}


def collapsed(strata: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The strata with those of a single question pooled (collapsed strata, as survey
    statistics treats a stratum of one unit): a lone question's spread cannot be read from
    its own stratum, so the singles are taken together, and a last single joins the smallest
    other stratum. Pooling adds the strata's differences to the variance: the interval can
    only widen. Before, one cluster of a single question made every interval of the study n/a
    (500 of 500 simulated studies of 1, 2, 3, 8 and 12 questions per cluster)."""
    many = [rows for rows in strata if rows.shape[0] >= 2]
    singles = [rows for rows in strata if rows.shape[0] < 2]
    if not singles:
        return list(strata)
    pooled = np.concatenate(singles)
    if pooled.shape[0] < 2 and many:
        smallest = min(range(len(many)), key=lambda i: many[i].shape[0])
        pooled = np.concatenate([many.pop(smallest), pooled])
    return [_sorted_rows(rows) for rows in [*many, pooled]]


def share_interval(strata: Sequence[np.ndarray], units: float | None, df: bool = True) -> tuple[float, float]:
    """A pooled share's interval from its strata's rows (hits, total) per question (or answer):
    Clopper-Pearson's on its effective sample size, its linearised variance over questions read
    as that of n_eff independent draws (at most the total), shrunk for Student's t on
    `share_df`'s degrees of freedom (none with `df` False: draws independent given the
    questions): `effective_n_interval`. A share of 0 or 1, or questions that all agree, has no
    spread to read and takes `units` (the questions) as its sample: never a zero width.

    The variance is the one the k - 1 of k resamples within each stratum estimate (to first
    order), read without drawing them: the interval is the same on every machine and for any
    `--boot`, and `workbench metrics` at 1,080,000 mention rows no longer spends most of its
    time drawing them. Not the resamples' percentiles, which with two questions per cluster
    take a handful of values and covered PEIR's population value in 0.88 of simulated
    demo-sized studies; nor the logit's t interval, which covered shares of 0.05 and 0.95 in
    0.73-0.76 of them (bench/bench_share_coverage.py; docs/methods.md)."""
    return pooled(strata)[0].interval(units, df)


def ratio_fields(parts: np.ndarray, questions: Questions, answers: Callable[[], np.ndarray], seed=None) -> list:
    """Shares of one total (a region's recommendation slots over all slots): `parts` holds per
    question the total, then each share's numerator (k, 1 + R); the fields of each share's
    interval (over questions, stratified, or under `--ci-unit answer` over the rows
    `answers()` gives per answer), with its design effect and effective n (in slots: the
    independent slots that would be as precise). Where a share has no spread to read (0 or 1,
    or every question alike) its interval takes the questions (answers) as its sample, not the
    slots: an answer's slots go together."""
    width = parts.shape[1] - 1
    if answer_unit() == ANSWER:
        rows = answers()
        fields = interval_fields(None, None, units=rows.shape[0], unit=ANSWER)
        strata, units = [rows], rows.shape[0]
    else:
        fields = interval_fields(None, None, units=len(questions.n), unit=QUESTION)
        strata = [parts[questions.stratum == code] for code in np.unique(questions.stratum).tolist()]
        units = len(questions.n)
    if "ci_na_reason" in fields:
        return [{"n_eff": None, "design_effect": None, **fields} for _ in range(width)]
    strata = collapsed([_sorted_rows(rows) for rows in strata])  # the same sums whatever order the rows came in
    out = []
    for share in pooled(strata, hits=range(1, width + 1), total=0):  # every share of the total in one pass
        n_eff, deff = share.design_effect()
        low, high = share.interval(units, df=answer_unit() == QUESTION)
        out.append({"n_eff": n_eff, "design_effect": deff, **fields, "ci_low": low, "ci_high": high})
    return out


def _sorted_rows(rows: np.ndarray) -> np.ndarray:
    return rows[np.lexsort(rows.T[::-1])] if rows.size else rows


@dataclass(frozen=True)
class Linearised:
    """A statistic over strata of questions with its linearised standard error and the degrees
    of freedom of Student's t for it: its interval and its t-test are one inference."""

    estimate: float
    se: float
    df: float

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        return student_interval(self.estimate, self.se, self.df, level)

    def p(self) -> float:
        return t_test_p(self.estimate, self.se, self.df)


def linearised(strata: Sequence[np.ndarray], statistic) -> Linearised | None:
    """`statistic` over strata of questions (rows) with its linearised standard error and
    Satterthwaite's degrees of freedom; None where it is not finite. `statistic` gets each
    stratum's summed rows (n, ...), n at a time.

    The standard error is the spread of each question's influence (the derivative of the
    statistic in the question's weight, a central difference) within its stratum, times
    k / (k - 1): for a linear number, the variance of the k - 1 of k resamples. For a log of
    few slots (the log-odds) the resamples themselves reach counts the data never has (one
    question drawn twice with no slot of a region: the smoothing's ln 0.5), and their spread
    overstated the standard error by 18-40 % in simulated studies. Strata of a single question
    are pooled (`collapsed`). The degrees of freedom are Satterthwaite's, (sum of the strata's
    variances)^2 / sum(variance^2 / (k - 1)): with unbalanced clusters (2, 3, 8 and 12
    questions) the mean over clusters draws most of its variance from the small ones, and t on
    questions - clusters (21-24 degrees of freedom where 2-4 are earned) covered the population
    value in 0.87-0.90 of simulated studies (docs/methods.md, "What an interval speaks about").
    Questions with the same row have the same influence: each distinct row is moved once."""
    totals = [rows.sum(axis=0) for rows in strata]
    estimate = float(np.asarray(statistic([t[None] for t in totals]), dtype=float)[0])
    if not np.isfinite(estimate):
        return None
    influences = []
    for h, rows in enumerate(strata):
        k = rows.shape[0]
        ordered, starts = _ordered_rows(rows)  # in sorted order: the same number whatever order they came in
        distinct, counts = ordered[starts], np.diff(np.append(starts, k))
        moved = [np.broadcast_to(t, (2 * len(distinct), *t.shape)) for t in totals]
        moved[h] = totals[h] + _STEP * np.concatenate([distinct, -distinct])
        values = np.asarray(statistic(moved), dtype=float)
        influences.append(np.repeat((values[: len(distinct)] - values[len(distinct) :]) / (2 * _STEP), counts))
    groups = [group[:, 0] for group in collapsed([i[:, None] for i in influences])]
    parts = [stratum_variance(group) for group in groups]
    variance = sum(parts)
    if not np.isfinite(variance):
        return None
    se = rounded_off(variance**0.5, estimate)
    return Linearised(estimate, se, satterthwaite(parts, [group.shape[0] for group in groups]))


def stratum_variance(influence: np.ndarray) -> float:
    """A stratum's share of a linearised variance: its questions' influences' spread times
    k / (k - 1)."""
    k = influence.shape[0]
    return k / (k - 1) * float(np.sum((influence - influence.mean()) ** 2))


def satterthwaite(variances: Sequence[float], sizes: Sequence[int]) -> float:
    """Satterthwaite's degrees of freedom of a sum of strata's variances, each on k - 1: at most
    questions - strata, reached where every stratum contributes alike."""
    total = float(sum(variances))
    share = sum(v * v / (k - 1) for v, k in zip(variances, sizes))
    if total <= 0 or share <= 0:
        return float(sum(k - 1 for k in sizes))
    return total * total / share


_STEP = 1e-4  # a question's weight moved by this much either way: its influence, a central difference


def clustered_sums(rows: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Sums over k - 1 of a stratum's k units (rows) drawn with replacement, scaled by
    k / (k - 1), n_boot times: the stratum's total, with the variance of its mean unbiased.

    Units that take a handful of distinct rows (a question's answers naming e*: 0 to 5 of
    5) are drawn as counts of each distinct row (a multinomial, as `resampled_sums`); units
    that mostly differ (a question's summed log-odds slots) as k - 1 indices each, which
    costs less than a binomial per distinct row. Either way from the rows in sorted order,
    so the same rows give the same sums in whatever order they came."""
    k = rows.shape[0]
    ordered, starts = _ordered_rows(rows)
    if len(starts) * _INDEX_COST < k - 1:
        counts = np.diff(np.append(starts, k))
        return counted_sums(ordered[starts], counts, n_boot, rng, k - 1) * (k / (k - 1))
    chunk = max(1, _CELLS // max((k - 1) * rows.shape[1], 1))
    parts = []
    for start in range(0, n_boot, chunk):
        drawn = rng.integers(0, k, size=(min(chunk, n_boot - start), k - 1))
        # a column at a time: np.take of a 1-D column is several times quicker than rows[drawn]
        parts.append(np.stack([np.take(column, drawn).sum(axis=1) for column in ordered.T], axis=1))
    return np.concatenate(parts) * (k / (k - 1))


def _ordered_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows in lexicographic order and where each distinct row starts: what
    np.unique(rows, axis=0, return_counts=True) gives, without its structured sort, which
    cost most of a small stratum's bootstrap. Rows holding a NaN or a -0.0 (which np.unique
    merges with 0.0) go through np.unique itself, so the sums never change."""
    if rows.size and np.all(np.isfinite(rows)) and not np.any(np.signbit(rows) & (rows == 0)):
        ordered = rows[np.lexsort(rows.T[::-1])] if rows.shape[1] > 1 else np.sort(rows, axis=0)
        return ordered, np.flatnonzero(np.append(True, np.any(ordered[1:] != ordered[:-1], axis=1)))
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    return np.repeat(distinct, counts, axis=0), np.append(0, np.cumsum(counts)[:-1])


# A binomial draw (one per distinct row) costs about as much as this many index draws.
_INDEX_COST = 5
_CELLS = 2_000_000  # cells of drawn indices held at once


def share_df(strata: Sequence[np.ndarray]) -> float:
    """The degrees of freedom of a pooled share's variance over questions, from each stratum's
    rows (hits, answers) per question: at most questions - clusters, and fewer where few
    questions carry the spread. Each question's squared deviation (its residual from the
    share, less its stratum's mean) is a part of the variance; (sum of the parts)^2 / sum of
    their squares counts how many questions carry it, about a third of them where all carry
    alike (as for normal deviations), so twice that count, never under 1, is taken.

    One question of 450 answers naming a rare brand once reads as binomial; on questions -
    clusters (36) degrees of freedom its interval ignored that one question is all the
    evidence, and a population share of 0.02 held by a few questions was covered in 0.91 of
    simulated studies of 9 clusters x 5 questions x 10 (0.998 now); Satterthwaite's count
    over clusters (1 degree of freedom each at the demo's 2 questions per cluster) doubled
    the demo's interval widths (bench/bench_share_coverage.py)."""
    return pooled(strata)[0].df


def linearised_share(strata: Sequence[np.ndarray]) -> tuple[float, float]:
    """(share, its variance over questions) of a pooled share, from each stratum's rows (hits,
    total) per question: each question's residual (hits - share x total), its spread within
    its stratum times k / (k - 1), over the total squared (the ratio's linearised variance)."""
    share = pooled(strata)[0]
    return share.share, share.variance


def design_effect(strata: Sequence[np.ndarray]) -> tuple[float | None, float | None]:
    """(effective n, design effect) of a pooled share, from each stratum's rows (hits,
    answers) per question: the share's variance over questions (linearised, strata apart)
    against that of as many independent answers. None where either is 0 (a share of 0 or 1,
    or questions that all agree)."""
    return pooled(strata)[0].design_effect()
