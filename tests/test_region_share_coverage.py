"""Do the 95 % intervals of a region's share of recommendation slots cover what they claim?

Simulated ChoiceEval studies, 9 clusters x 5 questions x 10 repetitions, three slots per
answer, counted and bootstrapped by what `workbench metrics` uses (the arrays' counts of
`arrays.topic_counts`, `region_share.region_share_records`). Each question has its own
chance of a slot going to a US brand (Beta(0.8, 1.2): mean 0.40, intra-question
correlation 1 / 3), each slot drawn on its own given the question; in the second case every
question has the chance 0.40. The population value, the US share of slots over questions of
that kind, is 0.40. Seeded: the counts are the same on every machine.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.methods.choice.arrays import ListArrays, topic_counts
from workbench.methods.choice.region_share import region_share_records
from workbench.metrics import clustered, intervals

CLUSTERS, QUESTIONS, REPETITIONS, SLOTS, STUDIES = 9, 5, 10, 3, 200
US, EU = ("Nike", "Brooks", "Hoka"), ("Adidas", "Puma", "On")
NAMES = [*US, *EU]
REGION = {**dict.fromkeys(US, "United States"), **dict.fromkeys(EU, "Europe")}
SHARE, BETA = 0.40, (0.8, 1.2)
BOOT = 400
BASE = {"convention": "paper", "study": "s", "model": "m", "topic": "shoes", "cluster": None}


def study(rng: np.random.Generator, heterogeneous: bool) -> ListArrays:
    """One study's lists (id, model, topic, cluster, repetition, question) and mentions."""
    n_questions = CLUSTERS * QUESTIONS
    chance = rng.beta(*BETA, n_questions) if heterogeneous else np.full(n_questions, SHARE)
    question = np.repeat(np.arange(n_questions), REPETITIONS)
    us = rng.random((question.size, SLOTS)) < chance[question][:, None]
    brand = rng.integers(0, 3, (question.size, SLOTS))
    lists, mentions = [], []
    for i, q in enumerate(question.tolist()):
        lists.append((i + 1, "m", "shoes", f"Cluster {q // QUESTIONS}", i % REPETITIONS + 1, f"question {q}"))
        for slot in range(SLOTS):
            name = (US if us[i, slot] else EU)[brand[i, slot]]
            mentions.append((i + 1, slot + 1, name.lower()))
    arrays = ListArrays()
    arrays.replace((), lists, mentions)
    return arrays


def us_share(arrays: ListArrays):
    surface_entity = np.asarray([[n.lower() for n in NAMES].index(s) for s in arrays.surfaces], dtype=np.int64)
    scope = topic_counts(arrays, surface_entity, NAMES)["m", "shoes"].scopes[None]
    records = region_share_records(BASE, scope, REGION.get)
    return next(r for r in records if r.region == "United States")


def coverage(heterogeneous: bool, seed: int) -> tuple[int, int]:
    """Of STUDIES studies: how many intervals over questions, and over answers, cover 0.40."""
    rng = np.random.default_rng(seed)
    covered = [0, 0]
    for _ in range(STUDIES):
        arrays = study(rng, heterogeneous)
        share = us_share(arrays)
        covered[0] += share.ci_low <= SHARE <= share.ci_high
        with clustered.resampling_unit("answer"):
            share = us_share(arrays)
        covered[1] += share.ci_low <= SHARE <= share.ci_high
    return covered[0], covered[1]


@pytest.mark.parametrize("heterogeneous", [True, False], ids=["questions-differ", "independent-slots"])
def test_region_share_intervals_over_questions_cover_the_population_value(heterogeneous):
    """92-98 % of 200 studies' intervals over questions cover 0.40 whether questions differ
    or not; over answers (`--ci-unit answer`: these questions only) far fewer do when they
    differ. Measured: questions differ 187 of 200 over questions, 112 over answers;
    independent slots 187 and 190."""
    with intervals.resampling(BOOT):
        over_questions, over_answers = coverage(heterogeneous, seed=41 if heterogeneous else 42)
    low, high = 0.92 * STUDIES, 0.98 * STUDIES
    assert low <= over_questions <= high, (over_questions, over_answers)
    if heterogeneous:
        assert over_answers < 0.85 * STUDIES, over_answers
    else:
        assert low <= over_answers <= high, over_answers


def test_a_region_share_names_its_unit_and_effective_n_in_slots():
    """The record gives n (all slots), n_eff in slots and the design effect; over answers its
    unit is the answer, and the interval is narrower when questions differ."""
    arrays = study(np.random.default_rng(5), heterogeneous=True)
    share = us_share(arrays)
    assert share.ci_unit == "question" and share.slots == CLUSTERS * QUESTIONS * REPETITIONS * SLOTS
    assert share.design_effect > 3 and share.n_eff == pytest.approx(share.slots / share.design_effect)
    with clustered.resampling_unit("answer"):
        per_answer = us_share(arrays)
    assert per_answer.ci_unit == "answer" and per_answer.value == share.value
    assert per_answer.ci_high - per_answer.ci_low < (share.ci_high - share.ci_low) / 2
