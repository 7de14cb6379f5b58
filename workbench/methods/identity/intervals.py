"""Identity numbers' intervals over prompts (docs/methods.md, "What an interval speaks about").

A study samples each group's prompts from its template (slot values, optional sentences) and
asks each once: the claim is about prompts of the template, so the unit resampled is the
prompt, with every answer to it (two draws that gave the same text are one prompt, answered
twice). Within a cell (model x group x condition) k - 1 of its k prompts are drawn with
replacement and scaled by k / (k - 1), as questions are in workbench/metrics/clustered.py.
There is no interval "these prompts only": with one answer per prompt the spread of a
prompt's answers is unknown, so `--ci-unit answer` leaves these intervals over prompts.

A cell holds few prompts (10 by default: `per_group` 40 over four conditions), and the 2.5th
and 97.5th percentiles of so few prompts' resamples are too narrow: their spread is itself
estimated on k - 1 degrees of freedom (Student's t, 2.26 at k = 10, not 1.96), and prompts'
shares are skewed (a few prompts draw many of the group's items), which the percentiles follow
only in part. In simulated cells of 10 prompts that percentile interval covered the population
value 0.885-0.923 of the time (bench/bench_identity_coverage.py). Its ends are taken instead at
the BCa levels (bias from the resamples, acceleration from the jackknife over prompts) with
Student's t on k - 1 degrees of freedom in place of the normal's quantiles (the difference
against the baseline: Welch's degrees of freedom), which covered it 0.933-0.962 of the time
(docs/methods.md §2; tests/methods/identity/test_identity_intervals.py). Under MIN_PROMPTS it covered less
(0.87-0.93 at 5 prompts): the interval is n/a (`few-prompts`).

Coverage counts the distinct items recommended, so a bootstrap resample, which repeats some
prompts and drops others, names fewer of them, and its spread says little: in simulated
cells its basic bootstrap interval covered the expected coverage in 64 of 200. Its interval
is the jackknife's instead (each prompt left out in turn; the normal interval of the
spread), which covered it in 385 of 400 (tests/methods/identity/test_identity_intervals.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from workbench.metrics.clustered import clustered_sums
from workbench.metrics.intervals import LEVEL, _rng, interval_fields, resamples

PROMPT = "prompt"
MIN_PROMPTS = 8  # fewer prompts in a cell: its interval is n/a (few-prompts)


def by_prompt(prompts: Sequence[str], values: Sequence[float]) -> np.ndarray:
    """(k, 2): per prompt, its answers (with a value) and their values summed, rows sorted."""
    sums: dict[str, list[float]] = {}
    for prompt, value in zip(prompts, values):
        held = sums.setdefault(prompt, [0.0, 0.0])
        held[0] += 1
        held[1] += value
    rows = np.asarray(sorted(sums.values()), dtype=float).reshape(-1, 2)
    return rows


def prompt_fields(prompts: int) -> dict:
    """An interval's fields before its ends: n/a with why under 2 prompts ("1 prompt") and
    under MIN_PROMPTS ("5 prompts, fewer than 8")."""
    fields = interval_fields(None, None, units=prompts, unit=PROMPT)
    if "ci_na_reason" not in fields and prompts < MIN_PROMPTS:
        fields["ci_na_reason"] = f"{prompts} prompts, fewer than {MIN_PROMPTS}"
    return fields


def mean_fields(prompts: Sequence[str], values: Sequence[float], seed: int | None = None) -> dict:
    """A mean over answers (`values`, each answer's `prompts`) whose interval resamples
    prompts: the interval's fields, the effective n (answers) and the design effect (against
    as many independent answers)."""
    rows = by_prompt(prompts, values)
    fields = prompt_fields(rows.shape[0])
    n_eff, deff = _design_effect(rows, np.asarray(values, dtype=float)) if rows.shape[0] > 1 else (None, None)
    if "ci_na_reason" in fields:
        return {"n_eff": n_eff, "design_effect": deff, **fields}
    if _alike(rows):  # no spread between prompts: a zero-width interval would claim certainty
        return {"n_eff": n_eff, "design_effect": deff, **fields, "ci_na_reason": SAME_PROMPTS}
    sums = clustered_sums(rows, resamples(), _rng(seed))
    mean, influence = _jackknife(rows)
    low, high = t_bounds(sums[:, 1] / sums[:, 0], mean, influence, rows.shape[0] - 1)
    return {"n_eff": n_eff, "design_effect": deff, **fields, "ci_low": low, "ci_high": high}


SAME_PROMPTS = "every prompt gives the same value"
COVERAGE_ALIKE = "no prompt alone moves coverage"


def _alike(rows: np.ndarray) -> bool:
    """Every prompt's mean the same (to rounding): its interval over prompts has no spread to read."""
    means = rows[:, 1] / rows[:, 0]
    return bool(np.ptp(means) <= 1e-12 * max(1.0, float(np.max(np.abs(means)))))


