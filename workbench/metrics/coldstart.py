"""Cold-start re-ranking metrics (METHODS.md §3): IOU, SERP-MS and PRAG against the neutral list.

I_a is the list recommended to a user with a sensitive attribute, I_n the neutral
list of the same seed. Items repeated within a list count once, at their first
rank (a duplicate is a fidelity fault, recorded elsewhere, not a second vote).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


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


def mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and population standard deviation (as the cold-start paper reports)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def divergence_records(study: str, lists: dict[tuple[str, int, str, str], list[str]]) -> list[dict]:
    """`lists`: (model, seed, persona_category, persona) -> ranked items, with the
    baseline under persona_category 'neutral'. One record per model x persona x metric,
    similarity and divergence (1 - similarity), mean and population std over seeds."""
    neutral = {(m, seed): items for (m, seed, cat, _p), items in lists.items() if cat == "neutral"}
    grouped: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for (model, seed, category, persona), items in lists.items():
        if category == "neutral" or (model, seed) not in neutral:
            continue
        scores = grouped.setdefault((model, category, persona), {name: [] for name in SIMILARITIES})
        for name, fn in SIMILARITIES.items():
            scores[name].append(fn(items, neutral[model, seed]))
    records = []
    for (model, category, persona), scores in sorted(grouped.items()):
        for name, values in scores.items():
            base = {"study": study, "model": model, "persona_category": category, "persona": persona,
                    "n": len(values)}
            mean, std = mean_std(values)
            records.append({**base, "metric": f"{name}_similarity", "mean": mean, "std": std})
            mean, std = mean_std([1 - v for v in values])
            records.append({**base, "metric": f"{name}_divergence", "mean": mean, "std": std})
    return records
