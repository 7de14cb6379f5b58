"""Two tests scipy.stats offers, computed as it computes them, without importing it.

`scipy.stats` takes about a second to import (its documentation is parsed at import),
more than a ChoiceEval study's Spearman pairs and t-tests cost together; `scipy.special`
holds the distribution functions those tests end with and imports in a fraction of that.
tests/statistics/test_metrics_scale.py holds both to scipy.stats's results."""

from __future__ import annotations

import numpy as np


def average_ranks(rows: np.ndarray) -> np.ndarray:
    """`scipy.stats.rankdata(rows, axis=1)` (method "average"): each row ranked 1..n, tied
    values given the mean of the ranks they span. Exact: a mean of consecutive whole numbers
    is a whole number or a half."""
    rows = np.asarray(rows, dtype=float)
    m, n = rows.shape
    order = np.argsort(rows, axis=1, kind="mergesort")
    ordered = np.take_along_axis(rows, order, axis=1)
    starts = np.ones((m, n), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group = np.cumsum(starts.ravel()) - 1  # runs of ties, numbered across all rows
    positions = np.tile(np.arange(1, n + 1, dtype=float), m)
    mean_rank = np.bincount(group, weights=positions) / np.bincount(group)
    ranks = np.empty((m, n))
    np.put_along_axis(ranks, order, mean_rank[group].reshape(m, n), axis=1)
    return ranks


def ttest_1samp(values: np.ndarray, popmean: float = 0.0) -> tuple[float, float]:
    """`scipy.stats.ttest_1samp(values, popmean)`: t over the sample's standard error
    (ddof 1) and its two-sided p from Student's t with n - 1 degrees of freedom."""
    from scipy import special

    values = np.asarray(values, dtype=float)
    n = values.size
    dof = n - 1
    mean = np.mean(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - popmean) / np.sqrt(np.var(values, ddof=1) / n)
    p = 2 * special.stdtr(dof, -np.abs(t))
    return float(t), float(p)
