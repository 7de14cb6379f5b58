"""ChoiceEval's geographic log-odds (docs/methods.md §1): per cluster, the recommendation
slots of one region against another's; their mean over clusters, its interval and a t-test;
and the records that say, where a log-odds cannot be taken, why."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from workbench.methods.choice.counts import RegionSlots, ResponseList, region_slots
from workbench.methods.choice.counts import finite as _finite
from workbench.methods.choice.records import LorCluster, LorTopic
from workbench.metrics.clustered import answer_unit
from workbench.metrics.intervals import interval_fields, units_text
from workbench.metrics.records import UNSET, Unset


@dataclass(frozen=True)
class LogOddsRatio:
    per_group: dict[str, float | None]  # group -> LOR_g(a, b); None where it is n/a (see `geographic_lor`)
    mean: float | None
    exp_mean: float | None
    t: float | None  # the interval's own t-test: the mean over its linearised standard error
    p: float | None
    ci: tuple[float | None, float | None] = (None, None)  # interval of the mean (over questions or answers)
    df: float | None = None  # Student's t's degrees of freedom for both (Satterthwaite's)
    t_paper: float | None = None  # the paper's one-sample t-test over clusters (fidelity only)
    p_paper: float | None = None
    slots: tuple[int, int] = (0, 0)  # slots of region a and of region b over all clusters
    group_slots: dict[str, tuple[int, int]] = field(default_factory=dict)  # the same per group
    carried: tuple[str, ...] = ()  # the groups the mean and the t-test are taken over
    na_reason: str | None = None  # why there is no mean
    test_na_reason: str | None = None  # why there is a mean but no paper's t-test
    ci_na_reason: str | None = None  # why there is a mean but no interval (and so no p)
    ci_unit: str | None = None  # what the interval resampled: questions (with their repetitions) or answers

    @property
    def n_groups(self) -> int:
        return len(self.per_group)

    @property
    def n_clusters(self) -> int:
        return len(self.carried)


def log_odds_ratio(n_a: float, n_b: float, alpha: float = 0.5) -> float:
    """LOR = ln((n_a + α) / (n_b + α)), Haldane–Anscombe smoothing."""
    return math.log((n_a + alpha) / (n_b + alpha))


def geographic_lor(
    lists: Sequence[ResponseList],
    region_of: Callable[[str], str | None],
    region_a: str,
    region_b: str,
    min_share: float = 0.05,
    alpha: float = 0.5,
    slots: RegionSlots | None = None,
    convention: str = "paper",
) -> LogOddsRatio:
    """Per-group LOR of top-K slots held by region a vs region b, their mean,
    exp(mean), a one-sample t-test of the group values against 0, and an interval of the
    mean over questions (each cluster's questions, all repetitions of each together: its
    linearised standard error; its answers resampled under `--ci-unit answer`). `slots`: the
    topic's RegionSlots, when several region pairs share them.

    `convention`: "original" takes every cluster, as the paper's code does: a region
    without a slot there counts 0.5 (Haldane-Anscombe), and a cluster where neither has
    one enters the mean and the t-test as 0. "paper" (the default) takes a cluster only
    where both regions hold slots: elsewhere its LOR is None (a ratio against no slot is
    the smoothing's, not the model's), and the mean, interval and t-test are over the
    clusters that carry one."""
    slots = slots or region_slots(lists, region_of, min_share)
    if not slots.per_group:
        return LogOddsRatio({}, None, None, None, None, na_reason="no answers")
    pairs = {
        g: np.column_stack([slots.column(m, region_a, region_b), slots.column(m, region_b, region_a)])
        for g, m in slots.per_group.items()
    }
    totals = {g: pair.sum(axis=0) for g, pair in pairs.items()}
    held = (int(sum(t[0] for t in totals.values())), int(sum(t[1] for t in totals.values())))
    group_slots = {g: (int(t[0]), int(t[1])) for g, t in totals.items()}
    if convention == "original":
        carried = tuple(pairs)
    else:
        carried = tuple(g for g, (a, b) in group_slots.items() if a > 0 and b > 0)
    per_group = {g: log_odds_ratio(t[0], t[1], alpha) if g in carried else None for g, t in totals.items()}
    empty = LogOddsRatio(
        per_group, None, None, None, None, (None, None), slots=held, group_slots=group_slots, carried=carried
    )
    if not carried:
        return replace(empty, na_reason=_missing_slots(held, region_a, region_b))
    if len(carried) < 2 <= len(per_group):
        # the mean over clusters would be one cluster's own log-odds: shown per cluster only
        return replace(empty, na_reason=f"only 1 of {len(per_group)} clusters has slots of both regions")
    values = np.array([per_group[g] for g in carried], dtype=float)

    def mean_lor(sums: list[np.ndarray]) -> np.ndarray:
        return np.mean([np.log((x[:, 0] + alpha) / (x[:, 1] + alpha)) for x in sums], axis=0)

    fit, ci_reason, unit = _lor_fit(slots, pairs, carried, mean_lor)
    few = _few_slots(group_slots, carried, region_a, region_b)
    if few is not None and fit is not None:
        fit, ci_reason = None, few
    mean = float(values.mean())
    t_paper = p_paper = None
    test_reason = _test_na_reason(values, len(per_group), convention)
    if test_reason is None:
        from workbench.metrics.lean_tests import ttest_1samp

        t_paper, p_paper = (_finite(x) for x in ttest_1samp(values, 0.0))
    numbers = dict(mean=mean, exp_mean=math.exp(mean), t_paper=t_paper, p_paper=p_paper)
    if fit is not None:
        t = fit.estimate / fit.se
        numbers.update(ci=fit.interval(), t=_finite(t), p=fit.p(), df=fit.df)
    return replace(empty, **numbers, test_na_reason=test_reason, ci_na_reason=ci_reason, ci_unit=unit)


def _lor_fit(slots: RegionSlots, pairs: dict[str, np.ndarray], carried: tuple[str, ...], statistic) -> tuple:
    """(the mean's linearised fit or None, why it is None, its unit): over each carried
    cluster's questions (their answers' slots summed), or its answers under `--ci-unit answer`;
    its interval and its t-test come from the same standard error and degrees of freedom."""
    from workbench.metrics.clustered import ANSWER, QUESTION, answer_unit, linearised

    if answer_unit() == QUESTION and all(g in slots.questions for g in carried):
        rows, unit = [slots.by_question(g, pairs[g]) for g in carried], QUESTION
    else:
        rows, unit = [pairs[g] for g in carried], ANSWER
    if sum(r.shape[0] for r in rows) < 2:
        return None, units_text(1, unit), unit
    fit = linearised(rows, statistic)
    if fit is None or fit.se == 0:  # every question (answer) moves the mean alike: its spread is unknown
        return None, f"no spread between {unit}s", unit
    return fit, None, unit


# Fewer slots than this of either region over the clusters carrying a log-odds leave its interval
# to a handful of answers (Cochran's rule of five for counts): the demo's coffee makers, US vs
# Asia, 1 slot against 1 in each of two clusters of nine, read 0.00 [-8.47, 8.47], an interval
# that says nothing and stretched every chart it was drawn in.
MIN_SLOTS = 5


def _few_slots(group_slots: dict, carried: tuple[str, ...], region_a: str, region_b: str) -> str | None:
    """Why the slots the carried clusters hold are too few for an interval (None when enough)."""
    held = [sum(group_slots[g][side] for g in carried) for side in (0, 1)]
    for count, region in sorted(zip(held, (region_a, region_b))):
        if count < MIN_SLOTS:
            return f"{count} {region} slots, fewer than {MIN_SLOTS}"
    return None


def _missing_slots(held: tuple[int, int], region_a: str, region_b: str) -> str:
    """Why no cluster carries a log-odds: which region has no slot at all, or that the
    two never share a cluster."""
    if held == (0, 0):
        return "no slot of either region"
    if held[1] == 0:
        return f"no {region_b} slot: {held[0]} vs 0 slots"
    if held[0] == 0:
        return f"no {region_a} slot: 0 vs {held[1]} slots"
    return f"no cluster has slots of both regions: {held[0]} vs {held[1]} slots"


def _test_na_reason(values: np.ndarray, total: int, convention: str) -> str | None:
    """Why the t-test over clusters cannot be run (None when it can)."""
    if len(values) < 2:
        if convention == "original" or total == 1:
            return "one cluster"
        return f"only {len(values)} of {total} clusters has slots of both regions"
    if np.ptp(values) == 0:
        return "no spread over clusters"
    return None


def lor_records(base: dict[str, Any], lor: LogOddsRatio, no_region: str | None) -> list[LorTopic | LorCluster]:
    """A region pair's topic record (mean over the clusters that carry it, their count of
    all, its interval and t-test, or why each is n/a) and one record per named cluster.
    `base`: the pair's convention, study, model, topic, region_a and region_b."""
    if no_region is not None:  # nothing to compare: no log-odds at all, in any convention
        numbers: dict[str, Any] = dict(mean=None, exp_mean=None, t=None, p=None, n_clusters=0, na_reason=no_region)
        numbers.update(df=None, t_paper=None, p_paper=None)
        interval = {**interval_fields(*lor.ci, unit=lor.ci_unit or answer_unit()), "ci_low": None, "ci_high": None}
    else:
        numbers = dict(mean=_finite(lor.mean), exp_mean=_finite(lor.exp_mean), t=lor.t, p=lor.p, df=lor.df)
        numbers.update(t_paper=lor.t_paper, p_paper=lor.p_paper)
        numbers["n_clusters"] = lor.n_clusters  # the clusters the mean is taken over
        interval = interval_fields(*lor.ci, unit=lor.ci_unit or answer_unit())
        if lor.na_reason is not None:
            numbers["na_reason"] = lor.na_reason
        else:
            if lor.ci_na_reason is not None:  # the interval's test is n/a with it
                numbers["ci_na_reason"] = numbers["p_na_reason"] = lor.ci_na_reason
            if lor.test_na_reason is not None:
                numbers["p_paper_na_reason"] = lor.test_na_reason
    topic = LorTopic(
        **base,
        **numbers,
        **interval,
        n_groups=lor.n_groups,
        n_total=lor.n_groups,  # of all clusters
        slots_a=lor.slots[0],
        slots_b=lor.slots[1],
    )
    records: list[LorTopic | LorCluster] = [topic]
    for group, value in lor.per_group.items():
        if not group:
            continue
        held_a, held_b = lor.group_slots.get(group, (None, None))
        reason: str | Unset = UNSET
        if no_region is not None:
            value, reason = None, no_region
        elif value is None:
            reason = _missing_slots((held_a or 0, held_b or 0), base["region_a"], base["region_b"])
        records.append(
            LorCluster(**base, cluster=group, value=_finite(value), slots_a=held_a, slots_b=held_b, na_reason=reason)
        )
    return records


def no_region_reason(
    slots: Counter[str],
    region_of: Callable[[str], str | None],
    kept: RegionSlots,
    regions_imported: bool,
    min_share: float,
) -> str | None:
    """Why no log-odds of a topic can be taken whatever the pair (None when some entity
    it counts has a region): no region in the store, or none of the names the answers
    gave has one (the names most often named, so the region table can be fixed)."""
    if any(region != "Unknown" for region in kept.regions):
        return None
    if not regions_imported:
        return "no regions imported"
    if any(region_of(e) for e in slots):
        return f"the entities with a region are each in fewer than {min_share:.0%} of the answers"
    top = sorted(slots.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    names = ", ".join(f"{name} ({count})" for name, count in top)
    return "no extracted name has a region" + (f": top unmatched names: {names}" if names else "")
