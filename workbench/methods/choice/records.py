"""ChoiceEval's numbers as typed records (docs/methods.md §1), one class per kind.

Field order is the order of the keys in `workbench metrics --format json`; a field at UNSET
is a key that record does not have (see workbench/metrics/records.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.metrics.records import UNSET, Unset


@dataclass(frozen=True, slots=True, kw_only=True)
class ChoiceRecord:
    """What every ChoiceEval number is of: a model's answers on one topic of a study."""

    convention: str
    study: str
    model: str
    topic: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ScopeRecord(ChoiceRecord):
    """A number of the topic (cluster None) or of one of its clusters, from the lists alone
    or (region shares) with the entities' regions."""

    cluster: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Peir(ScopeRecord):
    """The preferred entity e* and PEIR, the share of answers naming it, with its interval
    over questions (`ci_unit`), the effective n and the design effect beside n."""

    metric: str = field(default="peir", init=False)
    entity: str | None
    value: float | None
    n: int
    # The other entities named in as many answers as `entity` (a tie the rank sums broke):
    # a view names them all and says tie, never "the preferred entity".
    tied_with: tuple[str, ...] | Unset = UNSET
    # What e* was chosen over (workbench/methods/choice/preferred.py): the entity that would
    # be preferred without it and its share of the same answers, and the share of resamples
    # over questions in which e* is still named most; None with no e* (`na_reason`) or with
    # the reason beside it.
    runner_up: str | None = None
    runner_up_value: float | None = None
    runner_up_na_reason: str | Unset = UNSET
    stays_preferred: float | None = None
    stays_preferred_na_reason: str | Unset = UNSET
    na_reason: str | Unset = UNSET  # why there is no preferred entity
    n_eff: float | None | Unset = UNSET
    design_effect: float | None | Unset = UNSET
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    ci_unit: str | Unset = UNSET
    ci_na_reason: str | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectRecommendationRate(ScopeRecord):
    """The share of answers whose experts agreed on at least one recommendation, with its
    interval over questions as PEIR's."""

    metric: str = field(default="direct_recommendation_rate", init=False)
    value: float | None
    n: int
    n_eff: float | None | Unset = UNSET
    design_effect: float | None | Unset = UNSET
    ci_low: float | None | Unset = UNSET
    ci_high: float | None | Unset = UNSET
    ci_level: float | Unset = UNSET
    n_boot: int | Unset = UNSET
    ci_unit: str | Unset = UNSET
    ci_na_reason: str | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class Spearman(ScopeRecord):
    """Spearman's rho between two repetitions' counts of the top entities."""

    metric: str = field(default="spearman", init=False)
    repetition_a: int
    repetition_b: int
    value: float | None
    p: float | None
    n: int
    na_reason: str | Unset = UNSET  # why rho and p are n/a: too few entities to tell from chance


@dataclass(frozen=True, slots=True, kw_only=True)
class KruskalWallis(ScopeRecord):
    """Kruskal-Wallis H across the repetitions, with the family's adjusted p once adjusted."""

    metric: str = field(default="kruskal_wallis", init=False)
    statistic: float | None
    p: float | None
    n: int
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET
    na_reason: str | Unset = UNSET  # why there is no test (one repetition)
    p_na_reason: str | Unset = UNSET  # why there is H but no p: no arrangement could give p < 0.05


@dataclass(frozen=True, slots=True, kw_only=True)
class UsTop3Share(ScopeRecord):
    """The share of answers with the United States in the top 3 (with its interval over
    questions as PEIR's), and the US's rank."""

    metric: str = field(default="us_top3_share", init=False)
    value: float | None
    rank: int | None
    n: int
    n_eff: float | None | Unset = UNSET
    design_effect: float | None | Unset = UNSET
    ci_low: float | None | Unset = UNSET
    ci_high: float | None | Unset = UNSET
    ci_level: float | Unset = UNSET
    n_boot: int | Unset = UNSET
    ci_unit: str | Unset = UNSET
    ci_na_reason: str | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class RegionShare(ScopeRecord):
    """The share of all top-K slots held by one region, with its interval over questions as
    PEIR's; `slots` (all the scope's slots) is its n, and `n_eff` is in slots."""

    metric: str = field(default="region_share", init=False)
    region: str
    value: float
    slots: int | Unset = UNSET
    n_eff: float | None | Unset = UNSET
    design_effect: float | None | Unset = UNSET
    ci_low: float | None | Unset = UNSET
    ci_high: float | None | Unset = UNSET
    ci_level: float | Unset = UNSET
    n_boot: int | Unset = UNSET
    ci_unit: str | Unset = UNSET
    ci_na_reason: str | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class RegionPair(ChoiceRecord):
    """A log-odds ratio of one region's slots against another's."""

    region_a: str
    region_b: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LorTopic(RegionPair):
    """A topic's log-odds: the mean over the clusters that carry one, its interval and the
    t-test of the same standard error and degrees of freedom (`t`, `p`, `df`: p < 0.05
    exactly when the interval leaves out 0), or why each is n/a. `t_paper`, `p_paper`: the
    paper's one-sample t-test over the clusters' log-odds, kept for fidelity to its code,
    never adjusted in a family nor quoted as a finding."""

    metric: str = field(default="lor", init=False)
    cluster: None = field(default=None, init=False)
    mean: float | None
    exp_mean: float | None
    t: float | None
    p: float | None
    df: float | None = None
    n_groups: int
    n_clusters: int  # the clusters the mean and the t-test are taken over
    n_total: int  # of all clusters
    slots_a: int
    slots_b: int
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    ci_unit: str | Unset = UNSET
    na_reason: str | Unset = UNSET  # why there is no mean
    p_na_reason: str | Unset = UNSET  # why there is a mean but no interval, and so no p
    ci_na_reason: str | Unset = UNSET  # why there is a mean but no interval
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET
    t_paper: float | None = None
    p_paper: float | None = None
    p_paper_na_reason: str | Unset = UNSET  # why the paper's t-test over clusters cannot be run


@dataclass(frozen=True, slots=True, kw_only=True)
class LorCluster(RegionPair):
    """One cluster's log-odds and the slots it rests on, or why it is n/a."""

    metric: str = field(default="lor", init=False)
    cluster: str
    value: float | None
    slots_a: int | None
    slots_b: int | None
    na_reason: str | Unset = UNSET


LOR = (LorTopic, LorCluster)