def difference_fields(
    cell: tuple[Sequence[str], Sequence[float]], baseline: tuple, seed: int | None = None, same: str = ""
) -> dict:
    """The mean of `cell` (prompts, values) minus the baseline's, each cell's prompts
    resampled on their own; Welch's degrees of freedom. Its p (`p`) is the test the interval
    inverts (`bca_p`): p < 0.05 exactly when the interval leaves out 0; where the interval is
    n/a so is p, for the same reason (`same`: the reason where both cells give one value)."""
    rows, baseline = by_prompt(*cell), by_prompt(*baseline)
    fields = prompt_fields(min(rows.shape[0], baseline.shape[0]))
    if "ci_na_reason" not in fields and _alike(rows) and _alike(baseline):
        alike = np.isclose(rows[0, 1] / rows[0, 0], baseline[0, 1] / baseline[0, 0], rtol=1e-12, atol=0)
        fields["ci_na_reason"] = same if same and alike else SAME_PROMPTS
    if "ci_na_reason" in fields:
        return {"p": None, "p_na_reason": fields["ci_na_reason"], **fields}
    rng = _rng(seed)
    a, b = clustered_sums(rows, resamples(), rng), clustered_sums(baseline, resamples(), rng)
    (mean_a, u_a), (mean_b, u_b) = _jackknife(rows), _jackknife(baseline)
    v_a, v_b = _variance(rows, mean_a), _variance(baseline, mean_b)
    k_a, k_b = rows.shape[0], baseline.shape[0]
    welch = (v_a + v_b) ** 2 / (v_a**2 / (k_a - 1) + v_b**2 / (k_b - 1)) if v_a + v_b > 0 else k_a + k_b - 2
    resampled = a[:, 1] / a[:, 0] - b[:, 1] / b[:, 0]
    influence = np.concatenate([u_a, -u_b])
    low, high = t_bounds(resampled, mean_a - mean_b, influence, welch)
    return {"p": bca_p(resampled, mean_a - mean_b, influence, welch), **fields, "ci_low": low, "ci_high": high}


def t_bounds(resampled: np.ndarray, estimate: float, influence: np.ndarray, df: float) -> tuple:
    """The percentiles of the resamples at the BCa levels (Efron 1987), with Student's t on
    `df` degrees of freedom in place of the normal's quantiles: the bias from the share of
    resamples under the estimate, the acceleration from `influence` (each unit's jackknife
    influence, mean of the leave-one-out estimates minus its own)."""
    from scipy.stats import t as student

    samples = resampled[np.isfinite(resampled)]
    if samples.size == 0:
        return None, None
    z0, acceleration = _bca_constants(samples, estimate, influence)
    quantile = float(student.ppf(0.5 + LEVEL / 2, df))
    levels = []
    for w in (z0 - quantile, z0 + quantile):
        scale = 1 - acceleration * w
        levels.append(_NORMAL.cdf(z0 + w / scale) if scale > 0 else float(w > 0))
    low, high = np.percentile(samples, [100 * levels[0], 100 * levels[1]])
    return float(low), float(high)


def _bca_constants(samples: np.ndarray, estimate: float, influence: np.ndarray) -> tuple[float, float]:
    """BCa's bias z0 (the share of resamples under the estimate) and acceleration (the influences' skew)."""
    tie = np.abs(samples - estimate) <= 1e-12 * max(1.0, abs(estimate))  # the same draw, summed in another order
    below = (np.sum((samples < estimate) & ~tie) + 0.5 * np.sum(tie)) / samples.size
    z0 = _NORMAL.inv_cdf(_clipped(below, samples.size))
    spread = float(np.sum(influence**2))
    acceleration = float(np.sum(influence**3)) / (6 * spread**1.5) if spread > 0 else 0.0
    return z0, acceleration


def _clipped(level: float, size: int) -> float:
    return min(max(level, 0.5 / size), 1 - 0.5 / size)


