"""Pooled shares over strata of questions: each share's value, linearised variance and degrees
of freedom, then its effective n, design effect and interval, computed once per share.

`workbench metrics` takes tens of thousands of these (every PEIR, direct rate and region share
of every scope), so a scope's shares of one total (its regions' shares of its slots) are
pooled in one pass over its rows, and each share's numbers are read from one pooling, not
from three (the interval, its degrees of freedom and the design effect each pooled the rows
again). The formulas are workbench/metrics/clustered.py's, column by column in the same order,
so the numbers are the same to the last bit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.intervals import effective_n_interval, rounded_off


@dataclass(frozen=True)
class Pooled:
    """One share pooled over its strata: hits over total, its variance over questions
    (linearised, strata apart) and the degrees of freedom of that variance."""

    share: float
    variance: float
    df: float
    total: float

    def design_effect(self) -> tuple[float | None, float | None]:
        """(effective n, design effect): the variance against that of `total` independent
        draws; None where either is 0 (a share of 0 or 1, or questions that all agree)."""
        binomial = self.share * (1 - self.share) / self.total
        if binomial <= 0 or self.variance <= 0:
            return None, None
        deff = self.variance / binomial
        return self.total / deff, deff

    def interval(self, units: float | None, df: bool = True) -> tuple[float, float]:
        """Clopper-Pearson's on the effective sample size (`effective_n_interval`), shrunk
        for Student's t on `df` degrees of freedom unless `df` is False."""
        se = rounded_off(self.variance**0.5, self.share)
        return effective_n_interval(self.share, se, self.total, self.df if df else None, units=units)


def pooled(strata: Sequence[np.ndarray], hits: Sequence[int] = (0,), total: int = 1) -> list[Pooled]:
    """Each `hits` column's share of the `total` column, pooled over the strata's rows (one
    row per question): one concatenation and a few bincounts for all of them."""
    rows = np.concatenate(strata) if len(strata) > 1 else strata[0]
    sizes = np.array([r.shape[0] for r in strata])
    codes = np.repeat(np.arange(len(strata)), sizes)
    n = rows[:, total].astype(float)
    grand = float(n.sum())
    most = float(np.sum(sizes - 1))
    scale = sizes / (sizes - 1)
    out = []
    for column in hits:
        counted = rows[:, column].astype(float)
        share = float(counted.sum()) / grand
        z = counted - share * n
        deviation = z - (np.bincount(codes, z, len(strata)) / sizes)[codes]
        parts = deviation**2
        variance = float(np.sum(scale * np.bincount(codes, parts, len(strata)))) / grand**2
        if parts.sum() <= 0:
            df = most
        else:
            # how many questions carry the spread: (sum of parts)^2 / sum of their squares,
            # twice that, never under 1 (clustered.share_df says why)
            df = min(most, max(1.0, 2 * float(parts.sum() ** 2 / np.sum(parts * parts))))
        out.append(Pooled(share, variance, df, grand))
    return out
