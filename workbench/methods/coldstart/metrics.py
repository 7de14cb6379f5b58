"""Cold-start re-ranking metrics (docs/methods.md §3): IOU, SERP-MS and PRAG against the neutral list.

I_a is the list recommended to a user with a sensitive attribute, I_n the neutral
list of the same seed. Items repeated within a list count once, at their first
rank (a duplicate is a fidelity fault, recorded elsewhere, not a second vote).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from workbench.methods.coldstart.records import Divergence
from workbench.metrics.support import MIN_SD_UNITS, mean_interval_fields, sd_reason


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def iou(attribute_list: Sequence[str], neutral_list: Sequence[str]) -> float:
    """|I_a ∩ I_n| / |I_a ∪ I_n| over sets; two empty lists score 0."""
    a, n = set(attribute_list), set(neutral_list)
    union = a | n
    return len(a & n) / len(union) if union else 0.0


def serp_ms(attribute_list: Sequence[str], neutral_list: Sequence[str]) -> float:
    """Sum over items of I_a also in I_n of 2(k - r_a(i) + 1) / (k(k + 1)), k = |I_a|:
    agreement weighted towards the top of the attribute list."""
    a, n = _unique(attribute_list), set(neutral_list)
    k = len(a)
    if k == 0:
        return 0.0
    return sum(2 * (k - rank + 1) / (k * (k + 1)) for rank, item in enumerate(a, start=1) if item in n)


def prag(attribute_list: Sequence[str], neutral_list: Sequence[str]) -> float:
    """Share of ordered pairs (i1 before i2 in I_a) where i1 is in I_n and either i2 is
    not, or i1 also comes before i2 in I_n. One item: 1 if the lists are equal, else 0;
    an empty list: 0."""
    a = _unique(attribute_list)
    n_rank = {item: rank for rank, item in enumerate(_unique(neutral_list))}
    if not a:
        return 0.0
    if len(a) == 1:
        return 1.0 if a == _unique(neutral_list) else 0.0
    scored = pairs = 0
    for i, first in enumerate(a):
        for second in a[i + 1 :]:
            pairs += 1
            if first in n_rank and (second not in n_rank or n_rank[first] < n_rank[second]):
                scored += 1
    return scored / pairs


SIMILARITIES = {"iou": iou, "serp": serp_ms, "prag": prag}


# -- the original code's convention ---------------------------------------------------
# The benchmark's published tables (GauthierRoy/biais_llm_rec, `result.py` with
# `utils/metrics.py`) compute SERP-MS and PRAG with the *neutral* list as the ranking
# (`1 - calc(neutral, attribute)`), SERP-MS over the attribute list cut to the neutral
# list's length, each neutral position counted (a repeated item at every rank), and
# skip a persona whose list is empty. These re-derivations reproduce every published
# mean and std (tests/methods/coldstart/test_coldstart.py); the paper's orientation stays the default.


def serp_ms_original(attribute_list: Sequence[str], neutral_list: Sequence[str]) -> float:
    """Sum over neutral positions r (1-based) whose item is among the first k attribute
    items of 2(k - r + 1) / (k(k + 1)), k = |I_n| (repeats in I_n count at each rank)."""
    k = len(neutral_list)
    if k == 0 or not attribute_list:
        return 0.0
    shown = set(attribute_list[:k])
    return sum(2 * (k - r + 1) for r, item in enumerate(neutral_list, start=1) if item in shown) / (k * (k + 1))


def prag_original(attribute_list: Sequence[str], neutral_list: Sequence[str]) -> float:
    """Share of position pairs (i before j in I_n, repeats included) where the item at i
    is in I_a and either the item at j is not, or it comes later in I_a (positions in I_a
    are last occurrences). One neutral item: 1 if the lists are equal, else 0."""
    if not attribute_list or not neutral_list:
        return 0.0
    if len(neutral_list) == 1:
        return 1.0 if list(neutral_list) == list(attribute_list) else 0.0
    last = {item: index for index, item in enumerate(attribute_list)}
    scored = pairs = 0
    for i, first in enumerate(neutral_list):
        for second in neutral_list[i + 1 :]:
            pairs += 1
            if first in last and (second not in last or last[first] < last[second]):
                scored += 1
    return scored / pairs


CONVENTIONS = {
    # The paper's definitions, over the attribute list's order (the default).
    "paper": {"iou": iou, "serp": serp_ms, "prag": prag},
    # The original research code's, reproducing its published tables.
    "original": {"iou": iou, "serp": serp_ms_original, "prag": prag_original},
}


def mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and population standard deviation (as the cold-start paper reports); the standard
    deviation is None under MIN_SD_UNITS values (one seed's is 0 by construction: `spread`)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < MIN_SD_UNITS:
        return mean, None
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def spread(values: Sequence[float]) -> dict:
    """The fields of a mean over seeds beside its mean: the standard deviation and, where it
    is n/a (one seed), why (docs/methods.md, "Minimum support")."""
    mean, std = mean_std(values)
    why = sd_reason(len(values), "seed") if values else None
    return {"mean": mean, "std": std, **({"std_na_reason": why} if why else {})}


def seed_interval(values: Sequence[float]) -> dict:
    """A divergence's 95 % interval over seeds: Student's t, from 3 seeds that differ
    (workbench/metrics/support.py says why not fewer), within 0-1; or why it is n/a."""
    return mean_interval_fields(values, "seed", bounds=(0.0, 1.0))


NO_NEUTRAL = "the neutral list names no catalog item"


def divergence_records(
    study: str, lists: dict[tuple[str, int, str, str], list[str]], convention: str = "paper"
) -> list[Divergence]:
    """`lists`: (model, seed, persona_category, persona) -> ranked items, with the
    baseline under persona_category 'neutral'. One record per model x persona x metric,
    similarity and divergence (1 - similarity), mean and population std over seeds;
    each record names its `convention` (see CONVENTIONS).

    A seed whose neutral list names no catalog item has nothing to compare with: every
    list would diverge fully from it whatever the persona, so the seed is left out
    (counted in `seeds_without_neutral`), and where no seed is left the numbers are None
    with `na_reason`. In both conventions: the benchmark has no such list, and the
    published tables are reproduced either way."""
    similarities = CONVENTIONS[convention]
    neutral = {(m, seed): items for (m, seed, cat, _p), items in lists.items() if cat == "neutral"}
    grouped: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    without_neutral: dict[tuple[str, str, str], int] = {}
    for (model, seed, category, persona), items in lists.items():
        if category == "neutral" or (model, seed) not in neutral:
            continue
        if convention == "original" and not items:
            continue  # the original code skips a persona whose answer named no item
        scores = grouped.setdefault((model, category, persona), {name: [] for name in similarities})
        if not neutral[model, seed]:
            without_neutral[model, category, persona] = without_neutral.get((model, category, persona), 0) + 1
            continue
        for name, fn in similarities.items():
            scores[name].append(fn(items, neutral[model, seed]))
    records = []
    for (model, category, persona), scores in sorted(grouped.items()):
        skipped = without_neutral.get((model, category, persona), 0)
        for name, values in scores.items():
            base = {"convention": convention, "study": study, "model": model, "persona_category": category}
            base.update(persona=persona, n=len(values))
            if skipped:
                base["seeds_without_neutral"] = skipped
            if not values:
                base["na_reason"] = NO_NEUTRAL
            divergences = [1 - v for v in values]
            for metric, series in ((f"{name}_similarity", values), (f"{name}_divergence", divergences)):
                records.append(Divergence(**base, metric=metric, **spread(series), **seed_interval(series)))
    return records
