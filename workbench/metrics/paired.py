"""A difference between two models over the questions both answered: a paired interval over
questions and a sign-flip permutation test.

Each question carries a few per-question sums for each model (answers, answers naming an
entity, slots of a region ...), the same columns for both. A difference is a function of
the two models' sums: `diff(sums_a, sums_b)`, each of shape (..., strata, columns).

The interval resamples questions, the same draw for both models (that is the pairing: a
question that makes both models name Nike moves both numbers together, and the difference
does not move). Within a stratum of k questions (the persona cluster a topic's questions
are drawn from) it draws k - 1 with replacement and scales them by k / (k - 1), so the
variance of the stratum's mean is not under-estimated by (k - 1) / k (the same rule as
workbench/metrics/clustered.py). The interval is B - A plus and minus Student's t on
(questions - clusters) degrees of freedom times the resamples' standard deviation
(`paired_interval`), or for a log-odds, whose resamples reach counts the data never has, times
its linearised standard error (`linearised_interval`). The unit is the question: the interval
speaks about questions of the kind asked. The resamples' percentiles, the interval before,
covered the difference less the fewer questions a cluster held: PEIR's 0.90 of simulated
comparisons at 9 clusters x 2 questions x 2 repetitions (the bundled demo's design), 0.76 at
4 x 2; this interval 0.95 and 0.94 (bench/bench_question_coverage.py).

Units paired one to one (identity's prompts, entity's templates: `workbench compare`'s
`paired_units`) get `t_interval` instead: B - A plus and minus Student's t on k - 1 degrees of
freedom times the jackknife's standard error over the k units (with one answer per unit, the
paired t interval). A default identity cell holds 10 prompts, and in simulated comparisons of
10 units the percentile interval of their resamples covered the population difference
0.87-0.93 of the time, this one 0.94-0.96 (0.90-0.92 where one template in five carries the
whole difference), and 0.92-0.96 at 2 units, where the percentile interval covered it
0.45-0.51 (bench/bench_compare_coverage.py; docs/methods.md, "Comparing two models"). The
resamples' percentiles at Student's t BCa levels (identity's own intervals) covered it
0.90-0.94 at 10 units and 0.70-0.76 at 3: so few units' resamples cannot reach t's levels.
ChoiceEval's questions do not take `t_interval`: its jackknife leaves a question out without
weighing the rest of its cluster by k / (k - 1), which understates the variance by about
((k - 1) / k)^2 with strata, and Student's t on it covered PEIR's difference in 0.90 at 4
clusters x 3 questions (t on the resamples' standard deviation: 0.96) and 0.73 at 9 x 2 (0.94).

The test swaps the two models' answers to a question with chance 1/2, question by question
(a sign flip of its difference): under "no difference" each swap is as likely as the data,
so the share of swaps whose difference is at least as far from 0 as the observed one is an
exact p-value (up to the Monte Carlo error of the number of swaps drawn), whatever the
number of questions or how answers to one question resemble each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.metrics.intervals import LEVEL, _rng, resamples, rounded_off, spread, student_interval

Diff = Callable[[np.ndarray, np.ndarray], np.ndarray]

# Weights are drawn a slice of resamples at a time: about this many cells at once.
_CELLS = 4_000_000


@dataclass(frozen=True)
class PairedColumns:
    """The questions both models answered: their stratum codes (Q,), and per model the
    per-question sums (Q, C), rows in the same question order."""

    stratum: np.ndarray
    names: list[str]  # each stratum code's name
    a: np.ndarray
    b: np.ndarray

    @property
    def n_questions(self) -> int:
        return int(self.stratum.shape[0])

    def sums(self, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per stratum sums of `x` (Q, C) weighted by `weights` (n, Q): (n, S, C)."""
        parts = [weights[:, self.stratum == s] @ x[self.stratum == s] for s in range(len(self.names))]
        return np.stack(parts, axis=1)


def one_question_stratum(columns: PairedColumns) -> str | None:
    """The name of a stratum with a single question (its spread is unknown: no interval)."""
    counts = np.bincount(columns.stratum, minlength=len(columns.names))
    single = np.flatnonzero(counts < 2)
    return None if not single.size else columns.names[int(single[0])]


