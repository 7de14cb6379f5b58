"""One difference between two models as `workbench compare` writes it: each model's number,
B's minus A's, its paired interval (or why there is none) and its permutation p, as a flat
record (workbench.compare.COMPARE_FIELDS). Every method's paired comparison makes its records
here, so that they read alike whatever was paired (questions, prompts, templates)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from workbench.metrics.intervals import LEVEL, resamples
from workbench.metrics.paired import (
    PairedColumns,
    Unreached,
    difference_of,
    observed_difference,
    one_question_stratum,
    paired_interval,
    sign_flip_p,
)


def paired_record(
    base: dict[str, Any], columns: PairedColumns, value, test=None, unit: str = "question", interval=paired_interval
) -> dict[str, Any]:
    """Each model's number (`value` of its sums), B's minus A's, its interval (or why none)
    and its permutation p (of `test`, a difference, when the test re-chooses something).
    `interval(columns, diff)`: Student's t on the paired bootstrap's standard deviation
    (questions in clusters), on the linearised standard error (`linearised_interval`: a
    log-odds) or on the jackknife's (`t_interval`: units paired one to one, identity's prompts
    and entity's templates); each is centred on the difference."""
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
    single = one_question_stratum(columns)
    if columns.n_questions < 2:
        record["ci_na_reason"] = f"1 {unit} both answered"
    elif single is not None:
        record["ci_na_reason"] = f"1 question in {_stratum_text(single)}"
    else:
        try:
            record["ci_low"], record["ci_high"] = interval(columns, diff)
        except Unreached:
            record["ci_na_reason"] = UNREACHED
    observed = observed_difference(columns, test or diff)
    record["p"] = sign_flip_p(columns, test or diff, difference if observed is None else observed)
    return record


# The difference of two log-odds of few slots, whose interval is taken to first order, may have
# no resample of the questions at its observed value (paired.Unreached).
UNREACHED = "no resample reaches the estimate: too few questions per cluster"


def missing_record(base: dict[str, Any], reason: str, n_questions: int) -> dict[str, Any]:
    """A difference that cannot be computed: every number None, and why."""
    record = {**base, "value_a": None, "value_b": None, "difference": None, "ci_low": None, "ci_high": None}
    record.update(ci_level=LEVEL, n_boot=resamples(), ci_unit="question", p=None, n_questions=n_questions)
    record["na_reason"] = reason
    return record


def _stratum_text(name: str) -> str:
    return f"cluster {name!r}" if name else "the questions without a cluster"


def _finite(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
