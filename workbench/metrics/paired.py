"""A difference between two models over the questions both answered: its standard error, and
the interval and p of one Student's t test on it (one inference per difference).

Each question carries a few per-question sums for each model (answers, answers naming an
entity, slots of a region ...), the same columns for both. A difference is a function of
the two models' sums: `diff(sums_a, sums_b)`, each of shape (..., strata, columns).

Its standard error comes from resampling questions, the same draw for both models (that is the
pairing: a question that makes both models name Nike moves both numbers together, and the
difference does not move). Within a stratum of k questions (the persona cluster a topic's
questions are drawn from) a resample draws k - 1 with replacement and scales them by k / (k - 1),
so the variance of the stratum's mean is not under-estimated by (k - 1) / k (the same rule as
workbench/metrics/clustered.py): the resamples' standard deviation (`resampled_se`), or for a
log-odds, whose resamples reach counts the data never has, its linearised standard error
(`linearised_se`). Units paired one to one (identity's prompts, entity's templates:
`workbench compare`'s `paired_units`) take the jackknife's standard error over the k units
(`jackknife_se`: with one answer per unit, the paired t test's).

`t_test` turns the difference and its standard error into the interval, B - A plus and minus
Student's t (0.975) on (questions - clusters) degrees of freedom times the standard error, and
the p of the same t = difference / standard error on the same degrees of freedom: p < 0.05
exactly when the 95 % interval leaves out 0. The sign-flip permutation p that stood beside the
interval before was another test of another model of the data, and the two disagreed (an
interval leaving out 0 with p 0.058); it was also not exact with few questions per cluster (it
rejected "no difference" in 1.8 % of simulated comparisons at 9 clusters x 2 questions x 2
repetitions, 0.1 % at 3 x 2 x 5; the t test 4.4 % and 1.9 %: bench/bench_compare_coverage.py
--design, docs/methods.md).

The resamples' percentiles, the interval before the t interval, covered the difference less the
fewer questions a cluster held: PEIR's 0.90 of simulated comparisons at 9 clusters x 2 questions
x 2 repetitions (the bundled demo's design), 0.76 at 4 x 2; the t interval 0.95 and 0.94
(bench/bench_question_coverage.py). For units paired one to one the percentile interval covered
0.87-0.93 at 10 units, 0.45-0.51 at 2, the t interval 0.94-0.96 and 0.92-0.96. ChoiceEval's
questions do not take the jackknife: it leaves a question out without weighing the rest of its
cluster by k / (k - 1), which understates the variance by about ((k - 1) / k)^2 with strata.

A difference with no spread (every resample the same: both models' shares at 0 or 1 on every
question, or models that answer alike) would get a zero-width interval, certainty no finite data
gives; workbench/metrics/paired_boundary.py gives a difference of two shares Newcombe's interval
instead, and any other such difference is n/a.
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

    @property
    def drawn(self) -> np.ndarray:
        """The strata questions are drawn within for the spread: the clusters, with those of a
        single question pooled (collapsed strata, as workbench/metrics/clustered.py's
        `collapsed`): a lone question's spread cannot be read in its own cluster. The
        difference itself is still taken per cluster (`stratum`)."""
        counts = np.bincount(self.stratum, minlength=len(self.names))
        singles = np.flatnonzero(counts == 1)
        if not singles.size:
            return self.stratum
        codes = self.stratum.copy()
        pooled = int(singles[0])
        codes[np.isin(codes, singles)] = pooled
        if singles.size == 1:  # alone: with the smallest other cluster
            others = [c for c in np.flatnonzero(counts >= 2).tolist()]
            if others:
                codes[codes == min(others, key=lambda c: (counts[c], c))] = pooled
        return codes

    def sums(self, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per stratum sums of `x` (Q, C) weighted by `weights` (n, Q): (n, S, C)."""
        parts = [weights[:, self.stratum == s] @ x[self.stratum == s] for s in range(len(self.names))]
        return np.stack(parts, axis=1)


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


def degrees(columns: PairedColumns) -> int:
    """The t test's degrees of freedom: questions (units) less their strata."""
    return columns.n_questions - len(np.unique(columns.drawn))


