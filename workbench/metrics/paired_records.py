"""One difference between two models as `workbench compare` writes it: each model's number,
B's minus A's, its paired interval and the p of the same test (or why there are none), as a
flat record (workbench.analysis.compare.COMPARE_FIELDS). Every method's paired comparison makes its
records here, so that they read alike whatever was paired (questions, prompts, templates).

One inference per difference: the interval and p come from one test (p < 0.05 exactly when
the 95 % interval leaves out 0), Student's t on the difference's standard error
(workbench/metrics/paired.py) or, for a difference of two shares without spread or with a
share at 0 or 1, Newcombe's interval and the p that inverts it
(workbench/metrics/paired_boundary.py). Where there is no interval there is no p, with the
same reason, and the record is left out of the Holm and Benjamini-Hochberg family."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from workbench.metrics.intervals import LEVEL, resamples, spread
from workbench.metrics.paired import (
    PairedColumns,
    Unreached,
    degrees,
    difference_of,
    observed_difference,
    paired_resamples,
    resampled_se,
    t_test,
)
from workbench.metrics.paired_boundary import effective_n, newcombe_test


def paired_record(
    base: dict[str, Any], columns: PairedColumns, value, unit: str = "question", se=resampled_se, answers=None
) -> dict[str, Any]:
    """Each model's number (`value` of its sums), B's minus A's, its interval and p (or why
    none). `se(columns, diff)`: the difference's standard error, the paired resamples'
    standard deviation (questions in clusters), the linearised one (`linearised_se`: a
    log-odds) or the jackknife's (`jackknife_se`: units paired one to one, identity's prompts
    and entity's templates). `answers`: for a share, the column of each question's answers,
    whose sum is a model's sample size where Newcombe's interval stands in for t's."""
    diff = difference_of(value)
    ones = np.ones((1, columns.n_questions))
    value_a, value_b = (_finite(value(columns.sums(ones, x))[0]) for x in (columns.a, columns.b))
    difference = observed_difference(columns, diff)
    record = {**base, "value_a": value_a, "value_b": value_b, "difference": difference}
    record.update(ci_low=None, ci_high=None, ci_level=LEVEL, n_boot=resamples(), ci_unit=unit)
    record.update(p=None, n_questions=columns.n_questions)
    if difference is None:
        record["na_reason"] = "no answers to divide by"
        return record
    reason, error = _no_interval(columns, unit), None
    if reason is None:
        try:
            error = se(columns, diff)
        except Unreached:
            reason = UNREACHED
    boundary = answers is not None and (error == 0 or not (0 < value_a < 1 and 0 < value_b < 1))
    if reason is None and boundary:
        sides = _sides(columns, value, answers, (value_a, value_b))
        record["ci_low"], record["ci_high"], record["p"] = newcombe_test(*sides, degrees(columns))
    elif reason is None and error == 0:
        reason = f"B - A is the same on every {unit}"
    elif reason is None and error is not None:
        record["ci_low"], record["ci_high"], record["p"] = t_test(difference, error, degrees(columns))
    if reason is not None:
        record["ci_na_reason"] = record["p_na_reason"] = reason
    return record


def _no_interval(columns: PairedColumns, unit: str) -> str | None:
    """Why the units give no spread to read: one unit, or a cluster of one question."""
    if columns.n_questions < 2:
        return f"1 {unit} both answered"
    return None  # a cluster of one question is pooled with others for the spread (`PairedColumns.drawn`)


def _sides(columns: PairedColumns, value, answers: int, shares: tuple) -> list[tuple[float, float]]:
    """(share, effective n) of A and of B: each model's own resamples (the same draws)."""
    out = []
    for i, (x, share) in enumerate(zip((columns.a, columns.b), shares)):
        own = spread(paired_resamples(columns, lambda a, b, i=i: value((a, b)[i])))
        out.append((share, effective_n(share, own, float(x[:, answers].sum()))))
    return out


def adjusted(records: list[dict[str, Any]]) -> None:
    """Holm and BH over the differences that have a p (one family): an n/a difference has none,
    and no adjusted p either (a p of 1 for it would enlarge the family and weaken the rest)."""
    from workbench.metrics.records import with_adjusted_p

    with_adjusted_p(records, lambda r: r.get("p") is not None, ("study",))


# The difference of two log-odds of few slots, whose standard error is taken to first order, may
# have no resample of the questions at its observed value (paired.Unreached).
UNREACHED = "no resample reaches the estimate: too few questions per cluster"


def missing_record(base: dict[str, Any], reason: str, n_questions: int) -> dict[str, Any]:
    """A difference that cannot be computed: every number None, and why."""
    record = {**base, "value_a": None, "value_b": None, "difference": None, "ci_low": None, "ci_high": None}
    record.update(ci_level=LEVEL, n_boot=resamples(), ci_unit="question", p=None, n_questions=n_questions)
    record["na_reason"] = reason
    return record


def _finite(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
