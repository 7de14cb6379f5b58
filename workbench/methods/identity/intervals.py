"""Identity numbers' intervals over prompts (docs/methods.md, "What an interval speaks about").

A study samples each group's prompts from its template (slot values, optional sentences) and
asks each once: the claim is about prompts of the template, so the unit resampled is the
prompt, with every answer to it (two draws that gave the same text are one prompt, answered
twice). Within a cell (model x group x condition) k - 1 of its k prompts are drawn with
replacement and scaled by k / (k - 1), as questions are in workbench/metrics/clustered.py.
There is no interval "these prompts only": with one answer per prompt the spread of a
prompt's answers is unknown, so `--ci-unit answer` leaves these intervals over prompts.

Coverage counts the distinct items recommended, so a bootstrap resample, which repeats some
prompts and drops others, names fewer of them, and its spread says little: in simulated
cells its basic bootstrap interval covered the expected coverage in 64 of 200. Its interval
is the jackknife's instead (each prompt left out in turn; the normal interval of the
spread), which covered it in 385 of 400 (tests/test_identity_intervals.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from workbench.metrics.clustered import clustered_sums
from workbench.metrics.intervals import LEVEL, _bounds, _rng, interval_fields, resamples

PROMPT = "prompt"


def by_prompt(prompts: Sequence[str], values: Sequence[float]) -> np.ndarray:
    """(k, 2): per prompt, its answers (with a value) and their values summed, rows sorted."""
    sums: dict[str, list[float]] = {}
    for prompt, value in zip(prompts, values):
        held = sums.setdefault(prompt, [0.0, 0.0])
        held[0] += 1
        held[1] += value
    rows = np.asarray(sorted(sums.values()), dtype=float).reshape(-1, 2)
    return rows


def mean_fields(prompts: Sequence[str], values: Sequence[float], seed: int | None = None) -> dict:
    """A mean over answers (`values`, each answer's `prompts`) whose interval resamples
    prompts: the interval's fields, the effective n (answers) and the design effect (against
    as many independent answers)."""
    rows = by_prompt(prompts, values)
    fields = interval_fields(None, None, units=rows.shape[0], unit=PROMPT)
    if "ci_na_reason" in fields:
        return {"n_eff": None, "design_effect": None, **fields}
    sums = clustered_sums(rows, resamples(), _rng(seed))
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = _bounds(sums[:, 1] / sums[:, 0], LEVEL)
    n_eff, deff = _design_effect(rows, np.asarray(values, dtype=float))
    return {"n_eff": n_eff, "design_effect": deff, **fields, "ci_low": low, "ci_high": high}


def difference_fields(cell: tuple[Sequence[str], Sequence[float]], baseline: tuple, seed: int | None = None) -> dict:
    """The mean of `cell` (prompts, values) minus the baseline's, each cell's prompts
    resampled on their own."""
    rows, baseline = by_prompt(*cell), by_prompt(*baseline)
    fields = interval_fields(None, None, units=min(rows.shape[0], baseline.shape[0]), unit=PROMPT)
    if "ci_na_reason" in fields:
        return fields
    rng = _rng(seed)
    a, b = clustered_sums(rows, resamples(), rng), clustered_sums(baseline, resamples(), rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = _bounds(a[:, 1] / a[:, 0] - b[:, 1] / b[:, 0], LEVEL)
    return {**fields, "ci_low": low, "ci_high": high}


def _design_effect(rows: np.ndarray, values: np.ndarray) -> tuple[float | None, float | None]:
    """The mean's variance over prompts (linearised, k / (k - 1)) over that of as many
    independent answers (their values' sample variance / n): 1 when every prompt is asked once."""
    n = float(rows[:, 0].sum())
    mean = float(rows[:, 1].sum()) / n
    k = rows.shape[0]
    z = rows[:, 1] - mean * rows[:, 0]
    over_prompts = k / (k - 1) * float(np.sum(z**2)) / n**2
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
    half = _Z * variance**0.5
    return {**fields, "ci_low": max(0.0, value - half), "ci_high": min(1.0, value + half)}


_Z = float(NormalDist().inv_cdf(0.5 + LEVEL / 2))
