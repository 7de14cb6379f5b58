"""Simulated ChoiceEval studies where the preferred entity is a close call, for
tests/methods/choice/test_preferred_choice.py and bench/bench_preferred_choice.py.

Each question has its own chance of naming each brand (Beta of the brand's mean share and an
intra-question correlation of 1/3, as tests/choice_simulation.py), the brands apart; an
answer names each brand with its question's chance, in a random order, and Puma with 0.1.
The population's shares are the brands' means: Nike 0.30 and Adidas 0.28 by default. The
lists go through what `workbench metrics` uses: the arrays' counts and `records_of_counts`.
"""

from __future__ import annotations

import numpy as np

from workbench.methods.choice.arrays import ListArrays, topic_counts
from workbench.methods.choice.metrics import records_of_counts
from workbench.methods.choice.records import Peir

CLOSE = {"Nike": 0.30, "Adidas": 0.28}
ICC = 1 / 3


def study_lists(rng, shares: dict[str, float], clusters: int, questions: int, repetitions: int) -> ListArrays:
    """One study's lists and mentions (list id, rank, surface), as the store's rows load."""
    n_questions = clusters * questions
    total = 1 / ICC - 1
    brands = [*shares, "Puma"]
    chance = np.column_stack(
        [rng.beta(m * total, (1 - m) * total, n_questions) for m in shares.values()] + [np.full(n_questions, 0.1)]
    )
    question = np.repeat(np.arange(n_questions), repetitions)
    named = rng.random((question.size, len(brands))) < chance[question]
    order = np.argsort(rng.random((question.size, len(brands))), axis=1)
    lists, mentions = [], []
    for i, q in enumerate(question.tolist()):
        lists.append((i + 1, "m", "shoes", f"Cluster {q // questions}", i % repetitions + 1, f"question {q}"))
        ranked = [brands[b].lower() for b in order[i] if named[i, b]]
        mentions += [(i + 1, rank, surface) for rank, surface in enumerate(ranked, start=1)]
    arrays = ListArrays()
    arrays.replace((), lists, mentions)
    return arrays


def topic_peir(arrays: ListArrays, shares: dict[str, float]) -> Peir:
    """The topic's PEIR record, as `workbench metrics` gives it."""
    names = [*shares, "Puma"]
    surface_entity = np.asarray([[n.lower() for n in names].index(s) for s in arrays.surfaces], dtype=np.int64)
    counted = topic_counts(arrays, surface_entity, names)
    records = records_of_counts("s", counted, lambda _e: None, region_pairs=())
    return next(r for r in records if isinstance(r, Peir) and r.cluster is None)


def chosen(rng, studies: int, design: tuple[int, int, int], shares: dict[str, float] = CLOSE) -> dict:
    """Over `studies` simulated studies: how often the interval of the chosen brand's share
    covers that brand's population share (and misses above or below it), how often the
    sample prefers a brand other than the population's, the chosen share's mean error, and
    the stay-preferred shares given."""
    best = max(shares, key=shares.get)
    out = {"covered": 0, "above": 0, "below": 0, "na": 0, "wrong": 0, "error": 0.0, "stays": [], "right": []}
    for _ in range(studies):
        r = topic_peir(study_lists(rng, shares, *design), shares)
        truth = shares.get(r.entity, 0.1)
        out["wrong"] += r.entity != best
        out["error"] += r.value - truth
        out["stays"].append(r.stays_preferred)
        out["right"].append(r.entity == best)
        if r.ci_low is None:
            out["na"] += 1
        elif r.ci_low > truth:
            out["above"] += 1
        elif r.ci_high < truth:
            out["below"] += 1
        else:
            out["covered"] += 1
    out["error"] /= studies
    return out
