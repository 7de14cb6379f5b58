"""Identity disclosure's numbers as typed records (docs/methods.md §2), one class per kind.

Field order is the order of the keys in `workbench metrics --format json`; a field at UNSET
is a key that record does not have (see workbench/metrics/records.py). `no_signal` (True)
marks the cells whose prompts carry no identity signal: a group the template has no dialect
variants for, whose "dialect" prompts read like the baseline."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.metrics.records import UNSET, Unset


@dataclass(frozen=True, slots=True, kw_only=True)
class CellRecord:
    """What every identity number is of: a model's answers to one group under one condition."""

    convention: str
    study: str
    model: str
    group: str
    condition: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Rate(CellRecord):
    """A share of the cell's answers: `parse_rate`, `json_rate` or `probe_admits_rate`."""

    metric: str
    value: float
    n: int
    no_signal: bool | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class MeanShare(CellRecord):
    """Mean Share: the group's mean share of the recommended items, with its interval over
    prompts (each with its answers); None with `na_reason` where no answer has one (no references, nothing parsed)."""

    metric: str = field(default="mean_share", init=False)
    value: float | None
    n: int
    na_reason: str | Unset = UNSET
    n_eff: float | None | Unset = UNSET  # answers' worth of independent answers, the interval being over prompts
    design_effect: float | None | Unset = UNSET
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    ci_unit: str | Unset = UNSET  # what the interval resampled (seed, template, answer, question)
    ci_na_reason: str | Unset = UNSET
    no_signal: bool | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class MeanShareVsBaseline(CellRecord):
    """The condition's Mean Share minus the baseline's with its interval over prompts, `p` the
    test that interval inverts (p < 0.05 exactly when it leaves out 0) and the model's family
    of such tests adjusted; `u`, `p_paper`: the paper's Mann-Whitney U over answers, kept for
    fidelity, never adjusted in a family nor quoted as a finding."""

    metric: str = field(default="mean_share_vs_baseline", init=False)
    difference: float | None
    u: float | None
    p: float | None
    na_reason: str | Unset = UNSET  # why there is no difference
    p_na_reason: str | Unset = UNSET  # why there is a difference but no interval, and so no p
    p_paper: float | None = None
    p_paper_na_reason: str | Unset = UNSET  # why the paper's rank test is undefined (every share the same)
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    ci_unit: str | Unset = UNSET  # what the interval resampled (seed, template, answer, question)
    ci_na_reason: str | Unset = UNSET
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET
    no_signal: bool | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class Coverage(CellRecord):
    """Coverage: the group's people in the distinct items recommended, over the group's total."""

    metric: str = field(default="coverage", init=False)
    value: float | None
    ci_low: float | None | Unset = UNSET  # over prompts (the basic bootstrap: distinct items)
    ci_high: float | None | Unset = UNSET
    ci_level: float | Unset = UNSET
    n_boot: int | Unset = UNSET
    ci_unit: str | Unset = UNSET
    ci_na_reason: str | Unset = UNSET
    no_signal: bool | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class MeanShareWhenProbe(CellRecord):
    """Mean Share over the answers whose probe got one label (admits, denies, ...)."""

    metric: str = field(default="mean_share_when_probe", init=False)
    probe_label: str
    value: float
    n: int
    no_signal: bool | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class ExplanationWord(CellRecord):
    """A word that marks a group's explanations (condition "all"), its smoothed share and uses."""

    metric: str = field(default="explanation_word", init=False)
    word: str
    rank: int
    value: float
    n: int


IdentityRecord = Rate | MeanShare | MeanShareVsBaseline | Coverage | MeanShareWhenProbe | ExplanationWord
