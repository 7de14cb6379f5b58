"""ChoiceEval metrics (docs/methods.md §1): pure functions, rows in, numbers out.

A *response list* is the ranked top-K of one answer (question x repetition),
after extraction and voting, with canonical entity names. Every function takes
a sequence of them for one model x topic (or one cluster of it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain, combinations
from typing import Any

import numpy as np

from workbench.metrics.intervals import adjust, interval_fields, mean_ci

US_NAMES = {"united states", "united states of america", "usa", "us", "u s", "u s a", "america", "the united states"}


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


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: undefined numbers are reported as null."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


# -- preference ----------------------------------------------------------------


def preferred_entity(
    lists: Sequence[ResponseList], presence: Counter[str] | None = None
) -> tuple[str | None, float | None, int]:
    """e* = the entity in the most responses' top-K (Eq. 5); PEIR = that share (Eq. 6).

    Ties go to the entity with the better mean rank, then the name. Returns
    (entity, PEIR, number of responses); (None, None, n) when nothing was recommended.
    `presence`: `_presence(lists)` when the caller has it already.
    """
    n = len(lists)
    presence = _presence(lists) if presence is None else presence
    if not presence:
        return None, None, n
    top = max(presence.values())
    tied = {e for e, count in presence.items() if count == top}
    rank_sum: Counter[str] = Counter()
    if len(tied) > 1:  # rank sums only where they decide something (large stores)
        for item in lists:
            for rank, entity in enumerate(item.entities, start=1):
                if entity in tied:
                    rank_sum[entity] += rank
    best = min(tied, key=lambda e: (rank_sum[e], e))
    return best, top / n, n


def _presence(lists: Sequence[ResponseList]) -> Counter[str]:
    """Responses naming each entity (entities are unique within a list)."""
    return Counter(chain.from_iterable(item.entities for item in lists))


def direct_recommendation_rate(lists: Sequence[ResponseList]) -> float | None:
    """Share of responses whose experts agreed on at least one recommendation."""
    if not lists:
        return None
    return sum(1 for item in lists if item.entities) / len(lists)


# -- stability across repetitions ---------------------------------------------


@dataclass(frozen=True)
class Stability:
    entities: list[str]  # the top-N pooled entities
    counts: dict[int, list[int]]  # repetition -> counts of those entities
    spearman: list[tuple[int, int, float | None, float | None]]  # (rep a, rep b, rho, p), a > b
    kruskal: tuple[float | None, float | None]  # (H, p)


def stability(
    lists: Sequence[ResponseList], top_n: int = 10, per_rep: dict[int, Counter[str]] | None = None
) -> Stability:
    """Spearman's rho for every pair of repetitions and Kruskal–Wallis across them,
    over the counts of the N most frequent entities pooled over all repetitions.
    `per_rep`: the presence counts per repetition, when the caller has them already."""
    if per_rep is None:
        by_rep: dict[int, list[ResponseList]] = {}
        for item in lists:
            by_rep.setdefault(item.repetition, []).append(item)
        per_rep = {rep: _presence(items) for rep, items in by_rep.items()}
    pooled: Counter[str] = sum(per_rep.values(), Counter())
    top = [e for e, _ in sorted(pooled.items(), key=lambda kv: (-kv[1], kv[0]))[:top_n]]
    reps = sorted(per_rep)
    counts = {r: [per_rep[r][e] for e in top] for r in reps}
    pairs = []
    for a, b in combinations(reps, 2):
        rho, p = _spearman(counts[b], counts[a])
        pairs.append((b, a, rho, p))
    return Stability(top, counts, pairs, _kruskal([counts[r] for r in reps]))


def _spearman(x: list[int], y: list[int]) -> tuple[float | None, float | None]:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None, None  # undefined for constant or tiny vectors
    from scipy import stats  # imported on use: it costs ~0.5 s at start-up

    result = stats.spearmanr(x, y)
    return _finite(result.statistic), _finite(result.pvalue)


def _kruskal(samples: list[list[int]]) -> tuple[float | None, float | None]:
    usable = [s for s in samples if s]
    if len(usable) < 2 or len({v for s in usable for v in s}) < 2:
        return None, None
    from scipy import stats

    result = stats.kruskal(*usable)
    return _finite(result.statistic), _finite(result.pvalue)


# -- geographic bias ---------------------------------------------------------


@dataclass(frozen=True)
class LogOddsRatio:
    per_group: dict[str, float]  # group -> LOR_g(a, b)
    mean: float | None
    exp_mean: float | None
    t: float | None
    p: float | None
    ci: tuple[float | None, float | None] = (None, None)  # bootstrap interval of the mean
    slots: tuple[int, int] = (0, 0)  # slots of region a and of region b over all clusters
    group_slots: dict[str, tuple[int, int]] = field(default_factory=dict)  # the same per group

    @property
    def n_groups(self) -> int:
        return len(self.per_group)


def frequent_entities(lists: Sequence[ResponseList], min_share: float = 0.05) -> set[str]:
    """Entities present in at least `min_share` of the responses (the 5% filter)."""
    presence = _presence(lists)
    threshold = min_share * len(lists)
    return {e for e, n in presence.items() if n >= threshold}


def log_odds_ratio(n_a: float, n_b: float, alpha: float = 0.5) -> float:
    """LOR = ln((n_a + α) / (n_b + α)), Haldane–Anscombe smoothing."""
    return math.log((n_a + alpha) / (n_b + alpha))


@dataclass(frozen=True)
class RegionSlots:
    """Per cluster, the recommendation slots each answer gives each region (answers x
    regions), after the 5 % entity filter: the one table behind every log-odds of a
    topic, its point estimate and its bootstrap alike."""

    regions: list[str]
    per_group: dict[str, np.ndarray]

    def column(self, matrix: np.ndarray, region: str, other: str) -> np.ndarray:
        """Slots of `region` per answer; "non-US" is every known region but `other`."""
        if region == NON_US:
            drop = {other, "Unknown"}
            return matrix[:, [i for i, r in enumerate(self.regions) if r not in drop]].sum(axis=1)
        if region not in self.regions:
            return np.zeros(matrix.shape[0])
        return matrix[:, self.regions.index(region)]


def region_slots(
    lists: Sequence[ResponseList], region_of: Callable[[str], str | None], min_share: float = 0.05
) -> RegionSlots:
    keep = frequent_entities(lists, min_share)
    code: dict[str, int] = {}
    regions: list[str] = []
    for entity in sorted(keep):
        region = region_of(entity) or "Unknown"
        if region not in regions:
            regions.append(region)
        code[entity] = regions.index(region)
    by_group: dict[str, list[ResponseList]] = {}
    for item in lists:
        by_group.setdefault(item.cluster or "", []).append(item)
    per_group = {}
    for group, items in sorted(by_group.items()):
        answer = [i for i, item in enumerate(items) for e in item.slot_entities if e in code]
        region = [code[e] for item in items for e in item.slot_entities if e in code]
        matrix = np.zeros((len(items), max(len(regions), 1)))
        np.add.at(matrix, (np.asarray(answer, dtype=int), np.asarray(region, dtype=int)), 1)
        per_group[group] = matrix
    return RegionSlots(regions, per_group)


def geographic_lor(
    lists: Sequence[ResponseList],
    region_of: Callable[[str], str | None],
    region_a: str,
    region_b: str,
    min_share: float = 0.05,
    alpha: float = 0.5,
    slots: RegionSlots | None = None,
) -> LogOddsRatio:
    """Per-group LOR of top-K slots held by region a vs region b, their mean,
    exp(mean), a one-sample t-test of the group values against 0, and a bootstrap
    interval of the mean (each cluster's answers resampled within it). `slots`: the
    topic's RegionSlots, when several region pairs share them."""
    slots = slots or region_slots(lists, region_of, min_share)
    if not slots.per_group:
        return LogOddsRatio({}, None, None, None, None)
    pairs = {
        g: np.column_stack([slots.column(m, region_a, region_b), slots.column(m, region_b, region_a)])
        for g, m in slots.per_group.items()
    }
    totals = {g: pair.sum(axis=0) for g, pair in pairs.items()}
    per_group = {g: log_odds_ratio(t[0], t[1], alpha) for g, t in totals.items()}
    values = np.array(list(per_group.values()), dtype=float)
    held = tuple(int(v) for v in np.sum(list(totals.values()), axis=0))

    def mean_lor(sums: list[np.ndarray]) -> np.ndarray:
        return np.mean([np.log((x[:, 0] + alpha) / (x[:, 1] + alpha)) for x in sums], axis=0)

    from workbench.metrics.intervals import stratified_ci

    ci = stratified_ci(list(pairs.values()), mean_lor)
    mean = float(values.mean())
    t = p = None
    if len(values) >= 2 and np.ptp(values) > 0:
        from scipy import stats

        result = stats.ttest_1samp(values, 0.0)
        t, p = _finite(result.statistic), _finite(result.pvalue)
    group_slots = {g: (int(t[0]), int(t[1])) for g, t in totals.items()}
    return LogOddsRatio(per_group, mean, math.exp(mean), t, p, ci, held, group_slots)


NON_US = "non-US"  # every region but the United States (entities without a region not counted)


def _slots(lists: Sequence[ResponseList]) -> Counter[str]:
    """Recommendation slots per entity, repeats within an answer counted (the paper's unit)."""
    return Counter(chain.from_iterable(item.slot_entities for item in lists))


def region_shares(
    lists: Sequence[ResponseList], region_of: Callable[[str], str | None], slots: Counter[str] | None = None
) -> dict[str, float]:
    """Share of all top-K slots held by each region (entities without one: Unknown)."""
    regions: Counter[str] = Counter()
    for entity, count in (_slots(lists) if slots is None else slots).items():
        regions[region_of(entity) or "Unknown"] += count
    total = sum(regions.values())
    return {region: count / total for region, count in sorted(regions.items())} if total else {}


# -- country-level topics -------------------------------------------------------


@lru_cache(maxsize=65536)
def is_united_states(entity: str) -> bool:
    from workbench.extract import normalize_surface

    return normalize_surface(entity) in US_NAMES


def us_top3(
    lists: Sequence[ResponseList], per_entity: Counter[str] | None = None
) -> tuple[float | None, int | None] | None:
    """Share of responses with the United States in the top 3, and the US's rank
    among all entities by the number of responses naming it (its spellings —
    USA, United States, ... — count as one); None when the topic never names the US."""
    if not lists:
        return None
    us_key = "\x00United States"  # cannot collide with a real entity name
    per_entity = _presence(lists) if per_entity is None else per_entity
    us_forms = {e for e in per_entity if is_united_states(e)}
    if not us_forms:
        return None
    presence = Counter({e: c for e, c in per_entity.items() if e not in us_forms})
    presence[us_key] = sum(1 for item in lists if us_forms.intersection(item.entities))
    in_top3 = sum(1 for item in lists if us_forms.intersection(item.entities[:3]))
    ranking = sorted(presence.items(), key=lambda kv: (-kv[1], kv[0]))
    rank = next(i for i, (e, _) in enumerate(ranking, start=1) if e == us_key)
    return in_top3 / len(lists), rank


# -- all of them, as flat records -------------------------------------------


DEFAULT_REGION_PAIRS = (("United States", "Europe"), ("United States", "Asia"), ("United States", NON_US))


def _scope_counts(
    clusters: dict[str, list[ResponseList]],
) -> dict[str | None, tuple[dict[int, Counter[str]], Counter[str], Counter[str]]]:
    """Presence per repetition, presence and slot counts for each cluster and (key None)
    the whole topic, from one pass over the lists: the topic's counts are the sums of its
    clusters' (on a large store, counting every scope afresh dominated the time)."""
    out: dict[str | None, tuple[dict[int, Counter[str]], Counter[str], Counter[str]]] = {}
    topic_rep: dict[int, Counter[str]] = {}
    topic_presence: Counter[str] = Counter()
    topic_slots: Counter[str] = Counter()
    for cluster, lists in clusters.items():
        by_rep: dict[int, list[ResponseList]] = {}
        for item in lists:
            by_rep.setdefault(item.repetition, []).append(item)
        per_rep = {rep: _presence(items) for rep, items in by_rep.items()}
        presence = sum(per_rep.values(), Counter())
        slots = _slots(lists)
        if cluster:
            out[cluster] = (per_rep, presence, slots)
        for rep, counts in per_rep.items():
            topic_rep.setdefault(rep, Counter()).update(counts)
        topic_presence.update(presence)
        topic_slots.update(slots)
    out[None] = (topic_rep, topic_presence, topic_slots)
    return out


def choice_metric_records(
    study: str,
    lists: Iterable[ResponseList],
    region_of: Callable[[str], str | None],
    region_pairs: Sequence[tuple[str, str]] = DEFAULT_REGION_PAIRS,
    top_n: int = 10,
    min_share: float = 0.05,
    list_part: dict[tuple[str, str], Any] | None = None,
) -> list[dict[str, Any]]:
    """Every ChoiceEval metric per model x topic and per cluster, as flat records
    (the `workbench metrics --format json` contract).

    `list_part`: a dict the caller keeps while the lists stay the same; the numbers that
    depend on the lists alone (PEIR, stability, ...) are kept there and reused, and only
    those that depend on regions are computed again."""
    groups: dict[tuple[str, str], list[ResponseList]] = {}
    for item in lists:
        groups.setdefault((item.model, item.topic), []).append(item)
    records: list[dict[str, Any]] = []
    for (model, topic), items in sorted(groups.items()):
        clusters: dict[str, list[ResponseList]] = {}
        for item in items:
            clusters.setdefault(item.cluster or "", []).append(item)
        scopes = [(None, items)] + [(c or None, sub) for c, sub in sorted(clusters.items()) if c]
        kept = list_part.get((model, topic)) if list_part is not None else None
        if kept is None:
            counted = _scope_counts(clusters)
            kept = (counted, _list_records(study, model, topic, scopes, counted, top_n))
            if list_part is not None:
                list_part[(model, topic)] = kept
        counted, list_records = kept
        records += [dict(r) for r in list_records]  # copies: a caller may add to a record
        records += _region_records(study, model, topic, items, scopes, counted, region_of, region_pairs, min_share)
    # One family of t-tests per model: every topic x region pair.
    adjust([r for r in records if r["metric"] == "lor" and r.get("cluster") is None], ("study", "model"))
    return records


def _list_records(study, model, topic, scopes, counted, top_n) -> list[dict[str, Any]]:
    """The numbers of one model x topic that depend on the lists alone."""
    records: list[dict[str, Any]] = []
    for cluster, scope in scopes:
        base = {"study": study, "model": model, "topic": topic, "cluster": cluster}
        per_rep, presence, slot_counts = counted[cluster]
        entity, peir, n = preferred_entity(scope, presence)
        low, high = mean_ci([entity in item.entities for item in scope]) if entity else (None, None)
        records.append(
            {
                **base,
                "metric": "peir",
                "entity": entity,
                "value": _finite(peir),
                "n": n,
                **interval_fields(low, high),
            }
        )
        records.append(
            {
                **base,
                "metric": "direct_recommendation_rate",
                "value": _finite(direct_recommendation_rate(scope)),
                "n": n,
            }
        )
        stab = stability(scope, top_n, per_rep)
        for rep_a, rep_b, rho, p in stab.spearman:
            records.append(
                {
                    **base,
                    "metric": "spearman",
                    "repetition_a": rep_a,
                    "repetition_b": rep_b,
                    "value": rho,
                    "p": p,
                    "n": len(stab.entities),
                }
            )
        if len(stab.counts) >= 2:
            h, p = stab.kruskal
            records.append({**base, "metric": "kruskal_wallis", "statistic": h, "p": p, "n": len(stab.counts)})
        us = us_top3(scope, presence)
        if us is not None:
            records.append({**base, "metric": "us_top3_share", "value": _finite(us[0]), "rank": us[1], "n": n})
    return records


def _region_records(
    study, model, topic, items, scopes, counted, region_of, region_pairs, min_share
) -> list[dict[str, Any]]:
    """The numbers of one model x topic that depend on the regions too (shares, log-odds)."""
    records: list[dict[str, Any]] = []
    for cluster, scope in scopes:  # the topic, then each cluster
        for region, share in region_shares(scope, region_of, counted[cluster][2]).items():
            records.append(
                {
                    "study": study,
                    "model": model,
                    "topic": topic,
                    "cluster": cluster,
                    "metric": "region_share",
                    "region": region,
                    "value": share,
                }
            )
    slots = region_slots(items, region_of, min_share)  # one table for every region pair
    for region_a, region_b in region_pairs:
        lor = geographic_lor(items, region_of, region_a, region_b, min_share, slots=slots)
        base = {"study": study, "model": model, "topic": topic, "region_a": region_a, "region_b": region_b}
        records.append(
            {
                **base,
                "metric": "lor",
                "cluster": None,
                "mean": _finite(lor.mean),
                "exp_mean": _finite(lor.exp_mean),
                "t": lor.t,
                "p": lor.p,
                "n_groups": lor.n_groups,
                "slots_a": lor.slots[0],
                "slots_b": lor.slots[1],
                **interval_fields(*lor.ci),
            }
        )
        for group, value in lor.per_group.items():
            if group:
                held_a, held_b = lor.group_slots.get(group, (None, None))
                records.append(
                    {
                        **base,
                        "metric": "lor",
                        "cluster": group,
                        "value": _finite(value),
                        "slots_a": held_a,
                        "slots_b": held_b,
                    }
                )
    return records
