"""Simulated ChoiceEval studies with a known population value, for the coverage tests of the
intervals over questions (tests/statistics/test_interval_coverage.py, tests/statistics/test_region_share_coverage.py,
tests/statistics/test_small_cluster_coverage.py) and bench/bench_question_coverage.py.

Two populations of questions, each question with its own chance, its answers drawn on their
own given it (intra-question correlation about 1/3):

- *named*: an answer names anything with the question's chance (Beta(0.9, 0.6): mean 0.6,
  ICC 0.40) and, when it does, Nike with another (Beta(0.75, 0.75): mean 0.5), else one of
  four other brands: PEIR (Nike's share of answers) 0.30, the direct rate 0.60;
- *slotted*: three slots per answer, each a US brand with the question's chance (Beta(0.8,
  1.2): mean 0.40, ICC 1/3), else a European one: the US share of slots 0.40.

With `heterogeneous=False` every question has the mean chance (independent answers). The
numbers go through what `workbench metrics` and `workbench compare` use (the arrays' counts,
`share_fields`, `region_share_records`, `geographic_lor`, `paired_lists`).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.methods.choice.arrays import ListArrays, topic_counts
from workbench.methods.choice.counts import ResponseList
from workbench.methods.choice.logodds import geographic_lor
from workbench.methods.choice.paired import paired_lists
from workbench.methods.choice.region_share import region_share_records
from workbench.metrics import clustered

OTHERS = ("Brand A", "Brand B", "Brand C", "Brand D")
NAMED = ["Nike", *OTHERS]
PEIR, DIRECT = 0.6 * 0.5, 0.6
# Beta(a, b) has mean a / (a + b) and intra-question correlation 1 / (a + b + 1)
NAMED_ANY, NAMES_NIKE = (0.9, 0.6), (0.75, 0.75)

US, EU = ("Nike", "Brooks", "Hoka"), ("Adidas", "Puma", "On")
SLOTTED = [*US, *EU]
REGION = {**dict.fromkeys(US, "United States"), **dict.fromkeys(EU, "Europe")}
SHARE, BETA, SLOTS = 0.40, (0.8, 1.2), 3
PAIR = ("United States", "Europe")
BASE = {"convention": "paper", "study": "s", "model": "m", "topic": "shoes", "cluster": None}


def lor_truth(questions: int, repetitions: int, share: float = SHARE) -> float:
    """The log-odds' population value: ln((E[US slots] + 0.5) / (E[European slots] + 0.5)) of
    a cluster of the design (what the smoothed log-odds is of the expected counts)."""
    slots = questions * repetitions * SLOTS
    return math.log((slots * share + 0.5) / (slots * (1 - share) + 0.5))


def named_lists(rng, clusters: int, questions: int, repetitions: int, heterogeneous: bool = True) -> ListArrays:
    """One study's lists as the store's rows would load them (id, model, topic, cluster,
    repetition, question) and their mentions (list id, rank, surface): one slot each."""
    n_questions = clusters * questions
    if heterogeneous:
        named_any, nike = rng.beta(*NAMED_ANY, n_questions), rng.beta(*NAMES_NIKE, n_questions)
    else:
        named_any, nike = np.full(n_questions, DIRECT), np.full(n_questions, PEIR / DIRECT)
    question = np.repeat(np.arange(n_questions), repetitions)
    names_any = rng.random(question.size) < named_any[question]
    names_nike = names_any & (rng.random(question.size) < nike[question])
    other = rng.integers(0, len(OTHERS), question.size)
    lists, mentions = [], []
    for i, q in enumerate(question.tolist()):
        cluster = f"Cluster {q // questions}"
        lists.append((i + 1, "m", "shoes", cluster, i % repetitions + 1, f"question {q}"))
        if names_any[i]:
            mentions.append((i + 1, 1, "nike" if names_nike[i] else OTHERS[other[i]].lower()))
    arrays = ListArrays()
    arrays.replace((), lists, mentions)
    return arrays


def slotted_lists(rng, clusters: int, questions: int, repetitions: int, heterogeneous: bool = True) -> ListArrays:
    """One study's lists and mentions: SLOTS slots per answer, US or European brands."""
    n_questions = clusters * questions
    chance = rng.beta(*BETA, n_questions) if heterogeneous else np.full(n_questions, SHARE)
    question = np.repeat(np.arange(n_questions), repetitions)
    us = rng.random((question.size, SLOTS)) < chance[question][:, None]
    brand = rng.integers(0, 3, (question.size, SLOTS))
    lists, mentions = [], []
    for i, q in enumerate(question.tolist()):
        lists.append((i + 1, "m", "shoes", f"Cluster {q // questions}", i % repetitions + 1, f"question {q}"))
        for slot in range(SLOTS):
            name = (US if us[i, slot] else EU)[brand[i, slot]]
            mentions.append((i + 1, slot + 1, name.lower()))
    arrays = ListArrays()
    arrays.replace((), lists, mentions)
    return arrays


