"""Each region's share of a scope's recommendation slots, with its interval over questions.

A share of slots is a ratio of sums over questions (the region's slots, all slots), so it is
resampled as PEIR is: each question with all its repetitions, within its cluster
(workbench/metrics/clustered.py), or under `--ci-unit answer` each answer with its slots.
One draw of questions serves every region of the scope."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from workbench.methods.choice.counts import ScopeCounts
from workbench.methods.choice.records import RegionShare
from workbench.metrics.clustered import SlotRows, ratio_fields


def region_share_records(base: dict, counts: ScopeCounts, region_of: Callable[[str], str | None]) -> list[RegionShare]:
    """One record per region holding a slot (entities without a region: Unknown), regions by
    name. `base`: the records' convention, study, model, topic and cluster."""
    regions_of: dict[str, int] = {}
    for entity, count in counts.slots.items():
        if count:
            region = region_of(entity) or "Unknown"
            regions_of[region] = regions_of.get(region, 0) + count
    total = sum(regions_of.values())
    if not total:
        return []
    regions = sorted(regions_of)
    questions = counts.questions
    if questions is None or questions.slots is None:
        intervals = [{} for _ in regions]
    else:
        rows = questions.slots()
        column = _columns(rows, regions, region_of)
        per_question = _table(rows.question, column, len(questions.n), len(regions))
        intervals = ratio_fields(
            per_question, questions, lambda: _table(rows.answer, column, rows.answers, len(regions))
        )
    return [
        RegionShare(**base, region=region, value=regions_of[region] / total, slots=total, **interval)
        for region, interval in zip(regions, intervals)
    ]


def _columns(rows: SlotRows, regions: list[str], region_of: Callable[[str], str | None]) -> np.ndarray:
    """Each slot's region column (its entity's region's place in `regions`)."""
    index = {region: i for i, region in enumerate(regions)}
    present = np.unique(rows.entity)
    code = np.zeros(int(present.max()) + 1 if present.size else 0, np.int64)
    for entity in present.tolist():
        code[entity] = index[region_of(rows.names[entity]) or "Unknown"]
    return code[rows.entity]


def _table(row: np.ndarray, column: np.ndarray, n_rows: int, width: int) -> np.ndarray:
    """Per row (question or answer): all its slots, then its slots of each region."""
    counts = np.bincount(row * width + column, minlength=n_rows * width).reshape(n_rows, width).astype(float)
    return np.column_stack([counts.sum(axis=1), counts])
