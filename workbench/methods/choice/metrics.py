"""ChoiceEval metrics (docs/methods.md §1): pure functions, rows in, numbers out.

A *response list* is the ranked top-K of one answer (question x repetition),
after extraction and voting, with canonical entity names. Every function takes
a sequence of them for one model x topic (or one cluster of it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from workbench.display import na_reasons
from workbench.methods.choice.counts import (  # noqa: F401 (re-exported: the metrics' vocabulary)
    NON_US,
    US_NAMES,
    RegionSlots,
    ResponseList,
    ScopeCounts,
    TopicCounts,
    is_united_states,
    kept_regions,
    presence_of,
    region_slots,
    scope_counts,
    slots_of,
    topic_counts,
)
from workbench.methods.choice.counts import finite as _finite
from workbench.methods.choice.logodds import (  # noqa: F401 (re-exported)
    LogOddsRatio,
    geographic_lor,
    log_odds_ratio,
    lor_records,
    no_region_reason,
)
from workbench.methods.choice.preferred import preferred_of as _preferred
from workbench.methods.choice.preferred import runner_up_fields
from workbench.methods.choice.records import (
    ChoiceRecord,
    DirectRecommendationRate,
    KruskalWallis,
    LorTopic,
    Peir,
    Spearman,
    UsTop3Share,
)
from workbench.methods.choice.region_share import region_share_records
from workbench.methods.choice.stability import stability
from workbench.metrics.clustered import answer_unit, share_fields
from workbench.metrics.intervals import interval_fields
from workbench.metrics.records import with_adjusted_p, with_convention
from workbench.metrics.threads import map_in_threads
from workbench.store.entities.regions import UNITED_STATES

# -- preference ----------------------------------------------------------------


def preferred_entity(
    lists: Sequence[ResponseList], presence: Counter[str] | None = None
) -> tuple[str | None, float | None, int]:
    """e* = the entity in the most responses' top-K (Eq. 5); PEIR = that share (Eq. 6).

    Ties go to the entity with the better mean rank, then the name. Returns
    (entity, PEIR, number of responses); (None, None, n) when nothing was recommended.
    `presence`: `presence_of(lists)` when the caller has it already.
    """
    presence = presence_of(lists) if presence is None else presence

    def rank_sums() -> Counter[str]:
        sums: Counter[str] = Counter()
        for item in lists:
            for rank, entity in enumerate(item.entities, start=1):
                sums[entity] += rank
        return sums

    return _preferred(presence, len(lists), rank_sums)


def _ties(presence: Counter[str], entity: str | None) -> dict[str, tuple[str, ...]]:
    """{"tied_with": the others named in as many answers as `entity`} where there are any."""
    if not entity:
        return {}
    others = tuple(sorted(e for e, count in presence.items() if count == presence[entity] and e != entity))
    return {"tied_with": others} if others else {}


def direct_recommendation_rate(lists: Sequence[ResponseList]) -> float | None:
    """Share of responses whose experts agreed on at least one recommendation."""
    if not lists:
        return None
    return sum(1 for item in lists if item.entities) / len(lists)


# -- stability across repetitions ---------------------------------------------


# -- geographic bias ---------------------------------------------------------


def frequent_entities(lists: Sequence[ResponseList], min_share: float = 0.05) -> set[str]:
    """Entities present in at least `min_share` of the responses (the 5% filter)."""
    presence = presence_of(lists)
    threshold = min_share * len(lists)
    return {e for e, n in presence.items() if n >= threshold}


def region_shares(
    lists: Sequence[ResponseList], region_of: Callable[[str], str | None], slots: Counter[str] | None = None
) -> dict[str, float]:
    """Share of all top-K slots held by each region (entities without one: Unknown)."""
    regions: Counter[str] = Counter()
    for entity, count in (slots_of(lists) if slots is None else slots).items():
        regions[region_of(entity) or "Unknown"] += count
    total = sum(regions.values())
    return {region: count / total for region, count in sorted(regions.items())} if total else {}


# -- country-level topics -------------------------------------------------------


def us_top3(
    lists: Sequence[ResponseList], per_entity: Counter[str] | None = None
) -> tuple[float | None, int | None] | None:
    """Share of responses with the United States in the top 3, and the US's rank
    among all entities by the number of responses naming it (its spellings —
    USA, United States, ... — count as one); None when the topic never names the US."""
    counts = scope_counts(lists)
    return _us_rank(counts.presence if per_entity is None else per_entity, counts)


def _us_rank(presence: Counter[str], counts: ScopeCounts) -> tuple[float | None, int | None] | None:
    if not counts.n or not counts.with_us:
        return None
    us_key = "\x00United States"  # cannot collide with a real entity name
    ranked = Counter({e: c for e, c in presence.items() if not is_united_states(e)})
    ranked[us_key] = counts.with_us
    ranking = sorted(ranked.items(), key=lambda kv: (-kv[1], kv[0]))
    rank = next(i for i, (e, _) in enumerate(ranking, start=1) if e == us_key)
    return counts.us_in_top3 / counts.n, rank


# -- all of them, as records -------------------------------------------------


# Regions are compared by name: the vocabulary's spelling (entities' regions are read in it).
DEFAULT_REGION_PAIRS = ((UNITED_STATES, "Europe"), (UNITED_STATES, "Asia"), (UNITED_STATES, NON_US))


def choice_metric_records(
    study: str,
    lists: Iterable[ResponseList],
    region_of: Callable[[str], str | None],
    region_pairs: Sequence[tuple[str, str]] = DEFAULT_REGION_PAIRS,
    top_n: int = 10,
    min_share: float = 0.05,
    convention: str = "paper",
    regions_imported: bool | None = None,
) -> list[ChoiceRecord]:
    """Every ChoiceEval metric per model x topic and per cluster, as typed records
    (`as_rows` gives the `workbench metrics --format json` contract), from response lists."""
    groups: dict[tuple[str, str], list[ResponseList]] = {}
    for item in lists:
        groups.setdefault((item.model, item.topic), []).append(item)
    topics = {key: topic_counts(items) for key, items in groups.items()}
    return records_of_counts(
        study,
        topics,
        region_of,
        region_pairs,
        top_n,
        min_share,
        convention=convention,
        regions_imported=regions_imported,
    )


def records_of_counts(
    study: str,
    topics: dict[tuple[str, str], TopicCounts],
    region_of: Callable[[str], str | None],
    *args: Any,
    **options: Any,
) -> list[ChoiceRecord]:
    """The records of every model x topic (in key order) from their counts, with the adjusted
    p-values of their families: `topic_records` (its options), then `adjusted_records`."""
    per_topic = topic_records(study, topics, region_of, *args, **options)
    return adjusted_records([r for key in sorted(per_topic) for r in per_topic[key]])


def topic_records(
    study: str,
    topics: dict[tuple[str, str], TopicCounts],
    region_of: Callable[[str], str | None],
    region_pairs: Sequence[tuple[str, str]] = DEFAULT_REGION_PAIRS,
    top_n: int = 10,
    min_share: float = 0.05,
    list_part: dict[tuple[str, str], Any] | None = None,
    convention: str = "paper",
    regions_imported: bool | None = None,
    region_part: dict[tuple, Any] | None = None,
    epochs: dict[tuple[str, str], int] | None = None,
) -> dict[tuple[str, str], list[ChoiceRecord]]:
    """The records of every model x topic from their counts, by model x topic, before the
    adjusted p-values (whose families span the topics: `adjusted_records` gives them once
    every topic is in).

    `list_part`: a dict the caller keeps while the lists and the names stay the same;
    the numbers that depend on them alone (PEIR, stability, ...) are kept there and
    reused, and only those that depend on regions are computed again. `region_part`: the
    same for each region pair's log-odds, kept by which of the pair's two sides each
    counted entity falls on, so that a region assigned recomputes only the pairs it moves
    (their bootstrap is most of the cost). Both are keyed by (model, topic, its epoch in
    `epochs`, ...): the caller moves a model x topic's epoch when its lists change. `convention`: see
    `geographic_lor`. `regions_imported`: whether the store holds any region at all (a
    region table may match none of the extracted names); None: whether any entity of
    these lists has one."""
    if regions_imported is None:
        regions_imported = any(region_of(e) for counted in topics.values() for e in counted.scopes[None].slots)
    ordered = sorted(topics.items())

    def epoch_of(model: str, topic: str) -> int:
        return (epochs or {}).get((model, topic), 0)

    def of_topic(item: tuple[tuple[str, str], TopicCounts]) -> list[ChoiceRecord]:
        (model, topic), counted = item
        epoch = epoch_of(model, topic)
        kept = list_part.get((model, topic, epoch)) if list_part is not None else None
        if kept is None:
            kept = _list_records(study, model, topic, counted.scopes, top_n, convention)
            if list_part is not None:
                list_part[(model, topic, epoch)] = kept
        # the numbers of the lists alone are the same in both conventions: kept once, named anew
        out = [with_convention(r, convention) for r in kept]
        return out + _region_records(
            study,
            (model, topic, epoch),
            counted,
            region_of,
            region_pairs,
            min_share,
            convention,
            regions_imported,
            region_part,
        )

    # The bootstraps (PEIR's, the direct rate's and the region shares' over questions: most of
    # the cost) are drawn on several cores at once.
    import scipy.special  # noqa: F401 (imported here once, not by each forked worker: 0.2 s each)

    return dict(zip((key for key, _counted in ordered), map_in_threads(of_topic, ordered)))


def adjusted_records(records: list[ChoiceRecord]) -> list[ChoiceRecord]:
    """The records with the adjusted p-values of their families (in place, and returned)."""
    # One family of t-tests per model: every topic x region pair.
    with_adjusted_p(records, lambda r: isinstance(r, LorTopic), ("study", "model"))
    # Kruskal-Wallis: one test per topic for a model, one per cluster for a model x topic.
    with_adjusted_p(records, lambda r: isinstance(r, KruskalWallis) and r.cluster is None, ("study", "model"))
    with_adjusted_p(
        records, lambda r: isinstance(r, KruskalWallis) and r.cluster is not None, ("study", "model", "topic")
    )
    return records


def _list_records(
    study, model, topic, scopes: dict[str | None, ScopeCounts], top_n, convention: str = "paper"
) -> list[ChoiceRecord]:
    """The numbers of one model x topic that depend on the lists alone."""
    records: list[ChoiceRecord] = []
    for cluster, counts in scopes.items():
        base = {"convention": convention, "study": study, "model": model, "topic": topic, "cluster": cluster}
        entity, peir, n = _preferred(counts.presence, counts.n, lambda c=counts: c.rank_sums)
        # the share of answers naming e*, its interval over questions (or answers: --ci-unit)
        questions = counts.questions
        if entity and questions is not None:
            interval = share_fields(questions.naming(entity), questions)
        else:
            interval = {"n_eff": None, "design_effect": None, **interval_fields(None, None, unit=answer_unit())}
        ties = _ties(counts.presence, entity)
        why = {} if entity else {"na_reason": na_reasons.shown("no-entity-named")}
        rival = runner_up_fields(counts.presence, n, entity, lambda c=counts: c.rank_sums, questions)
        records.append(Peir(**base, entity=entity, value=_finite(peir), n=n, **ties, **rival, **why, **interval))
        rate = _finite(counts.with_entities / n if n else None)
        interval = share_fields(questions.named, questions) if n and questions is not None else {}
        records.append(DirectRecommendationRate(**base, value=rate, n=n, **interval))
        stab = stability([], top_n, counts.per_rep, counts.presence)
        for rep_a, rep_b, rho, p in stab.spearman:
            why = {"na_reason": stab.spearman_na[rep_a, rep_b]} if (rep_a, rep_b) in stab.spearman_na else {}
            pair = {"repetition_a": rep_a, "repetition_b": rep_b}
            records.append(Spearman(**base, **pair, value=rho, p=p, n=len(stab.entities), **why))
        if len(stab.counts) >= 2:
            h, p = stab.kruskal
            why = {"p_na_reason": stab.kruskal_na} if stab.kruskal_na else {}  # no p this test could give < 0.05
            records.append(KruskalWallis(**base, statistic=h, p=p, n=len(stab.counts), **why))
        else:  # said, not left out: an empty stability table reads as if nothing were asked
            reason = "one repetition: stability needs two or more"
            records.append(KruskalWallis(**base, statistic=None, p=None, n=len(stab.counts), na_reason=reason))
        us = _us_rank(counts.presence, counts)
        if us is not None:
            top3 = questions.us_top3 if questions is not None else None
            interval = share_fields(top3, questions) if top3 is not None else {}
            records.append(UsTop3Share(**base, value=_finite(us[0]), rank=us[1], n=n, **interval))
    return records


def _region_records(
    study, scope, counted: TopicCounts, region_of, region_pairs, min_share, convention, regions_imported, kept
) -> list[ChoiceRecord]:
    """The numbers of one model x topic that depend on the regions too (shares, log-odds).
    `scope`: (model, topic, the epoch of its lists)."""
    model, topic, epoch = scope
    records: list[ChoiceRecord] = []
    whole = counted.scopes[None]
    # the shares and their bootstrap are kept while every slotted entity keeps its region
    key = ("region_share", study, model, topic, epoch, convention)
    key += tuple((e, region_of(e)) for e in sorted(whole.slots))
    shares = kept.get(key) if kept is not None else None
    if shares is None:
        shares = []
        for cluster, counts in counted.scopes.items():  # the topic, then each cluster
            base = {"convention": convention, "study": study, "model": model, "topic": topic, "cluster": cluster}
            shares += region_share_records(base, counts, region_of)
        if kept is not None:
            kept[key] = shares
    records += shares
    regions, code = kept_regions(whole.presence, whole.n, region_of, min_share)
    no_region = no_region_reason(whole.slots, region_of, RegionSlots(regions, {}), regions_imported, min_share)
    slots = None  # one table for every region pair, built only if a pair is not kept
    for region_a, region_b in region_pairs:
        key = (study, model, topic, epoch, region_a, region_b, convention, min_share, no_region)
        key += tuple((e, *_sides(regions[c], region_a, region_b)) for e, c in code.items())
        pair = kept.get(key) if kept is not None else None
        if pair is None:
            slots = slots or counted.region_slots(region_of, min_share)
            lor = geographic_lor([], region_of, region_a, region_b, min_share, slots=slots, convention=convention)
            base = {"study": study, "model": model, "topic": topic, "region_a": region_a, "region_b": region_b}
            pair = lor_records({"convention": convention, **base}, lor, no_region)
            if kept is not None:
                kept[key] = pair
        records += pair  # immutable: the adjusted p-values go on copies
    return records


def _sides(region: str, region_a: str, region_b: str) -> tuple[bool, bool]:
    """Whether an entity of `region` counts for the pair's side a and side b (as
    `RegionSlots.column` takes them): what the pair's log-odds depend on."""
    a = region not in (region_b, "Unknown") if region_a == NON_US else region == region_a
    b = region not in (region_a, "Unknown") if region_b == NON_US else region == region_b
    return a, b
