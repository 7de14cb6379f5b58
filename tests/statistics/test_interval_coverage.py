"""Do the 95 % intervals of PEIR and the direct-recommendation rate cover what they claim?

Simulated ChoiceEval studies, 9 clusters x 5 questions x 10 repetitions, counted and
bootstrapped by the functions `workbench metrics` uses (the arrays' counts of
`arrays.topic_counts`, the interval of `clustered.share_fields`). Each question has its own
chance of an answer naming anything (Beta, mean 0.6) and, when it does, of naming Nike
(Beta, mean 0.5): the population values are 0.6 (direct rate) and 0.6 x 0.5 = 0.30 (PEIR,
Nike's expected share of answers to questions drawn from the same population). Answers
to one question are correlated (intra-question correlation 0.40 for naming anything, 0.33
for naming Nike), or, in the second case, independent. Seeded: the counts below are the
same on every machine.
"""

from __future__ import annotations

import numpy as np
import pytest
from choice_simulation import DIRECT, NAMED_ANY, NAMES_NIKE, PEIR, named_lists, shares_of_named
from choice_simulation import NAMED as NAMES

from workbench.methods.choice.arrays import ListArrays, topic_counts
from workbench.methods.choice.metrics import records_of_counts
from workbench.methods.choice.records import DirectRecommendationRate, Peir
from workbench.metrics import clustered, intervals

CLUSTERS, QUESTIONS, REPETITIONS, STUDIES = 9, 5, 10, 200
BOOT = 400  # resamples per interval: enough for a 95 % interval's ends, quick


def icc_of_nike() -> float:
    """The intra-question correlation of 'this answer names Nike' (chance d * a per question)."""
    (a1, b1), (a2, b2) = NAMED_ANY, NAMES_NIKE
    m1, m2 = a1 / (a1 + b1), a2 / (a2 + b2)
    second = (m1 * (1 - m1) / (a1 + b1 + 1) + m1**2) * (m2 * (1 - m2) / (a2 + b2 + 1) + m2**2)
    return (second - (m1 * m2) ** 2) / (m1 * m2 * (1 - m1 * m2))


def study(rng: np.random.Generator, heterogeneous: bool) -> ListArrays:
    """One study's lists and mentions, as the store's rows would load them."""
    return named_lists(rng, CLUSTERS, QUESTIONS, REPETITIONS, heterogeneous)


def intervals_of(arrays: ListArrays) -> tuple[tuple, tuple]:
    """(PEIR's entity, value, low, high), (direct rate's value, low, high): the topic's."""
    return shares_of_named(arrays)


def coverage(heterogeneous: bool, seed: int) -> tuple[int, int, int, int]:
    """Of STUDIES studies: how many PEIR and direct-rate intervals over questions cover the
    population value, and how many over answers (`--ci-unit answer`) do."""
    rng = np.random.default_rng(seed)
    covered = [0, 0, 0, 0]
    for _ in range(STUDIES):
        arrays = study(rng, heterogeneous)
        (entity, _value, low, high), (_rate, d_low, d_high) = intervals_of(arrays)
        assert entity == "Nike"  # e*: the preferred entity is the one simulated so
        covered[0] += low <= PEIR <= high
        covered[1] += d_low <= DIRECT <= d_high
        with clustered.resampling_unit("answer"):
            (_, _, low, high), (_, d_low, d_high) = intervals_of(arrays)
        covered[2] += low <= PEIR <= high
        covered[3] += d_low <= DIRECT <= d_high
    return tuple(covered)


@pytest.mark.parametrize("heterogeneous", [True, False], ids=["questions-differ", "independent-answers"])
def test_intervals_over_questions_cover_the_population_value(heterogeneous):
    """92-98 % of 200 studies' 95 % intervals cover the population value, whether questions
    differ (intra-question correlation >= 0.3) or answers are independent; over answers
    (`--ci-unit answer`) the intervals speak about the questions asked, and cover the
    population value far less often when questions differ. Measured (PEIR, direct rate over
    questions; the same over answers): questions differ 192, 189; 134, 125 of 200;
    independent answers 190, 194; 189, 191 (with the percentile intervals over questions of
    before: 190, 188 and 190, 192)."""
    assert icc_of_nike() >= 0.3 and 1 / (sum(NAMED_ANY) + 1) >= 0.3
    with intervals.resampling(BOOT):
        covered = coverage(heterogeneous, seed=32 if heterogeneous else 33)
    low, high = 0.92 * STUDIES, 0.98 * STUDIES
    assert low <= covered[0] <= high and low <= covered[1] <= high, covered
    if heterogeneous:
        assert covered[2] < 0.85 * STUDIES and covered[3] < 0.85 * STUDIES, covered
    else:
        assert low <= covered[2] <= high and low <= covered[3] <= high, covered


def test_the_records_carry_the_interval_its_unit_and_the_effective_n():
    """The metrics' records hold the intervals computed above, name their unit and give the
    effective n beside n; over answers, the answer is the unit and n the effective n."""
    arrays = study(np.random.default_rng(7), heterogeneous=True)
    surface_entity = np.asarray([[n.lower() for n in NAMES].index(s) for s in arrays.surfaces], dtype=np.int64)

    def records(unit: str) -> tuple[Peir, DirectRecommendationRate]:
        with clustered.resampling_unit(unit):
            out = records_of_counts("s", topic_counts(arrays, surface_entity, NAMES), lambda e: None, ())
        peir = next(r for r in out if isinstance(r, Peir) and r.cluster is None)
        direct = next(r for r in out if isinstance(r, DirectRecommendationRate) and r.cluster is None)
        return peir, direct

    peir, direct = records("question")
    (_, value, low, high), (rate, d_low, d_high) = intervals_of(arrays)
    assert (peir.entity, peir.value, peir.ci_low, peir.ci_high) == ("Nike", value, low, high)
    assert (direct.value, direct.ci_low, direct.ci_high) == (rate, d_low, d_high)
    assert peir.ci_unit == direct.ci_unit == "question" and peir.n == direct.n == 450
    # answers to one question alike: far fewer independent answers' worth than 450
    assert 20 < peir.n_eff < 200 and peir.design_effect == pytest.approx(450 / peir.n_eff)
    per_answer, _ = records("answer")
    assert per_answer.ci_unit == "answer" and per_answer.n_eff == 450 and per_answer.design_effect == 1
    assert per_answer.ci_high - per_answer.ci_low < peir.ci_high - peir.ci_low
