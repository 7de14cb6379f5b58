"""`workbench compare`: two models of one ChoiceEval study, paired over the questions both
answered (docs/methods.md, "Comparing two models").

For every topic: B's number minus A's for the share of answers naming A's preferred entity
(PEIR of e*), the direct-recommendation rate, each region's share of recommendation slots,
and each region pair's log-odds; each difference with a paired cluster bootstrap interval
(the same questions resampled for both models) and a sign-flip permutation p, and Holm and
Benjamini-Hochberg p-values over every difference of the comparison (one family).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.methods.choice.counts import NON_US, ResponseList, kept_regions, presence_of
from workbench.methods.choice.metrics import DEFAULT_REGION_PAIRS, preferred_entity
from workbench.metrics.intervals import LEVEL, resamples
from workbench.metrics.paired import (
    PairedColumns,
    difference_of,
    observed_difference,
    one_question_stratum,
    paired_interval,
    share,
    sign_flip_p,
)
from workbench.metrics.records import with_adjusted_p
from workbench.store.errors import UserFacingError

# The flat record's keys (CSV columns) in order; reasons appear only where a number is missing.
COMPARE_FIELDS = [
    "study",
    "metric",
    "topic",
    "entity",
    "region",
    "region_a",
    "region_b",
    "model_a",
    "model_b",
    "value_a",
    "value_b",
    "difference",
    "ci_low",
    "ci_high",
    "ci_level",
    "n_boot",
    "ci_unit",
    "p",
    "p_holm",
    "p_bh",
    "n_questions",
    "group",
    "condition",
    "n_units",
    "na_reason",
    "ci_na_reason",
]
CANDIDATES = 5  # the test re-chooses e* among A's five most named entities (its choice is part of the number)
ALPHA = 0.5  # Haldane-Anscombe, as the log-odds of `workbench metrics`


class CompareError(UserFacingError):
    """Models that cannot be compared: one line, exit status 2."""


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


def check_models(models: Sequence[str], model_a: str, model_b: str, study: str) -> None:
    """Refuse, in one line, a pair that cannot be compared."""
    listed = ", ".join(models) or "none"
    if len(models) < 2:
        raise CompareError(f"study {study!r} has {len(models)} model(s) ({listed}): a comparison needs two")
    for name in (model_a, model_b):
        if name not in models:
            raise CompareError(f"no model {name!r} in study {study!r} (its models: {listed})")
    if model_a == model_b:
        raise CompareError(f"--models names {model_a!r} twice: name two of {listed}")


def compare_study(conn: sqlite3.Connection, study: str, model_a: str, model_b: str) -> list[dict[str, Any]]:
    """The comparison `workbench compare` prints: the study's lists read from the store."""
    from workbench.store import mentions, studies
    from workbench.store.studies import study_spec

    study_id = studies.study_id(conn, study)
    if study_id is None:
        known = ", ".join(studies.study_names(conn)) or "none"
        raise CompareError(f"no study named {study!r} in this database (known: {known})")
    from workbench.compare_methods import compare_other

    other = compare_other(conn, study_id, study, (model_a, model_b), (check_models, _record, _missing))
    if other is not None:  # an identity or entity study: paired by prompt or template
        return other
    lists = [ResponseList(*row[:5], tuple(row[5]), tuple(row[6])) for row in mentions.load_lists(conn, study_id)]
    check_models(sorted({item.model for item in lists}), model_a, model_b, study)
    settings = study_spec(conn, study).get("metrics", {})
    pairs = [tuple(p) for p in settings.get("region_pairs", DEFAULT_REGION_PAIRS)]
    region_of = mentions.regions(conn).get
    return paired_records(study, lists, model_a, model_b, region_of, pairs, settings.get("min_share", 0.05))


def study_models(conn: sqlite3.Connection, study: str) -> list[str]:
    """The models with ranked lists that count in a study (a ChoiceEval study's)."""
    from workbench.store.plan_reads import study_models as models_of

    return models_of(conn, study)