def bca_p(resampled: np.ndarray, estimate: float, influence: np.ndarray, df: float) -> float | None:
    """The two-sided p of the test `t_bounds` inverts: the smallest 1 - level at which its
    interval leaves out 0. Each end is the resamples' percentile (linear between sorted
    resamples) at a BCa level that moves monotonically with Student's quantile; so the level
    at which that percentile is 0 gives the quantile t* at which the end touches 0, and
    p = 2 (1 - T_df(t*)): p < 0.05 exactly when the 95 % interval leaves out 0."""
    from scipy.stats import t as student

    samples = np.sort(resampled[np.isfinite(resampled)])
    if samples.size < 2:
        return None
    z0, acceleration = _bca_constants(samples, estimate, influence)
    touching = []
    # the low end is above 0 while its level is above `low_zero`; the high end below 0 while
    # its level is under `high_zero` (the levels at which the percentile crosses 0)
    for zero, sign in ((_crossing(samples, below=False), 1), (_crossing(samples, below=True), -1)):
        c = _NORMAL.inv_cdf(_clipped(zero, samples.size)) - z0
        if 1 + acceleration * c <= 0:
            continue  # this end never reaches 0 at any level
        touching.append(sign * (z0 - c / (1 + acceleration * c)))
    if not touching:
        return 1.0
    return float(min(1.0, 2 * student.sf(max(touching), df)))


def _crossing(samples: np.ndarray, below: bool) -> float:
    """The level (0-1) at which np.percentile of the sorted samples crosses 0: the largest
    level whose percentile is at most 0 (`below` False: where the low end starts to exceed
    0), or the smallest whose percentile is at least 0 (`below` True: the high end)."""
    size = samples.size
    count = int(np.sum(samples < 0) if below else np.sum(samples <= 0))
    if count == 0:
        return 0.0
    if count == size:
        return 1.0
    left, right = samples[count - 1], samples[count]
    position = (count - 1) + (0.0 - left) / (right - left)
    return position / (size - 1)


def _jackknife(rows: np.ndarray) -> tuple[float, np.ndarray]:
    """The mean over answers of rows (answers, sum) per prompt and each prompt's influence:
    the mean of the leave-one-prompt-out means minus its own."""
    n, total = float(rows[:, 0].sum()), float(rows[:, 1].sum())
    left_out = (total - rows[:, 1]) / (n - rows[:, 0])
    return total / n, left_out.mean() - left_out


def _variance(rows: np.ndarray, mean: float) -> float:
    """The mean's variance over prompts, linearised, k / (k - 1)."""
    k, n = rows.shape[0], float(rows[:, 0].sum())
    z = rows[:, 1] - mean * rows[:, 0]
    return k / (k - 1) * float(np.sum(z**2)) / n**2


def _design_effect(rows: np.ndarray, values: np.ndarray) -> tuple[float | None, float | None]:
    """The mean's variance over prompts (linearised, k / (k - 1)) over that of as many
    independent answers (their values' sample variance / n): 1 when every prompt is asked once."""
    n = float(rows[:, 0].sum())
    over_prompts = _variance(rows, float(rows[:, 1].sum()) / n)
    spread = float(np.var(values, ddof=1)) if n > 1 else 0.0
    if spread <= 0 or over_prompts <= 0:
        return None, None
    deff = over_prompts / (spread / n)
    return n / deff, deff


def coverage_fields(items: Sequence[set[str]], weight: dict[str, float], value: float) -> dict:
    """Coverage's interval over prompts: `items` per prompt (every item its answers
    recommended), `weight` each item's count over the group's total. The jackknife's normal
    interval: leaving one prompt out takes away the items only it named."""
    fields = interval_fields(None, None, units=len(items), unit=PROMPT)
    if "ci_na_reason" in fields:
        return fields
    names = sorted(set().union(*items))
    column = {name: i for i, name in enumerate(names)}
    held = np.zeros((len(items), len(names)))
    for row, recommended in enumerate(items):
        held[row, [column[name] for name in recommended]] = 1
    w = np.asarray([weight.get(name, 0.0) for name in names])
    only = (held.sum(axis=0) == 1) * w  # an item's weight, where a single prompt named it
    left_out = value - held @ only
    k = len(items)
    variance = (k - 1) / k * float(np.sum((left_out - left_out.mean()) ** 2))
    if variance <= 1e-24:  # no prompt's leaving moves coverage: zero width would claim certainty
        return {**fields, "ci_na_reason": COVERAGE_ALIKE}
    half = _Z * variance**0.5
    return {**fields, "ci_low": max(0.0, value - half), "ci_high": min(1.0, value + half)}


_NORMAL = NormalDist()
_Z = float(_NORMAL.inv_cdf(0.5 + LEVEL / 2))
