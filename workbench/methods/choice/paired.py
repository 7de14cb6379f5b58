"""ChoiceEval's models paired for `workbench compare` (docs/methods.md, "Comparing two
models"): the study's `compare_module`. Over the questions both models answered, per topic:
B's number minus A's for the share of answers naming A's preferred entity (PEIR of A's e*; each
of A's tied favourites, `tied_with` naming the others), the direct-recommendation rate, each
region's share of recommendation slots and each region pair's log-odds. A question is the unit:
all repetitions of it together, within its cluster (the stratum of the paired bootstrap); the
core adjusts the p-values over the comparison. Each record says how many questions of the
topic only A answered and only B (`questions_only_a`, `questions_only_b`): they are left out.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.methods.choice.counts import NON_US, ResponseList, kept_regions, presence_of
from workbench.methods.choice.metrics import DEFAULT_REGION_PAIRS, preferred_entity
from workbench.metrics.paired import PairedColumns, linearised_se, share
from workbench.metrics.paired_records import adjusted, missing_record, paired_record

ALPHA = 0.5  # Haldane-Anscombe, as the log-odds of `workbench metrics`


@dataclass(frozen=True)
class Topic:
    """One topic's answers of both models, by question (cluster, wording)."""

    study: str
    topic: str
    model_a: str
    model_b: str
    a: dict[tuple[str, str], list[ResponseList]]
    b: dict[tuple[str, str], list[ResponseList]]

    def common(self) -> list[tuple[str, str]]:
        return sorted(set(self.a) & set(self.b))

    def base(self, metric: str, **keys: Any) -> dict[str, Any]:
        record = {"study": self.study, "metric": metric, "topic": self.topic}
        return {**record, **keys, "model_a": self.model_a, "model_b": self.model_b}

    def missing(self) -> dict[str, int]:
        """How many of the topic's questions only A answered, and only B (left out)."""
        common = set(self.a) & set(self.b)
        return {"questions_only_a": len(set(self.a) - common), "questions_only_b": len(set(self.b) - common)}


