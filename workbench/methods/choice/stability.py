"""ChoiceEval's stability across repetitions (docs/methods.md §1): Spearman's rho for every
pair of repetitions and Kruskal-Wallis across them, over the counts of the most frequent
entities, computed as scipy.stats does without its per-call cost."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from workbench.methods.choice.counts import ResponseList, presence_of
from workbench.methods.choice.counts import finite as _finite


@dataclass(frozen=True)
class Stability:
    entities: list[str]  # the top-N pooled entities
    counts: dict[int, list[int]]  # repetition -> counts of those entities
    spearman: list[tuple[int, int, float | None, float | None]]  # (rep a, rep b, rho, p), a > b
    kruskal: tuple[float | None, float | None]  # (H, p)
    # why a pair's rho and p are n/a though defined, by (rep a, rep b); why Kruskal-Wallis' p is
    spearman_na: dict[tuple[int, int], str] = field(default_factory=dict)
    kruskal_na: str | None = None


def stability(
    lists: Sequence[ResponseList],
    top_n: int = 10,
    per_rep: dict[int, Counter[str]] | None = None,
    pooled: Counter[str] | None = None,
) -> Stability:
    """Spearman's rho for every pair of repetitions and Kruskal–Wallis across them,
    over the counts of the N most frequent entities pooled over all repetitions.
    `per_rep`: the presence counts per repetition, when the caller has them already;
    `pooled`: their sum (the scope's presence counts), likewise."""
    if per_rep is None:
        by_rep: dict[int, list[ResponseList]] = {}
        for item in lists:
            by_rep.setdefault(item.repetition, []).append(item)
        per_rep = {rep: presence_of(items) for rep, items in by_rep.items()}
    if pooled is None:
        pooled = Counter()
        for counted in per_rep.values():  # in place: `sum` of Counters builds a new one per repetition
            pooled.update(counted)
    top = [e for e, _ in heapq.nsmallest(top_n, pooled.items(), key=lambda kv: (-kv[1], kv[0]))]
    reps = sorted(per_rep)
    counts = {r: [per_rep[r][e] for e in top] for r in reps}
    rho, p = spearman_matrix([counts[r] for r in reps])
    # undefined for constant or tiny vectors
    usable = [len(top) >= 3 and len(set(counts[r])) >= 2 for r in reps]
    pairs, unsupported = [], {}
    for i, j in combinations(range(len(reps)), 2):
        defined = usable[i] and usable[j]
        why = _spearman_support(counts[reps[j]], counts[reps[i]]) if defined else None
        if why:  # a rank correlation no arrangement of these counts could tell from chance
            unsupported[reps[j], reps[i]] = why
            defined = False
        pairs.append((reps[j], reps[i], _finite(rho[j, i]) if defined else None, _finite(p[j, i]) if defined else None))
    samples = [counts[r] for r in reps]
    h, h_p = kruskal(samples)
    kruskal_na = _kruskal_support(samples) if h_p is not None else None
    if kruskal_na:
        h_p = None
    return Stability(top, counts, pairs, (h, h_p), unsupported, kruskal_na)


def _spearman_support(a: list[int], b: list[int]) -> str | None:
    """Why a pair's Spearman rho is n/a though defined: its p comes from Student's t, which
    reaches 0 for any n, but a permutation test of so few entities (and these ties) could not
    give p < 0.05 (3 entities: 0.33 at best, 4: 0.083): workbench/metrics/support.py."""
    from workbench.metrics.support import floor_reason, spearman_floor

    return floor_reason("Spearman", f"{len(a)} entities", spearman_floor(a, b))


def _kruskal_support(samples: list[list[int]]) -> str | None:
    """Why Kruskal-Wallis' p is n/a though defined: a permutation test of these groups could
    not give p < 0.05 (its chi-square p reaches far lower than the data can)."""
    from workbench.metrics.support import floor_reason, kruskal_floor

    sizes = f"{len(samples)} x {len(samples[0]) if samples else 0} counts"  # repetitions x entities
    return floor_reason("Kruskal-Wallis", sizes, kruskal_floor(samples))


def spearman_matrix(samples: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Spearman's rho and its two-sided p for every pair of samples at once: what
    `scipy.stats.spearmanr(x, y)` gives for each pair (ranks, their Pearson correlation,
    p from Student's t with n - 2 degrees of freedom), in one pass instead of one call per
    pair (a call's overhead made the pairs of 800 scopes cost more than all the counting).
    Pairs involving a constant or a tiny sample come out nan (the caller reports None)."""
    k = len(samples)
    n = len(samples[0]) if samples else 0
    if k < 2 or n < 3:
        return np.full((k, k), np.nan), np.full((k, k), np.nan)
    from scipy import special

    from workbench.metrics.lean_tests import average_ranks

    ranks = average_ranks(np.asarray(samples, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.corrcoef(ranks)
        dof = n - 2
        t = rho * np.sqrt((dof / ((rho + 1.0) * (1.0 - rho))).clip(0))
        p = 2 * special.stdtr(dof, -np.abs(t))
    return rho, p


def kruskal(samples: list[list[int]]) -> tuple[float | None, float | None]:
    """Kruskal-Wallis H (tie-corrected) and its chi-square p, as `scipy.stats.kruskal`
    computes them, step for step: a call of it cost more than the test itself."""
    usable = [s for s in samples if s]
    if len(usable) < 2 or len({v for s in usable for v in s}) < 2:
        return None, None
    from scipy import special

    data = np.concatenate([np.asarray(s, dtype=float) for s in usable])
    total = data.size
    _, inverse, ties = np.unique(data, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(ties) - (ties - 1) / 2.0)[inverse]  # average ranks: the middle of each run of ties
    t = ties.astype(float)
    tie = 1 - np.sum(t**3 - t) / (total**3 - total)
    bounds = np.cumsum([0] + [len(s) for s in usable])
    ssbn = sum(np.sum(ranks[bounds[i] : bounds[i + 1]]) ** 2 / len(s) for i, s in enumerate(usable))
    h = (12.0 / (total * (total + 1)) * ssbn - 3 * (total + 1)) / tie
    return _finite(h), _finite(special.chdtrc(len(usable) - 1, h))