def comparable_models(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Every study by name with the models a comparison of it can pick from, in name order:
    those whose ranked lists (ChoiceEval), answers (identity) or scores (entity) count now,
    not a model removed from the study file. Read inside one `snapshot`."""
    from workbench.compare_methods import other_models
    from workbench.store import studies

    out: dict[str, list[str]] = {}
    for study in studies.study_names(conn):
        other = other_models(conn, studies.study_id(conn, study), study)
        out[study] = study_models(conn, study) if other is None else other
    return out


def paired_records(
    study: str,
    lists: Sequence[ResponseList],
    model_a: str,
    model_b: str,
    region_of: Callable[[str], str | None] = lambda _e: None,
    region_pairs: Sequence[tuple[str, str]] = DEFAULT_REGION_PAIRS,
    min_share: float = 0.05,
) -> list[dict[str, Any]]:
    """Every difference B - A per topic, as flat records (the command's JSON)."""
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
        records += topic_records(scope, region_of, region_pairs, min_share)
    with_adjusted_p(records, lambda _r: True, ("study",))  # one family: every difference compared
    return records


def topic_records(
    scope: Topic, region_of: Callable[[str], str | None], region_pairs: Sequence[tuple[str, str]], min_share: float
) -> list[dict[str, Any]]:
    common = scope.common()
    if not common:
        reason = f"no question both answered ({len(scope.a)} by {scope.model_a}, {len(scope.b)} by {scope.model_b})"
        return [_missing(scope.base(metric), reason, 0) for metric in ("peir", "direct_recommendation_rate")]
    names = sorted({cluster for cluster, _q in common})
    stratum = np.asarray([names.index(cluster) for cluster, _q in common], dtype=np.int64)
    lists_a = [[*scope.a[q]] for q in common]
    lists_b = [[*scope.b[q]] for q in common]

    def paired(column: Callable[[list[ResponseList]], Sequence[float]]) -> PairedColumns:
        a = np.asarray([column(items) for items in lists_a], dtype=float)
        b = np.asarray([column(items) for items in lists_b], dtype=float)
        return PairedColumns(stratum, names, a.reshape(len(common), -1), b.reshape(len(common), -1))

    records = [_peir(scope, lists_a, lists_b, paired)]
    direct = paired(lambda items: (len(items), sum(1 for i in items if i.entities)))
    records.append(_record(scope.base("direct_recommendation_rate"), direct, share(1)))
    records += _region_shares(scope, lists_a, lists_b, paired, region_of)
    for region_a, region_b in region_pairs:
        records.append(_log_odds(scope, lists_a, lists_b, paired, region_of, (region_a, region_b), min_share))
    return records


def _peir(scope: Topic, lists_a, lists_b, paired) -> dict[str, Any]:
    """The share of answers naming A's preferred entity e*, B's minus A's. The test chooses
    e* anew (among the entities both name most) in every swap, as the data chose it: a swap that makes
    another entity A's favourite compares that one, so A's lead in its own favourite is not
    counted as a difference."""
    flat = [item for items in lists_a for item in items]
    entity, _share, _n = preferred_entity(flat)
    if entity is None:
        return _missing(scope.base("peir", entity=None), f"{scope.model_a} named no entity on these questions", 0)
    # The entities both models name most: a swap leaves that set as it is (an exact test)
    pooled = presence_of(flat + [item for items in lists_b for item in items])
    ranked = [e for e, _c in sorted(pooled.items(), key=lambda kv: (-kv[1], kv[0]))][:CANDIDATES]
    candidates = [entity, *(e for e in ranked if e != entity)]
    columns = paired(lambda items: (len(items), *(sum(c in i.entities for i in items) for c in candidates)))

    def chosen(sums_a: np.ndarray, sums_b: np.ndarray) -> np.ndarray:
        named_a, named_b = sums_a.sum(-2)[..., 1:], sums_b.sum(-2)[..., 1:]
        pick = np.argmax(named_a, axis=-1)[..., None]  # ties: the first, as ordered by the data
        share_a = np.take_along_axis(named_a, pick, -1)[..., 0] / sums_a.sum(-2)[..., 0]
        share_b = np.take_along_axis(named_b, pick, -1)[..., 0] / sums_b.sum(-2)[..., 0]
        return share_b - share_a

    return _record(scope.base("peir", entity=entity), columns, share(1), test=chosen)


def _region_of(region_of: Callable[[str], str | None]) -> Callable[[str], str]:
    return lambda entity: region_of(entity) or "Unknown"


def _region_shares(scope: Topic, lists_a, lists_b, paired, region_of) -> list[dict[str, Any]]:
    named = _region_of(region_of)
    regions = sorted({named(e) for items in lists_a + lists_b for item in items for e in item.slot_entities})

    def slots(items: list[ResponseList]) -> tuple[int, ...]:
        counted = Counter(named(e) for item in items for e in item.slot_entities)
        return (sum(counted.values()), *(counted[r] for r in regions))

    columns = paired(slots)
    records = []
    for i, region in enumerate(regions, start=1):
        base = scope.base("region_share", region=region)
        empty = [m for m, x in ((scope.model_a, columns.a), (scope.model_b, columns.b)) if not x[:, 0].sum()]
        if empty:
            records.append(_missing(base, f"{empty[0]}: no recommendation slot", columns.n_questions))
        else:
            records.append(_record(base, columns, share(i)))
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
    over the clusters where both models give both regions slots (the paper convention)."""
    base = scope.base("log_odds", region_a=pair[0], region_b=pair[1])
    sides_a = _side_counts(lists_a, region_of, pair, min_share)
    sides_b = _side_counts(lists_b, region_of, pair, min_share)
    layout = paired(lambda _items: (0,))  # the questions' strata
    columns = PairedColumns(layout.stratum, layout.names, sides_a, sides_b)
    ones = np.ones((1, columns.n_questions))
    held = np.minimum(columns.sums(ones, sides_a), columns.sums(ones, sides_b))[0]  # (S, 2)
    carried = np.flatnonzero((held > 0).all(axis=1))
    if not carried.size:
        return _missing(base, _no_log_odds(lists_a + lists_b, region_of), columns.n_questions)

    def mean_lor(sums: np.ndarray) -> np.ndarray:
        kept = sums[..., carried, :]
        return np.log((kept[..., 0] + ALPHA) / (kept[..., 1] + ALPHA)).mean(-1)

    return _record(base, columns, mean_lor)


def _no_log_odds(lists: list[list[ResponseList]], region_of) -> str:
    """Why no cluster carries a log-odds for both models."""
    if not any(region_of(e) for items in lists for item in items for e in item.slot_entities):
        return "no entity named has a region (import them: workbench import entities)"
    return "no cluster where both models give both regions slots (after the 5 % filter)"


def _record(base: dict[str, Any], columns: PairedColumns, value, test=None, unit: str = "question") -> dict[str, Any]:
    """Each model's number (`value` of its sums), B's minus A's, its interval (or why none)
    and its permutation p (of `test`, a difference, when the test re-chooses something)."""
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
        record["ci_low"], record["ci_high"] = paired_interval(columns, diff)
    observed = observed_difference(columns, test or diff)
    record["p"] = sign_flip_p(columns, test or diff, difference if observed is None else observed)
    return record


def _stratum_text(name: str) -> str:
    return f"cluster {name!r}" if name else "the questions without a cluster"


def _missing(base: dict[str, Any], reason: str, n_questions: int) -> dict[str, Any]:
    record = {**base, "value_a": None, "value_b": None, "difference": None, "ci_low": None, "ci_high": None}
    record.update(ci_level=LEVEL, n_boot=resamples(), ci_unit="question", p=None, n_questions=n_questions)
    record["na_reason"] = reason
    return record


def _finite(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