def t_test(estimate: float, se: float, df: int, level: float = LEVEL) -> tuple[float, float, float]:
    """(low, high, p): `estimate` plus and minus Student's t on `df` degrees of freedom times
    `se`, and the two-sided p of t = estimate / se on the same degrees of freedom, so that p <
    1 - level exactly when the interval leaves out 0. `se` must be positive."""
    from scipy import special  # not scipy.stats: a second to import

    low, high = student_interval(estimate, se, df, level)
    return low, high, float(2 * special.stdtr(df, -abs(estimate) / se))


def resampled_se(columns: PairedColumns, diff: Diff, seed: int | None = None) -> float | None:
    """The standard deviation of diff(A, B) over resamples of the questions (the same draw for
    both models, k - 1 of a stratum's k, scaled). Student's t times it, not the resamples'
    percentiles: with two or three questions per cluster the resamples take a handful of
    values, and their percentiles covered PEIR's difference in 0.80 of simulated comparisons at
    4 clusters x 2 questions (the t interval: 0.94)."""
    return spread(paired_resamples(columns, diff, seed))


def paired_resamples(columns: PairedColumns, diff: Diff, seed: int | None = None) -> np.ndarray:
    """diff(A, B) of each resample of the questions (the same draw for both models)."""
    rng = _rng(seed)
    samples = []
    for size in _slices(resamples(), columns.n_questions):
        weights = question_weights(columns.drawn, size, rng)
        samples.append(diff(columns.sums(weights, columns.a), columns.sums(weights, columns.b)))
    return np.concatenate(samples).astype(float)


def linearised_se(columns: PairedColumns, diff: Diff, level: float = LEVEL) -> float | None:
    """diff(A, B)'s linearised standard error: each question's influence (the derivative of the
    difference in the question's weight, for both models at once), its spread within each
    stratum times k / (k - 1), the variance the resamples have for a linear number. For the
    log-odds of few slots, whose resamples reach counts the data never has (a question drawn
    twice without a slot of a region: the smoothing's ln 0.5) and overstate its spread:
    workbench/metrics/clustered.py's `linearised` for two models.

    `Unreached` where the resamples (k - 1 of a cluster's k questions) and the t interval part
    ways: none of them reaches the difference, and none lies in its interval."""
    estimate = observed_difference(columns, diff)
    if estimate is None:
        return None
    influence = _influence(columns, diff)
    variance = 0.0
    for code in np.unique(columns.drawn).tolist():
        part = influence[columns.drawn == code]
        variance += part.size / (part.size - 1) * float(np.sum((part - part.mean()) ** 2))
    if not np.isfinite(variance):
        return None
    se = rounded_off(variance**0.5, estimate)
    low, high = student_interval(estimate, se, degrees(columns), level)
    resampled = paired_resamples(columns, diff)
    resampled = resampled[np.isfinite(resampled)]
    slack = 1e-9 * max(1.0, abs(estimate))
    reached = resampled.min() - slack <= estimate <= resampled.max() + slack if resampled.size else True
    if not reached and not np.any((resampled >= low - slack) & (resampled <= high + slack)):
        raise Unreached(estimate)
    return se


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
    for code in np.unique(columns.drawn).tolist():
        members = columns.drawn == code
        influence[members] = left_out[members].mean() - left_out[members]
    return influence


def jackknife_se(columns: PairedColumns, diff: Diff) -> float | None:
    """diff(A, B)'s jackknife standard error over the units (each left out in turn, within its
    stratum): with one stratum of units each answered once by both models, the paired t test's.
    None where leaving a unit out leaves no difference (a model with a number on that unit only)."""
    influence = jackknife_influence(columns, diff)
    if not np.all(np.isfinite(influence)):
        return None
    variance = 0.0
    for code in np.unique(columns.drawn).tolist():
        k = int(np.sum(columns.drawn == code))
        variance += (k - 1) / k * float(np.sum(influence[columns.drawn == code] ** 2))
    estimate = observed_difference(columns, diff)
    return rounded_off(variance**0.5, 0.0 if estimate is None else estimate)


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
