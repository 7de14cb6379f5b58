"""The counts behind every ChoiceEval number, for one scope (a model x topic, or one
cluster of it).

Every metric of `metrics.py` is a function of these counts, so they can come from two
places: `scope_counts` counts them from `ResponseList`s (the plain definition, what the
tests hold everything to), and `arrays.py` counts them with numpy from a study's lists
held as arrays (a million mentions in a fraction of a second).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain

import numpy as np

from workbench.metrics.clustered import Questions, SlotRows

US_NAMES = {"united states", "united states of america", "usa", "us", "u s", "u s a", "america", "the united states"}


def finite(value: float | None) -> float | None:
    """JSON has no NaN: undefined numbers are reported as null."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class ResponseList:
    model: str
    topic: str
    cluster: str | None
    question: str
    repetition: int
    entities: tuple[str, ...]  # ranked, canonical names, unique
    # Every recommendation slot's canonical name, repeats kept: after normalisation one
    # answer can name a brand twice ("Nike Pegasus", "Nike Vomero"); the paper's log-odds
    # count both slots. Empty: the same as `entities`.
    slots: tuple[str, ...] = ()

    @property
    def slot_entities(self) -> tuple[str, ...]:
        return self.slots or self.entities


@dataclass(frozen=True)
class ScopeCounts:
    n: int  # answers
    presence: Counter[str]  # answers naming each entity (once per answer)
    per_rep: dict[int, Counter[str]]  # the same per repetition (every repetition of the scope)
    slots: Counter[str]  # recommendation slots per entity, repeats within an answer kept
    with_entities: int  # answers naming at least one entity
    rank_sums: Counter[str]  # each entity's rank in the de-duplicated lists, summed over answers
    with_us: int  # answers naming the United States (any spelling)
    us_in_top3: int  # answers naming it in their first three
    # the same per question (all its repetitions together), for intervals over questions
    questions: Questions | None = field(default=None, compare=False)


@lru_cache(maxsize=65536)
def is_united_states(entity: str) -> bool:
    from workbench.asking.extract import normalize_surface

    return normalize_surface(entity) in US_NAMES


def presence_of(lists: Sequence[ResponseList]) -> Counter[str]:
    """Responses naming each entity (entities are unique within a list)."""
    return Counter(chain.from_iterable(item.entities for item in lists))


def slots_of(lists: Sequence[ResponseList]) -> Counter[str]:
    """Recommendation slots per entity, repeats within an answer counted (the paper's unit)."""
    return Counter(chain.from_iterable(item.slot_entities for item in lists))


def scope_counts(lists: Sequence[ResponseList]) -> ScopeCounts:
    """The counts of one scope, from its lists: the definition."""
    by_rep: dict[int, list[ResponseList]] = {}
    for item in lists:
        by_rep.setdefault(item.repetition, []).append(item)
    rank_sums: Counter[str] = Counter()
    with_us = us_in_top3 = 0
    for item in lists:
        for rank, entity in enumerate(item.entities, start=1):
            rank_sums[entity] += rank
        us_ranks = [rank for rank, entity in enumerate(item.entities, start=1) if is_united_states(entity)]
        with_us += bool(us_ranks)
        us_in_top3 += bool(us_ranks) and us_ranks[0] <= 3
    return ScopeCounts(
        n=len(lists),
        presence=presence_of(lists),
        per_rep={rep: presence_of(items) for rep, items in by_rep.items()},
        slots=slots_of(lists),
        with_entities=sum(1 for item in lists if item.entities),
        rank_sums=rank_sums,
        with_us=with_us,
        us_in_top3=us_in_top3,
        questions=questions_of(lists),
    )


def questions_of(lists: Sequence[ResponseList]) -> Questions:
    """A scope's questions (a wording in a cluster), their strata in the order of the names."""
    by_question: dict[tuple[str, str], list[ResponseList]] = {}
    for item in lists:
        by_question.setdefault((item.cluster or "", item.question), []).append(item)
    names = sorted({cluster for cluster, _ in by_question})
    keys = list(by_question)
    presence = [presence_of(by_question[key]) for key in keys]
    return Questions(
        stratum=np.array([names.index(cluster) for cluster, _ in keys], dtype=np.int64),
        names=names,
        n=np.array([len(by_question[key]) for key in keys], dtype=np.int64),
        named=np.array([sum(1 for item in by_question[key] if item.entities) for key in keys], dtype=np.int64),
        naming=lambda entity: np.array([counted[entity] for counted in presence], dtype=np.int64),
        us_top3=np.array([sum(map(_us_in_top3, by_question[key])) for key in keys], dtype=np.int64),
        slots=lambda: slot_rows_of(lists, {key: row for row, key in enumerate(keys)}),
    )


