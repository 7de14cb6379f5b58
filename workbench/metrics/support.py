"""Support before display (docs/methods.md, "Minimum support"): the least data a number needs
before it is shown, and why it is n/a below that.

- A standard deviation over units (cold-start seeds) needs 2 of them: one seed's is 0 by
  construction, not a finding ("± 0.00 (n 1)").
- A mean's 95 % interval over a handful of units (seeds, templates) is Student's t on n - 1
  degrees of freedom times the standard error, and needs MIN_INTERVAL_UNITS of them. The
  percentile bootstrap these had before cannot speak from so few: with n units a resample of n
  copies of the smallest value has chance n^-n (1/4 at 2, 1/27 at 3, both above 2.5 %), so its
  2.5th and 97.5th percentiles are the smallest and largest values themselves and the interval
  is the data's range, which holds the population's median with chance 1 - 2^(1 - n): 50 % at
  2 units, 75 % at 3. Student's t covers 95 % under normal errors from 2 units on (12.7 standard
  errors wide each side there), but with 2 its width rests on one difference; from 3 it has 2
  degrees of freedom. Values that do not vary at all (every seed gave the same divergence)
  give no spread to read: a zero-width interval would claim certainty, so it is n/a too.
- A rank test's p is n/a wherever the smallest p it could give with these group sizes (and
  these ties) is not below 0.05: no outcome of it could be a finding, and its p (0.067 for a
  group of one entity against 29) would only fill a Holm family. Mann-Whitney's and
  Wilcoxon's floor is the test itself run on the most extreme arrangement of the same values;
  Spearman's and Kruskal-Wallis' p come from the t and chi-square approximations, which reach
  0 for any n, so their floor is the permutation test's (each arrangement of the values
  equally likely): at least 2 max(prod g!) / n! for Spearman (g the sizes of each sample's
  runs of ties: 2/6 at 3 entities, 2/24 at 4, 2/120 at 5 untied).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

ALPHA = 0.05
MIN_SD_UNITS = 2
MIN_INTERVAL_UNITS = 3


def units_text(count: int, unit: str) -> str:
    return f"{count} {unit}" + ("" if count == 1 else "s")


def sd_reason(units: int, unit: str) -> str | None:
    """Why a standard deviation over `units` is n/a ("1 seed"), None when it has support."""
    return units_text(units, unit) if units < MIN_SD_UNITS else None


def interval_reason(values: Sequence[float], unit: str, tolerance: float = 1e-12) -> str | None:
    """Why a mean's interval over these units is n/a, None when it has support: "1 seed",
    "2 seeds, fewer than 3", "every seed gives the same value"."""
    n = len(values)
    if n < 2:
        return units_text(n, unit)
    if n < MIN_INTERVAL_UNITS:
        return f"{units_text(n, unit)}, fewer than {MIN_INTERVAL_UNITS}"
    if max(values) - min(values) <= tolerance * max(1.0, max(abs(v) for v in values)):
        return f"every {unit} gives the same value"
    return None


def mean_interval(
    values: Sequence[float], unit: str, level: float = 0.95, bounds: tuple[float, float] | None = None
) -> tuple[float | None, float | None, str | None]:
    """The mean's Student's t interval over these units (n - 1 degrees of freedom), within
    `bounds` where the number cannot leave them (a divergence: 0-1); or (None, None, why)."""
    why = interval_reason(values, unit)
    if why:
        return None, None, why
    from scipy import special

    n = len(values)
    mean = sum(values) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    half = float(special.stdtrit(n - 1, 0.5 + level / 2)) * se
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return low, high, None


def mean_interval_fields(values: Sequence[float], unit: str, bounds: tuple[float, float] | None = None) -> dict:
    """A record's interval fields for the mean of `values` over units (`mean_interval`): the
    ends, or `ci_na_reason` where it is n/a."""
    from workbench.metrics.intervals import interval_fields

    low, high, why = mean_interval(values, unit, bounds=bounds)
    fields = interval_fields(low, high, units=len(values) or None, unit=unit)
    if why and "ci_na_reason" not in fields:
        fields["ci_na_reason"] = why
    return fields


def floor_reason(test: str, sizes: str, floor: float) -> str | None:
    """ "the smallest p Mann-Whitney could give with 1 vs 29 entities is 0.067", where that
    floor is not below ALPHA; None where the test can find something."""
    if floor < ALPHA:
        return None
    return f"the smallest p {test} could give with {sizes} is {floor:.3f}"


def mann_whitney_floor(inside: Sequence[float], outside: Sequence[float]) -> float:
    """The smallest two-sided p scipy's Mann-Whitney U gives for groups of these sizes and
    values (ties, and so its choice of exact or asymptotic p, kept): the test run on the
    values sorted into the two groups, either way round."""
    from scipy.stats import mannwhitneyu

    values, k = sorted([*inside, *outside]), len(inside)
    low = mannwhitneyu(values[:k], values[k:], alternative="two-sided").pvalue
    high = mannwhitneyu(values[-k:], values[:-k], alternative="two-sided").pvalue
    return float(min(low, high))


def wilcoxon_floor(differences: Sequence[float]) -> float:
    """The smallest two-sided p scipy's Wilcoxon signed-rank test gives for differences of
    these sizes (zeros and ties kept): every difference on one side."""
    from scipy.stats import wilcoxon

    return float(wilcoxon([abs(d) for d in differences]).pvalue)


def _ties(values: Sequence[float]) -> int:
    """The product of the factorials of the sizes of each run of equal values."""
    return math.prod(math.factorial(c) for c in Counter(values).values())


def spearman_floor(a: Sequence[float], b: Sequence[float]) -> float:
    """A lower bound on the two-sided permutation p of a rank correlation of n pairs: the
    most extreme arrangement has chance at least max(prod g!) / n! (rearranging equal values
    changes nothing), doubled for the other direction."""
    n = len(a)
    if n < 2:
        return 1.0
    return min(1.0, 2 * max(_ties(a), _ties(b)) / math.factorial(n))


def kruskal_floor(samples: Sequence[Sequence[float]]) -> float:
    """A lower bound on Kruskal-Wallis' permutation p for these groups: the most extreme
    arrangement has chance at least max(prod g!, prod n_i! * prod m_s!) / N! (g: runs of
    ties; n_i: group sizes, any order within a group alike; m_s: groups of one size, which
    may trade places)."""
    sizes = [len(s) for s in samples if s]
    total = sum(sizes)
    if total < 2:
        return 1.0
    within = math.prod(math.factorial(n) for n in sizes) * _ties(sizes)
    pooled = _ties([v for s in samples for v in s])
    return min(1.0, max(within, pooled) / math.factorial(total))
