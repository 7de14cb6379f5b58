"""Uncertainty for headline numbers: percentile bootstrap intervals, adjusted p-values.

None of the original papers reports intervals. Every headline number here gets a
seeded percentile bootstrap interval that resamples the unit the number averages
over (questions, each with all its repetitions, for PEIR, the direct-recommendation
rate and the log-odds: workbench/metrics/clustered.py; seeds for cold-start divergences,
templates for Δ, prompts for Mean Share: methods/identity/intervals.py), so the interval says how much the number
would move with another draw of those units; every record names it (`ci_unit`). Families of tests (one per cluster,
entity group or condition) get Holm and Benjamini–Hochberg adjusted p-values next
to the raw ones.

Everything is vectorised with numpy, and resampling draws counts of distinct values
(a multinomial), so 1,000 resamples cost the same for 200 answers as for 200,000.

How many resamples: N_BOOT unless a caller sets another number for everything computed
inside `resampling(n)` (`workbench metrics --boot N`); every record names the number it
was computed with (`n_boot`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

# 1,000: the percentile endpoints of a 95 % interval move by about 4 % of its half-width
# from one set of resamples to another (about 10 % at 200), and the cost no longer grows
# with the data (counts of distinct rows are drawn, not rows).
N_BOOT = 1000
LEVEL = 0.95
SEED = 20261130  # fixed: the same data always gives the same interval
_RESAMPLES: ContextVar[int] = ContextVar("resamples", default=N_BOOT)


def resamples() -> int:
    """The number of resamples intervals are computed with here (N_BOOT unless set)."""
    return _RESAMPLES.get()


@contextmanager
def resampling(n_boot: int) -> Iterator[None]:
    """Every interval computed inside (and every record's `n_boot`) uses `n_boot` resamples."""
    if n_boot < 1:
        raise ValueError(f"the number of resamples must be at least 1, not {n_boot}")
    token = _RESAMPLES.set(n_boot)
    try:
        yield
    finally:
        _RESAMPLES.reset(token)


def _rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(SEED if seed is None else seed)


def _bounds(samples: np.ndarray, level: float) -> tuple[float | None, float | None]:
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return None, None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def student_interval(estimate: float, se: float, df: int, level: float = LEVEL) -> tuple[float, float]:
    """`estimate` plus and minus Student's t on `df` degrees of freedom times `se`."""
    from scipy import special  # not scipy.stats: a second to import

    half = float(special.stdtrit(df, 0.5 + level / 2)) * se
    return estimate - half, estimate + half


def logit_student_interval(share: float, se: float, df: int, level: float = LEVEL) -> tuple[float, float]:
    """A share's `student_interval` taken on its logit (standard error se / (p (1 - p))) and
    turned back into shares: inside 0-1, wider on the side away from the nearer end. A share
    of 0 or 1 (no answer, or every answer, counted) has no spread: [share, share]."""
    if not 0 < share < 1 or se == 0:
        return share, share
    low, high = student_interval(float(np.log(share / (1 - share))), se / (share * (1 - share)), df, level)
    return float(1 / (1 + np.exp(-low))), float(1 / (1 + np.exp(-high)))


def t_test_p(estimate: float, se: float, df: float) -> float:
    """Two-sided p of Student's t test of `estimate` against 0 with standard error `se` on `df`
    degrees of freedom: the p that inverts `student_interval` of the same numbers, so p < 0.05
    exactly when the 95 % interval leaves out 0 (one inference per estimate)."""
    from scipy import special

    if se <= 0:
        return 1.0 if estimate == 0 else 0.0
    return float(2 * special.stdtr(df, -abs(estimate) / se))


def effective_n_interval(
    share: float, se: float | None, n: float, df: float | None = None, level: float = LEVEL, units: float | None = None
) -> tuple[float, float]:
    """A share's interval as a Clopper-Pearson interval on its effective sample size (Korn and
    Graubard's, as survey statistics gives clustered proportions): n_eff = share (1 - share) /
    se^2, at most `n`; where there is no spread to read (a share of 0 or 1, or questions that
    all gave the same share) `units` (the questions: as if each question's answers were one,
    the most they can be alike) or else `n`. With `df` degrees of freedom for the variance
    read, n_eff shrinks by (t_{n-1} / t_df)^2, as Student's t widens a mean's interval.

    Never zero-width from finite data: "Nike 1.00 [1.00, 1.00]" from 36 answers said more
    than 36 answers to 18 questions can; this reads [0.81, 1.00]. Near 0 or 1 the logit's t interval, the
    interval before, covered a population share of 0.95 in 0.73-0.76 of simulated studies of
    the bundled demo's design, and one of 0.97 in 0.57-0.60 (docs/methods.md, "Shares near 0
    or 1"; bench/bench_question_coverage.py)."""
    from scipy import special

    n = float(n)
    spreadless = se is None or se <= 0 or not 0 < share < 1
    if spreadless:
        # no variance was read, so none is uncertain: no shrinking for its degrees of freedom
        n_eff, df = (n if units is None else float(units)), None
    else:
        n_eff = min(n, share * (1 - share) / se**2)
    if df is not None and n > 1:
        tail = 0.5 + level / 2
        n_eff *= (float(special.stdtrit(n - 1, tail)) / float(special.stdtrit(df, tail))) ** 2
    hits = share * n_eff
    alpha = 1 - level
    low = 0.0 if hits <= 0 else float(special.betaincinv(hits, n_eff - hits + 1, alpha / 2))
    high = 1.0 if hits >= n_eff else float(special.betaincinv(hits + 1, n_eff - hits, 1 - alpha / 2))
    return low, high


def spread(samples: np.ndarray) -> float | None:
    """The resamples' standard deviation (the finite ones; None with fewer than two); 0 where
    they differ by rounding only (every resample the same number, summed in another order)."""
    samples = samples[np.isfinite(samples)]
    if samples.size < 2:
        return None
    return rounded_off(float(np.std(samples, ddof=1)), float(np.mean(samples)))


def rounded_off(se: float, scale: float, tolerance: float = 1e-9) -> float:
    """`se`, or 0 where it is rounding's (under `tolerance` of the number it is the error of),
    so that an interval of numbers that do not move is [x, x], not [x - 1e-15, x + 1e-15]."""
    return 0.0 if se <= tolerance * max(1.0, abs(scale)) else se


# Resampled counts are drawn a slice of resamples at a time, so memory stays bounded
# (about this many cells) however many distinct values there are.
_CELLS = 2_000_000


def resampled_sums(values: np.ndarray, n_boot: int, rng: np.random.Generator, draws: int | None = None) -> np.ndarray:
    """Sums over n units (or `draws` of them) drawn with replacement from the rows of
    `values` (n, ...), n_boot times: shape (n_boot, ...).

    Drawing n units with replacement is drawing how many times each distinct row comes
    up: Multinomial(n, row frequencies). So the cost is n_boot x (distinct rows), not
    n_boot x n: slots per answer take a handful of values, which makes the bootstrap of
    a 200,000-answer topic as cheap as that of a small one."""
    n = values.shape[0]
    rows = values.reshape(n, -1)
    if rows.shape[1] == 1:  # one column: the plain (much faster) unique
        distinct, counts = np.unique(rows[:, 0], return_counts=True)
        distinct = distinct[:, None]
    else:
        distinct, counts = _distinct_rows(rows)
    return counted_sums(distinct, counts, n_boot, rng, n if draws is None else draws).reshape(
        (n_boot, *values.shape[1:])
    )


def counted_sums(distinct: np.ndarray, counts: np.ndarray, n_boot: int, rng, draws: int) -> np.ndarray:
    """`resampled_sums` of the rows `distinct` (in lexicographic order) held `counts` times
    each: the multinomial draws, for a caller that has the distinct rows already."""
    chunk = max(1, _CELLS // max(len(distinct), 1))
    n = counts.sum()
    parts = [
        rng.multinomial(draws, counts / n, size=min(chunk, n_boot - start)) @ distinct
        for start in range(0, n_boot, chunk)
    ]
    return np.concatenate(parts)


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(rows, axis=0, return_counts=True), in the same (lexicographic) order.
    Rows of small non-negative whole numbers (slot counts) are read as the digits of one
    number each, which a plain sort orders the same way, several times faster."""
    if rows.size and np.all(np.isfinite(rows)) and np.all(rows >= 0) and np.all(rows == np.floor(rows)):
        base = int(rows.max()) + 1
        if base ** rows.shape[1] < 2**53:
            keys = rows.astype(np.int64) @ (base ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64))
            _, first, counts = np.unique(keys, return_index=True, return_counts=True)
            return rows[first], counts
    return np.unique(rows, axis=0, return_counts=True)


def mean_ci(
    values: Sequence[float], n_boot: int | None = None, level: float = LEVEL, seed: int | None = None
) -> tuple[float | None, float | None]:
    """Percentile interval of the mean of `values` (resampled with replacement);
    (None, None) with fewer than two values."""
    data = np.asarray(values, dtype=float)  # None becomes nan, dropped here
    data = data[~np.isnan(data)]
    if data.size < 2:
        return None, None
    return _bounds(resampled_sums(data, n_boot or resamples(), _rng(seed)) / data.size, level)


def proportion_ci(
    hits: int, n: int, n_boot: int | None = None, level: float = LEVEL, seed: int | None = None
) -> tuple[float | None, float | None]:
    """`mean_ci` of `hits` ones and `n - hits` zeros (a share of answers), the same draws
    and so the same interval, without making and sorting the n values first."""
    if n < 2:
        return None, None
    distinct = np.array([[0.0], [1.0]])
    counts = np.array([n - hits, hits])
    present = counts > 0
    distinct, counts = distinct[present], counts[present]
    n_boot = n_boot or resamples()
    chunk = max(1, _CELLS // len(distinct))
    rng = _rng(seed)
    parts = [
        rng.multinomial(n, counts / n, size=min(chunk, n_boot - start)) @ distinct for start in range(0, n_boot, chunk)
    ]
    return _bounds(np.concatenate(parts)[:, 0] / n, level)


def difference_ci(
    a: Sequence[float], b: Sequence[float], n_boot: int | None = None, level: float = LEVEL, seed: int | None = None
) -> tuple[float | None, float | None]:
    """Interval of mean(a) - mean(b), each group resampled on its own."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2:
        return None, None
    n_boot = n_boot or resamples()
    rng = _rng(seed)
    mx = resampled_sums(x, n_boot, rng) / x.size
    my = resampled_sums(y, n_boot, rng) / y.size
    return _bounds(mx - my, level)


def stratified_ci(
    strata: Sequence[np.ndarray], statistic, n_boot: int | None = None, level: float = LEVEL, seed: int | None = None
) -> tuple[float | None, float | None]:
    """Interval of `statistic` over strata (e.g. clusters) whose units (rows of one
    stratum's array, shape (n, k)) are resampled within the stratum. `statistic` gets
    the list of per-stratum resampled sums, each of shape (n_boot, k)."""
    if not strata or any(array.shape[0] == 0 for array in strata):
        return None, None
    if max(array.shape[0] for array in strata) < 2:
        # One unit per stratum: every resample is the data itself, and a zero-width
        # interval ([1.10, 1.10] around a single answer) would read as certainty.
        return None, None
    rng = _rng(seed)
    resampled = [resampled_sums(array, n_boot or resamples(), rng) for array in strata]
    return _bounds(np.asarray(statistic(resampled), dtype=float), level)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None, and a p that is not a number gets
    none and is left out of the family), in the input order."""
    present = [(p, i) for i, p in enumerate(pvalues) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(pvalues)
    m, running = len(present), 0.0
    for rank, (p, i) in enumerate(sorted(present)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def benjamini_hochberg(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini–Hochberg adjusted p-values (false discovery rate), in the input order; a p
    that is None or not a number gets none and is left out of the family."""
    present = [(p, i) for i, p in enumerate(pvalues) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(pvalues)
    m, running = len(present), 1.0
    for rank, (p, i) in reversed(list(enumerate(sorted(present), start=1))):
        running = min(running, min(1.0, p * m / rank))
        out[i] = running
    return out


def interval_fields(
    low: float | None,
    high: float | None,
    n_boot: int | None = None,
    level: float = LEVEL,
    units: int | None = None,
    unit: str = "unit",
) -> dict:
    """The interval's fields of a record. `units`: how many units the bootstrap resampled
    (answers, seeds, templates); under 2 there is no interval, and `ci_na_reason` says so
    ("1 seed"), so that a missing interval is never read as a precise estimate. `ci_unit`
    names the unit resampled, what the interval speaks about (workbench/metrics/clustered.py)."""
    fields: dict = {"ci_low": low, "ci_high": high, "ci_level": level, "n_boot": n_boot or resamples(), "ci_unit": unit}
    if units is not None and units < 2:
        fields.update(ci_low=None, ci_high=None, ci_na_reason=units_text(units, unit))
    return fields


def units_text(count: int, unit: str) -> str:
    """ "1 seed", "0 answers": a count with its unit, for the reasons a number is missing."""
    return f"{count} {unit}" + ("" if count == 1 else "s")