def slot_rows_of(lists: Sequence[ResponseList], row_of: dict[tuple[str, str], int]) -> SlotRows:
    """Every slot of these lists (repeats kept): its question's row, its answer's row, its entity."""
    names = sorted({entity for item in lists for entity in item.slot_entities})
    code = {name: i for i, name in enumerate(names)}
    rows = [
        (row_of[(item.cluster or "", item.question)], answer, code[entity])
        for answer, item in enumerate(lists)
        for entity in item.slot_entities
    ]
    question, answer, entity = (
        (np.asarray(column, dtype=np.int64) for column in zip(*rows)) if rows else [np.zeros(0, np.int64)] * 3
    )
    return SlotRows(question, answer, entity, names, len(lists))


def _us_in_top3(item: ResponseList) -> bool:
    return any(is_united_states(entity) for entity in item.entities[:3])


@dataclass(frozen=True)
class RegionSlots:
    """Per cluster, the recommendation slots each answer gives each region (answers x
    regions), after the 5 % entity filter: the one table behind every log-odds of a
    topic, its point estimate and its bootstrap alike."""

    regions: list[str]
    per_group: dict[str, np.ndarray]
    # per cluster, each answer's question (0, 1, ...): the rows an interval over questions sums
    questions: dict[str, np.ndarray] = field(default_factory=dict)

    def by_question(self, group: str, rows: np.ndarray) -> np.ndarray:
        """A cluster's rows (one per answer) summed per question."""
        question = self.questions[group]
        out = np.zeros((int(question.max()) + 1 if question.size else 0, rows.shape[1]))
        np.add.at(out, question, rows)
        return out

    def column(self, matrix: np.ndarray, region: str, other: str) -> np.ndarray:
        """Slots of `region` per answer; "non-US" is every known region but `other`."""
        if region == NON_US:
            drop = {other, "Unknown"}
            return matrix[:, [i for i, r in enumerate(self.regions) if r not in drop]].sum(axis=1)
        if region not in self.regions:
            return np.zeros(matrix.shape[0])
        return matrix[:, self.regions.index(region)]


NON_US = "non-US"  # every region but the United States (entities without a region not counted)


def kept_regions(
    presence: Counter[str], n: int, region_of: Callable[[str], str | None], min_share: float
) -> tuple[list[str], dict[str, int]]:
    """The 5 % filter (entities in at least `min_share` of the answers) and the region
    code of each entity kept, regions numbered in the order of the sorted names."""
    threshold = min_share * n
    code: dict[str, int] = {}
    regions: list[str] = []
    for entity in sorted(e for e, count in presence.items() if count >= threshold):
        region = region_of(entity) or "Unknown"
        if region not in regions:
            regions.append(region)
        code[entity] = regions.index(region)
    return regions, code


def region_slots(
    lists: Sequence[ResponseList], region_of: Callable[[str], str | None], min_share: float = 0.05
) -> RegionSlots:
    regions, code = kept_regions(presence_of(lists), len(lists), region_of, min_share)
    by_group: dict[str, list[ResponseList]] = {}
    for item in lists:
        by_group.setdefault(item.cluster or "", []).append(item)
    per_group, questions = {}, {}
    for group, items in sorted(by_group.items()):
        answer = [i for i, item in enumerate(items) for e in item.slot_entities if e in code]
        region = [code[e] for item in items for e in item.slot_entities if e in code]
        matrix = np.zeros((len(items), max(len(regions), 1)))
        np.add.at(matrix, (np.asarray(answer, dtype=int), np.asarray(region, dtype=int)), 1)
        per_group[group] = matrix
        number: dict[str, int] = {}
        questions[group] = np.array([number.setdefault(item.question, len(number)) for item in items], np.int64)
    return RegionSlots(regions, per_group, questions)


@dataclass(frozen=True)
class TopicCounts:
    """One model x topic: the counts of the topic (key None) and of each named cluster,
    in the order the records list them, and its region-slot table on demand."""

    scopes: dict[str | None, ScopeCounts]
    region_slots: Callable[[Callable[[str], str | None], float], RegionSlots]


def topic_counts(items: Sequence[ResponseList]) -> TopicCounts:
    clusters: dict[str, list[ResponseList]] = {}
    for item in items:
        clusters.setdefault(item.cluster or "", []).append(item)
    scopes = {None: scope_counts(items)}
    scopes.update({c: scope_counts(sub) for c, sub in sorted(clusters.items()) if c})
    return TopicCounts(scopes, lambda region_of, min_share: region_slots(items, region_of, min_share))