def _slices(total: int, width: int) -> list[int]:
    step = max(1, _CELLS // max(width, 1))
    return [min(step, total - start) for start in range(0, total, step)]


def question_weights(stratum: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, Q): how often each question is drawn, k - 1 of a stratum's k with replacement,
    scaled by k / (k - 1)."""
    weights = np.zeros((n, stratum.shape[0]))
    for code in np.unique(stratum).tolist():
        members = np.flatnonzero(stratum == code)
        k = members.size
        draws = rng.multinomial(k - 1, np.full(k, 1.0 / k), size=n)
        weights[:, members] = draws * (k / (k - 1))
    return weights


def paired_interval(
    columns: PairedColumns, diff: Diff, seed: int | None = None, level: float = LEVEL
) -> tuple[float | None, float | None]:
    """diff(A, B) plus and minus Student's t on Q - S degrees of freedom (Q questions in S
    strata) times the standard deviation of its resamples, questions resampled the same for
    both models (k - 1 of a stratum's k, scaled). Not their percentiles: with two or three
    questions per cluster the resamples take a handful of values, and their percentiles covered
    PEIR's difference in 0.80 of simulated comparisons at 4 clusters x 2 questions (this: 0.94)."""
    estimate = observed_difference(columns, diff)
    se = spread(paired_resamples(columns, diff, seed))
    if estimate is None or se is None:
        return None, None
    return student_interval(estimate, se, columns.n_questions - len(np.unique(columns.stratum)), level)


def paired_resamples(columns: PairedColumns, diff: Diff, seed: int | None = None) -> np.ndarray:
    """diff(A, B) of each resample of the questions (the same draw for both models)."""
    rng = _rng(seed)
    samples = []
    for size in _slices(resamples(), columns.n_questions):
        weights = question_weights(columns.stratum, size, rng)
        samples.append(diff(columns.sums(weights, columns.a), columns.sums(weights, columns.b)))
    return np.concatenate(samples).astype(float)


def linearised_interval(columns: PairedColumns, diff: Diff, level: float = LEVEL) -> tuple[float | None, float | None]:
    """diff(A, B) plus and minus Student's t on Q - S degrees of freedom times its linearised
    standard error: each question's influence (the derivative of the difference in the
    question's weight, for both models at once), its spread within each stratum times k / (k - 1),
    the variance the resamples have for a linear number. For the log-odds of few slots, whose
    resamples reach counts the data never has (a question drawn twice without a slot of a
    region: the smoothing's ln 0.5) and overstate its spread: workbench/metrics/clustered.py's
    `linearised_ci` for two models.

    `Unreached` where the resamples (k - 1 of a cluster's k questions) and the interval part
    ways: none of them reaches the difference, and none lies in its interval."""
    estimate = observed_difference(columns, diff)
    if estimate is None:
        return None, None
    influence = _influence(columns, diff)
    variance = 0.0
    for code in np.unique(columns.stratum).tolist():
        part = influence[columns.stratum == code]
        variance += part.size / (part.size - 1) * float(np.sum((part - part.mean()) ** 2))
    if not np.isfinite(variance):
        return None, None
    se = rounded_off(variance**0.5, estimate)
    low, high = student_interval(estimate, se, columns.n_questions - len(np.unique(columns.stratum)), level)
    resampled = paired_resamples(columns, diff)
    resampled = resampled[np.isfinite(resampled)]
    slack = 1e-9 * max(1.0, abs(estimate))
    reached = resampled.min() - slack <= estimate <= resampled.max() + slack if resampled.size else True
    if not reached and not np.any((resampled >= low - slack) & (resampled <= high + slack)):
        raise Unreached(estimate)
    return low, high


def _influence(columns: PairedColumns, diff: Diff) -> np.ndarray:
    """Each question's influence on diff(A, B): its derivative in the question's weight (a
    central difference, _STEP either way), both models' sums moved together."""
    q = columns.n_questions
    ones = np.ones((1, q))
    base_a, base_b = columns.sums(ones, columns.a)[0], columns.sums(ones, columns.b)[0]
    influence = np.empty(q)
    step = max(1, _CELLS // max(base_a.size, 1) // 2)
    for start in range(0, q, step):
        rows = np.arange(start, min(q, start + step))
        n, code = rows.size, columns.stratum[rows]
        moved_a, moved_b = np.repeat(base_a[None], 2 * n, 0), np.repeat(base_b[None], 2 * n, 0)
        for sign, at in ((1, np.arange(n)), (-1, n + np.arange(n))):
            moved_a[at, code] += sign * _STEP * columns.a[rows]
            moved_b[at, code] += sign * _STEP * columns.b[rows]
        values = np.asarray(diff(moved_a, moved_b), dtype=float)
        influence[rows] = (values[:n] - values[n:]) / (2 * _STEP)
    return influence


class Unreached(ValueError):
    """No resample of the questions reaches the data's own difference, nor lies in its interval:
    with two or three questions per cluster a difference of two log-odds of few slots can be one
    number for every question drawn alone and another for the questions together (+1.02 and 0,
    whose first-order standard error is 0: [0, 0]), and the interval then says nothing about it."""


_STEP = 1e-4  # a question's weight moved by this much either way: its influence, a central difference


def jackknife_influence(columns: PairedColumns, diff: Diff) -> np.ndarray:
    """Each question's influence on diff(A, B): the mean of its stratum's leave-one-out
    differences minus its own."""
    q = columns.n_questions
    left_out = np.empty(q)
    step = max(1, _CELLS // max(q, 1))
    for start in range(0, q, step):
        size = min(step, q - start)
        weights = np.ones((size, q))
        weights[np.arange(size), start + np.arange(size)] = 0
        left_out[start : start + size] = diff(columns.sums(weights, columns.a), columns.sums(weights, columns.b))
    influence = np.empty(q)
    for code in np.unique(columns.stratum).tolist():
        members = columns.stratum == code
        influence[members] = left_out[members].mean() - left_out[members]
    return influence


def t_interval(columns: PairedColumns, diff: Diff, level: float = LEVEL) -> tuple[float | None, float | None]:
    """diff(A, B) plus and minus Student's t on Q - S degrees of freedom (Q questions in S
    strata) times the jackknife's standard error: with one stratum of units each answered once
    by both models, the paired t interval. (None, None) where leaving a unit out leaves no
    difference (a model with a number on that unit only)."""
    from scipy.stats import t as student

    estimate = observed_difference(columns, diff)
    influence = jackknife_influence(columns, diff)
    if estimate is None or not np.all(np.isfinite(influence)):
        return None, None
    variance = 0.0
    for code in np.unique(columns.stratum).tolist():
        k = int(np.sum(columns.stratum == code))
        variance += (k - 1) / k * float(np.sum(influence[columns.stratum == code] ** 2))
    half = float(student.ppf(0.5 + level / 2, columns.n_questions - np.unique(columns.stratum).size)) * variance**0.5
    return estimate - half, estimate + half


def sign_flip_p(columns: PairedColumns, diff: Diff, observed: float, seed: int | None = None) -> float:
    """Two-sided p of `observed` against the differences of the data with each question's
    two models swapped at random (as many swaps as resamples)."""
    rng = _rng(None if seed is None else seed + 1)
    ones = np.ones((1, columns.n_questions))
    total = columns.sums(ones, columns.a) + columns.sums(ones, columns.b)  # (1, S, C): what a swap keeps
    n_perm, beyond = resamples(), 0
    tolerance = 1e-12 * max(1.0, abs(observed))
    for size in _slices(n_perm, columns.n_questions):
        flips = rng.integers(0, 2, size=(size, columns.n_questions)).astype(float)
        sums_a = columns.sums(1 - flips, columns.a) + columns.sums(flips, columns.b)
        sums_b = total - sums_a
        swapped = np.asarray(diff(sums_a, sums_b), dtype=float)
        beyond += int(np.sum(np.abs(swapped[np.isfinite(swapped)]) >= abs(observed) - tolerance))
    return (1 + beyond) / (1 + n_perm)


def observed_difference(columns: PairedColumns, diff: Diff) -> float | None:
    """diff of the data itself (every question once)."""
    ones = np.ones((1, columns.n_questions))
    value = float(np.asarray(diff(columns.sums(ones, columns.a), columns.sums(ones, columns.b)))[0])
    return value if np.isfinite(value) else None


def share(numerator: int, denominator: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """One model's share from its sums (..., strata, columns): the column `numerator`
    summed over strata, over the column `denominator` summed likewise (a share of answers
    or of slots)."""

    def value(sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return sums[..., numerator].sum(-1) / sums[..., denominator].sum(-1)

    return value


def difference_of(value: Callable[[np.ndarray], np.ndarray]) -> Diff:
    """B's value minus A's."""
    return lambda sums_a, sums_b: value(sums_b) - value(sums_a)