def slotted_unbalanced(rng, sizes: list[int], repetitions: int) -> tuple[ListArrays, float]:
    """One study's lists of the slotted population with `sizes[c]` questions in cluster c, and
    its log-odds' population value: the mean over clusters of each one's `lor_truth` (a
    cluster's smoothed log-odds of its expected slots depends on how many questions it has)."""
    stratum = np.repeat(np.arange(len(sizes)), sizes)
    chance = rng.beta(*BETA, stratum.size)
    question = np.repeat(np.arange(stratum.size), repetitions)
    us = rng.random((question.size, SLOTS)) < chance[question][:, None]
    brand = rng.integers(0, 3, (question.size, SLOTS))
    lists, mentions = [], []
    for i, q in enumerate(question.tolist()):
        lists.append((i + 1, "m", "shoes", f"Cluster {stratum[q]}", i % repetitions + 1, f"question {q}"))
        for slot in range(SLOTS):
            mentions.append((i + 1, slot + 1, (US if us[i, slot] else EU)[brand[i, slot]].lower()))
    arrays = ListArrays()
    arrays.replace((), lists, mentions)
    return arrays, float(np.mean([lor_truth(k, repetitions) for k in sizes]))


def counted(arrays: ListArrays, names: list[str]):
    """The topic's counts, as `workbench metrics` makes them."""
    surface_entity = np.asarray([[n.lower() for n in names].index(s) for s in arrays.surfaces], dtype=np.int64)
    return topic_counts(arrays, surface_entity, names)["m", "shoes"]


def shares_of_named(arrays: ListArrays) -> tuple[tuple, tuple]:
    """(PEIR's entity, value, low, high), (direct rate's value, low, high): the topic's."""
    scope = counted(arrays, NAMED).scopes[None]
    questions = scope.questions
    peir = clustered.share_fields(questions.naming("Nike"), questions)
    direct = clustered.share_fields(questions.named, questions)
    return (
        (scope.presence.most_common(1)[0][0], scope.presence["Nike"] / scope.n, peir["ci_low"], peir["ci_high"]),
        (scope.with_entities / scope.n, direct["ci_low"], direct["ci_high"]),
    )


def us_share(arrays: ListArrays):
    """The topic's record of the United States' share of slots."""
    records = region_share_records(BASE, counted(arrays, SLOTTED).scopes[None], REGION.get)
    return next(r for r in records if r.region == "United States")


def log_odds(arrays: ListArrays):
    """The topic's log-odds of US against European slots (paper convention)."""
    slots = counted(arrays, SLOTTED).region_slots(REGION.get, 0.05)
    return geographic_lor([], REGION.get, *PAIR, 0.05, slots=slots)


def two_models(rng, clusters: int, questions: int, repetitions: int, slotted: bool) -> list[ResponseList]:
    """Models A and B answering the same questions. Named: Nike with the question's chance
    (Beta, mean 0.3, ICC 0.33), B's p + 0.15 (1 - p), and Puma with 0.1 on its own (PEIR's
    difference 0.105, the direct rate's 0.0945). Slotted: three slots, US with the question's
    chance (Beta(0.8, 1.2)), B's p + 0.15 (1 - p) (the US share's difference 0.09)."""
    n_questions = clusters * questions
    if slotted:
        chances_a = rng.beta(*BETA, n_questions)
    else:
        total = 1 / 0.33 - 1
        chances_a = rng.beta(0.3 * total, 0.7 * total, n_questions)
    lists = []
    for model, chances in (("A", chances_a), ("B", chances_a + 0.15 * (1 - chances_a))):
        for q, chance in enumerate(chances):
            for rep in range(1, repetitions + 1):
                if slotted:
                    us, brand = rng.random(SLOTS) < chance, rng.integers(0, 3, SLOTS)
                    names = tuple((US if u else EU)[b] for u, b in zip(us, brand))
                    entities = tuple(dict.fromkeys(names))
                else:
                    names = ()
                    entities = (("Nike",) if rng.random() < chance else ()) + (("Puma",) if rng.random() < 0.1 else ())
                lists.append(ResponseList(model, "shoes", f"c{q % clusters}", f"q{q}", rep, entities, names))
    return lists


def compared(lists: list[ResponseList], slotted: bool) -> dict[str, dict]:
    """`workbench compare`'s records of these lists by metric (region shares: the US one)."""
    if not slotted:
        records = paired_lists("s", lists, "A", "B")
        return {r["metric"]: r for r in records if r["metric"] in ("peir", "direct_recommendation_rate")}
    records = paired_lists("s", lists, "A", "B", REGION.get, [PAIR])
    out = {r["metric"]: r for r in records if r["metric"] == "log_odds"}
    out["region_share"] = next(r for r in records if r.get("region") == "United States")
    return out


def difference_truths(questions: int, repetitions: int) -> dict[str, float]:
    """B - A in the population, per metric of `compared`."""
    lor = lor_truth(questions, repetitions, SHARE + 0.15 * (1 - SHARE)) - lor_truth(questions, repetitions)
    return {
        "peir": 0.105,
        "direct_recommendation_rate": 0.9 * 0.105,
        "region_share": 0.15 * (1 - SHARE),
        "log_odds": lor,
    }