def models(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The models whose ranked lists count now in the study, by name (the app's picker)."""
    from workbench.store.requests.plan_reads import list_models

    return list_models(conn, study_id)


def paired_records(conn: sqlite3.Connection, study_id: int, pairing) -> list[dict[str, Any]]:
    """The comparison of the study's stored lists (the [metrics] region pairs and 5 % filter
    of its file), refused by `pairing.check` unless both models have lists."""
    from workbench.store.entities import mentions
    from workbench.store.requests.studies import study_spec

    lists = [ResponseList(*row[:5], tuple(row[5]), tuple(row[6])) for row in mentions.load_lists(conn, study_id)]
    pairing.check(sorted({item.model for item in lists}))
    settings = study_spec(conn, pairing.study).get("metrics", {})
    pairs = [tuple(p) for p in settings.get("region_pairs", DEFAULT_REGION_PAIRS)]
    region_of = mentions.regions(conn).get
    model_a, model_b, min_share = pairing.model_a, pairing.model_b, settings.get("min_share", 0.05)
    return topics_records(pairing.study, lists, model_a, model_b, region_of, pairs, min_share)


def paired_lists(
    study: str,
    lists: Sequence[ResponseList],
    model_a: str,
    model_b: str,
    region_of: Callable[[str], str | None] = lambda _e: None,
    region_pairs: Sequence[tuple[str, str]] = DEFAULT_REGION_PAIRS,
    min_share: float = 0.05,
) -> list[dict[str, Any]]:
    """Every difference B - A per topic, as flat records (the command's JSON), with Holm and
    BH p-values over them all: what `workbench compare` gives for these lists."""
    records = topics_records(study, lists, model_a, model_b, region_of, region_pairs, min_share)
    adjusted(records)  # one family: every difference with a p
    return records


def topics_records(
    study: str,
    lists: Sequence[ResponseList],
    model_a: str,
    model_b: str,
    region_of: Callable[[str], str | None],
    region_pairs: Sequence[tuple[str, str]],
    min_share: float,
) -> list[dict[str, Any]]:
    """Every difference B - A per topic, before the p-values are adjusted."""
    grouped: dict[tuple[str, str], dict[tuple[str, str], list[ResponseList]]] = {}
    for item in lists:
        if item.model in (model_a, model_b):
            key = (item.model, item.topic)
            grouped.setdefault(key, {}).setdefault((item.cluster or "", item.question), []).append(item)
    records: list[dict[str, Any]] = []
    for topic in sorted({t for _m, t in grouped}):
        scope = Topic(
            study, topic, model_a, model_b, grouped.get((model_a, topic), {}), grouped.get((model_b, topic), {})
        )
        records += [{**r, **scope.missing()} for r in topic_records(scope, region_of, region_pairs, min_share)]
    return records


def topic_records(
    scope: Topic, region_of: Callable[[str], str | None], region_pairs: Sequence[tuple[str, str]], min_share: float
) -> list[dict[str, Any]]:
    common = scope.common()
    if not common:
        reason = f"no question both answered ({len(scope.a)} by {scope.model_a}, {len(scope.b)} by {scope.model_b})"
        return [missing_record(scope.base(metric), reason, 0) for metric in ("peir", "direct_recommendation_rate")]
    names = sorted({cluster for cluster, _q in common})
    stratum = np.asarray([names.index(cluster) for cluster, _q in common], dtype=np.int64)
    lists_a = [[*scope.a[q]] for q in common]
    lists_b = [[*scope.b[q]] for q in common]

    def paired(column: Callable[[list[ResponseList]], Sequence[float]]) -> PairedColumns:
        a = np.asarray([column(items) for items in lists_a], dtype=float)
        b = np.asarray([column(items) for items in lists_b], dtype=float)
        return PairedColumns(stratum, names, a.reshape(len(common), -1), b.reshape(len(common), -1))

    records = _peir(scope, lists_a, lists_b, paired)
    direct = paired(lambda items: (len(items), sum(1 for i in items if i.entities)))
    records.append(paired_record(scope.base("direct_recommendation_rate"), direct, share(1), answers=0))
    records += _region_shares(scope, lists_a, lists_b, paired, region_of)
    for region_a, region_b in region_pairs:
        records.append(_log_odds(scope, lists_a, lists_b, paired, region_of, (region_a, region_b), min_share))
    return records


def _peir(scope: Topic, lists_a, lists_b, paired) -> list[dict[str, Any]]:
    """The share of answers naming A's preferred entity e*, B's minus A's, e* chosen once from
    A's answers (the interval and p hold it fixed: one test). Where A names several entities in
    as many answers, e* is not one of them: each tied entity gets its record, `tied_with` naming
    the others, so that no difference reads as A's favourite's alone."""
    flat = [item for items in lists_a for item in items]
    entity, _share, _n = preferred_entity(flat)
    if entity is None:
        return [
            missing_record(scope.base("peir", entity=None), f"{scope.model_a} named no entity on these questions", 0)
        ]
    presence = presence_of(flat)
    tied = sorted(e for e, count in presence.items() if count == presence[entity] and e != entity)
    records = []
    for named in [entity, *tied] if tied else [entity]:
        columns = paired(lambda items, e=named: (len(items), sum(e in i.entities for i in items)))
        others = {"tied_with": [e for e in [entity, *tied] if e != named]} if tied else {}
        records.append(paired_record(scope.base("peir", entity=named, **others), columns, share(1), answers=0))
    return records


def _region_of(region_of: Callable[[str], str | None]) -> Callable[[str], str]:
    return lambda entity: region_of(entity) or "Unknown"


def _region_shares(scope: Topic, lists_a, lists_b, paired, region_of) -> list[dict[str, Any]]:
    """Each region's share of slots, B's minus A's (the last column, answers, is each model's
    sample size where Newcombe's interval stands in). No record per region where no entity
    named has a region: "Unknown" at 1.0 for both would be no finding."""
    named = _region_of(region_of)
    regions = sorted({named(e) for items in lists_a + lists_b for item in items for e in item.slot_entities})

    def slots(items: list[ResponseList]) -> tuple[int, ...]:
        counted = Counter(named(e) for item in items for e in item.slot_entities)
        return (sum(counted.values()), *(counted[r] for r in regions), len(items))

    columns = paired(slots)
    empty = [m for m, x in ((scope.model_a, columns.a), (scope.model_b, columns.b)) if not x[:, 0].sum()]
    if regions == ["Unknown"] and not empty:
        return [missing_record(scope.base("region_share", region=None), "no entity named has a region", len(lists_a))]
    records = []
    for i, region in enumerate(regions, start=1):
        base = scope.base("region_share", region=region)
        if empty:
            records.append(missing_record(base, f"{empty[0]}: no recommendation slot", columns.n_questions))
        else:
            records.append(paired_record(base, columns, share(i), answers=len(regions) + 1))
    return records


def _side_counts(lists: list[list[ResponseList]], region_of, pair: tuple[str, str], min_share: float) -> np.ndarray:
    """Per question, the slots of region a and of region b among one model's entities
    named in at least `min_share` of its answers (the 5 % filter of `workbench metrics`)."""
    flat = [item for items in lists for item in items]
    regions, code = kept_regions(presence_of(flat), len(flat), region_of, min_share)
    region_a, region_b = pair

    def side(region: str, other: str) -> set[str]:
        if region == NON_US:
            return {r for r in regions if r not in (other, "Unknown")}
        return {region}

    sides = (side(region_a, region_b), side(region_b, region_a))
    out = np.zeros((len(lists), 2))
    for q, items in enumerate(lists):
        for entity in (e for item in items for e in item.slot_entities if e in code):
            region = regions[code[entity]]
            out[q] += [region in sides[0], region in sides[1]]
    return out


def _log_odds(scope: Topic, lists_a, lists_b, paired, region_of, pair, min_share) -> dict[str, Any]:
    """Mean over clusters of ln((slots of a + 0.5) / (slots of b + 0.5)), B's minus A's,
    over the clusters where both models give both regions slots (the paper convention); its
    interval from the linearised standard error, as the log-odds of `workbench metrics`."""
    base = scope.base("log_odds", region_a=pair[0], region_b=pair[1])
    sides_a = _side_counts(lists_a, region_of, pair, min_share)
    sides_b = _side_counts(lists_b, region_of, pair, min_share)
    layout = paired(lambda _items: (0,))  # the questions' strata
    columns = PairedColumns(layout.stratum, layout.names, sides_a, sides_b)
    ones = np.ones((1, columns.n_questions))
    held = np.minimum(columns.sums(ones, sides_a), columns.sums(ones, sides_b))[0]  # (S, 2)
    carried = np.flatnonzero((held > 0).all(axis=1))
    if not carried.size:
        return missing_record(base, _no_log_odds(lists_a + lists_b, region_of), columns.n_questions)

    def mean_lor(sums: np.ndarray) -> np.ndarray:
        kept = sums[..., carried, :]
        return np.log((kept[..., 0] + ALPHA) / (kept[..., 1] + ALPHA)).mean(-1)

    return paired_record(base, columns, mean_lor, se=linearised_se)


def _no_log_odds(lists: list[list[ResponseList]], region_of) -> str:
    """Why no cluster carries a log-odds for both models."""
    if not any(region_of(e) for items in lists for item in items for e in item.slot_entities):
        return "no entity named has a region"
    return "no cluster where both models give both regions slots (after the 5 % filter)"
