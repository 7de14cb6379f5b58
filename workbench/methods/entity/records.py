"""Label probabilities' numbers as typed records (docs/methods.md §4), one class per kind.

Field order is the order of the keys in `workbench metrics --format json`; a field at UNSET
is a key that record does not have (see workbench/metrics/records.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.metrics.records import UNSET, Unset, spliced


@dataclass(frozen=True, slots=True, kw_only=True)
class ConditionRecord:
    """What most numbers are of: one study's scores by one model, task, language, prompt
    variant and scoring method (a condition)."""

    convention: str
    study: str
    model: str
    task: str
    language: str
    variant: str
    method: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MacroF1(ConditionRecord):
    """How well the most probable label matches the intended one, over the condition's prompts."""

    metric: str = field(default="macro_f1", init=False)
    value: float | None
    n: int
    na_reason: str | Unset = UNSET  # why there is no macro-F1


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityDelta(ConditionRecord):
    """Delta(e, T): the entity's standardised label score over the task's templates, with its
    interval over templates and the entity's metadata (as `meta_<column>` keys)."""

    metric: str = field(default="entity_delta", init=False)
    entity: str
    value: float
    n: int
    flat_templates: int
    mean: float
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    ci_unit: str | Unset = UNSET  # what the interval resampled (seed, template, answer, question)
    ci_na_reason: str | Unset = UNSET
    meta: dict[str, Any] = spliced("meta_")


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityMacroF1(ConditionRecord):
    """Macro-F1 over one entity's prompts."""

    metric: str = field(default="entity_macro_f1", init=False)
    entity: str
    value: float | None
    n: int
    na_reason: str | Unset = UNSET  # why there is no macro-F1


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupDelta(ConditionRecord):
    """The mean Delta of the entities with one metadata value against the rest (Mann-Whitney U,
    Cohen's d), adjusted within the attribute's groups."""

    metric: str = field(default="group_delta", init=False)
    attribute: str
    value_label: str
    value: float
    n: int
    u: float | None
    p: float | None
    d: float | None
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET
    p_na_reason: str | Unset = UNSET  # why there is no test


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedDelta(ConditionRecord):
    """Delta between two conditions that differ in one respect (Wilcoxon, paired d)."""

    metric: str = field(default="paired_delta", init=False)
    between: str
    condition_a: str
    condition_b: str
    statistic: float | None
    p: float | None
    d: float | None
    n: int
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET
    p_na_reason: str | Unset = UNSET  # why there is no test


@dataclass(frozen=True, slots=True, kw_only=True)
class DeltaPearson(ConditionRecord):
    """Pearson's r between two studies' Deltas of the same task and condition."""

    metric: str = field(default="delta_pearson", init=False)
    study_b: str
    r: float | None
    p: float | None
    n: int
    p_holm: float | None | Unset = UNSET
    p_bh: float | None | Unset = UNSET
    na_reason: str | Unset = UNSET  # why there is no r (nor p)


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityDeltaGlobal:
    """Delta(e): an entity's Delta across tasks (Eq. 4), per model and condition (no study)."""

    convention: str
    metric: str = field(default="entity_delta_global", init=False)
    model: str
    language: str
    variant: str
    method: str
    entity: str
    value: float
    n: int


EntityRecord = MacroF1 | EntityDelta | EntityMacroF1 | GroupDelta | PairedDelta | DeltaPearson | EntityDeltaGlobal
