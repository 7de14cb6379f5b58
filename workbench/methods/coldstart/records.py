"""Cold-start re-ranking's numbers as typed records (docs/methods.md §3), one class per kind.

Field order is the order of the keys in `workbench metrics --format json`; a field at UNSET
is a key that record does not have (see workbench/metrics/records.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.metrics.records import UNSET, Unset


@dataclass(frozen=True, slots=True, kw_only=True)
class PersonaRecord:
    """What every cold-start number is of: a model's lists for one persona (or the neutral user)."""

    convention: str
    study: str
    model: str
    persona_category: str
    persona: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Divergence(PersonaRecord):
    """IOU, SERP-MS or PRAG against the neutral list (`iou_similarity`, `iou_divergence`, ...):
    mean and population std over seeds, with the seeds' interval (Student's t, from 3 seeds),
    or why each is n/a."""

    n: int
    seeds_without_neutral: int | Unset = UNSET  # seeds left out: their neutral list names no catalog item
    na_reason: str | Unset = UNSET
    metric: str
    mean: float | None
    std: float | None
    std_na_reason: str | Unset = UNSET  # why there is no std: one seed (docs/methods.md, "Minimum support")
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    ci_unit: str | Unset = UNSET  # what the interval resampled (seed, template, answer, question)
    ci_na_reason: str | Unset = UNSET

    @property
    def similarity(self) -> str:
        """ "iou", "serp" or "prag"."""
        return self.metric.rsplit("_", 1)[0]

    @property
    def is_divergence(self) -> bool:
        return self.metric.endswith("_divergence")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fidelity(PersonaRecord):
    """How the lists read against the catalog, mean and population std over seeds:
    `out_of_catalog_rate`, `repeat_rate`, `not_an_item_rate`, `diversity`, `mean_catalog_rank`."""

    metric: str
    mean: float | None
    std: float | None
    std_na_reason: str | Unset = UNSET  # why there is no std: one seed
    n: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupShare(PersonaRecord):
    """The share of recommended items carrying one value of a catalog attribute."""

    metric: str = field(default="group_share", init=False)
    mean: float | None
    std: float | None
    std_na_reason: str | Unset = UNSET  # why there is no std: one seed
    n: int
    attribute: str
    value_label: str


ColdstartRecord = Divergence | Fidelity | GroupShare
