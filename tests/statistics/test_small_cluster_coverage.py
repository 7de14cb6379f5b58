"""Do the intervals over questions cover their population value at the demo's design, two
questions per cluster (assets/studies/demo.toml: 9 clusters x 2 questions x 2 repetitions)?

There each resample draws one question of a cluster's two (k - 1 of k) and the resamples take a
handful of values: their 2.5th and 97.5th percentiles covered PEIR's population value in 0.88
of simulated studies, the direct rate's in 0.90, the US share of slots' in 0.90 (1,000 studies,
bench/bench_question_coverage.py --design 9x2x2, seed 1). A share's interval is now Student's
t on (questions - clusters) degrees of freedom times the resamples' standard deviation, on the
logit; the log-odds' the same on its linearised standard error; `workbench compare`'s
differences likewise. Simulated studies (tests/choice_simulation.py: each question its own
chance, intra-question correlation about 1/3), seeded: the counts are the same on every
machine.
"""

from __future__ import annotations

import numpy as np
from choice_simulation import (
    DIRECT,
    PEIR,
    SHARE,
    compared,
    difference_truths,
    log_odds,
    lor_truth,
    named_lists,
    shares_of_named,
    slotted_lists,
    two_models,
    us_share,
)

from workbench.metrics import intervals

CLUSTERS, QUESTIONS, REPETITIONS = 9, 2, 2  # the demo's design
STUDIES, COMPARISONS = 1000, 400
BOOT = 400


def _lowest(cells: int, chance: float = 0.95, sds: float = 3.5) -> float:
    """The least count of Binomial(cells, chance) within `sds` standard deviations of its mean."""
    return cells * chance - sds * (cells * chance * (1 - chance)) ** 0.5


def _covered(rows: list[tuple], truth: float) -> int:
    assert all(low is not None and high is not None for low, high in rows)  # no interval is n/a
    return sum(low <= truth <= high for low, high in rows)


def test_the_metrics_intervals_cover_at_two_questions_per_cluster():
    """Of 1,000 studies at least 926 (0.95 less 3.5 binomial standard deviations) of each
    interval cover the population value, and at most 990 (an interval that always covers says
    nothing). Measured: PEIR 958, direct rate 967, US share 957, log-odds 969 (with the
    percentile intervals: 896, 881, 900 and 942: the log-odds' shortfall, 0.93 in 1,000 studies of
    the bench, is within this band's reach)."""
    rng = np.random.default_rng(7)
    rows: dict[str, list[tuple]] = {"peir": [], "direct": [], "share": [], "lor": []}
    with intervals.resampling(BOOT):
        for _ in range(STUDIES):
            (_e, _v, low, high), (_r, d_low, d_high) = shares_of_named(
                named_lists(rng, CLUSTERS, QUESTIONS, REPETITIONS)
            )
            rows["peir"].append((low, high))
            rows["direct"].append((d_low, d_high))
            arrays = slotted_lists(rng, CLUSTERS, QUESTIONS, REPETITIONS)
            share = us_share(arrays)
            rows["share"].append((share.ci_low, share.ci_high))
            rows["lor"].append(log_odds(arrays).ci)
    truths = {"peir": PEIR, "direct": DIRECT, "share": SHARE, "lor": lor_truth(QUESTIONS, REPETITIONS)}
    covered = {name: _covered(rows[name], truth) for name, truth in truths.items()}
    assert all(_lowest(STUDIES) <= count <= 0.99 * STUDIES for count in covered.values()), covered


def test_compare_differences_cover_at_two_questions_per_cluster():
    """`workbench compare`'s ChoiceEval differences at the same design: of 400 comparisons at
    least 365 of each interval cover B - A, at most 396. Measured: PEIR 381, direct rate 377,
    US share 374, log-odds 373 (with the percentile intervals: 355, 355, 352, and 349 with 5 n/a:
    no resample reached the estimate)."""
    rng = np.random.default_rng(8)
    rows: dict[str, list[tuple]] = {}
    with intervals.resampling(BOOT):
        for _ in range(COMPARISONS):
            for slotted in (False, True):
                lists = two_models(rng, CLUSTERS, QUESTIONS, REPETITIONS, slotted)
                for metric, record in compared(lists, slotted).items():
                    rows.setdefault(metric, []).append((record["ci_low"], record["ci_high"]))
    truths = difference_truths(QUESTIONS, REPETITIONS)
    covered = {metric: _covered(rows[metric], truths[metric]) for metric in rows}
    assert len(covered) == 4, covered
    assert all(_lowest(COMPARISONS) <= count <= 0.99 * COMPARISONS for count in covered.values()), covered
