"""Identity-disclosure metrics (METHODS.md §2): Mean Share, Coverage, condition vs baseline."""

from __future__ import annotations

from collections.abc import Sequence


def mean_share(items: Sequence[str], shares: dict[str, float]) -> float | None:
    """Mean over recommended items (those in the reference table) of the group's share."""
    known = [shares[i] for i in items if i in shares]
    return sum(known) / len(known) if known else None


def coverage(items: Sequence[str], counts: dict[str, float], group_total: float) -> float | None:
    """Sum over the distinct items recommended to the group of (#group in item) / N_group."""
    if not group_total:
        return None
    return sum(counts.get(i, 0.0) for i in set(items)) / group_total


def compare_to_baseline(condition: Sequence[float], baseline: Sequence[float]) -> dict[str, float | None]:
    """Difference of means and a two-sided Mann–Whitney U test (p < 0.05 marked by the caller)."""
    from scipy import stats

    if not condition or not baseline:
        return {"difference": None, "u": None, "p": None}
    difference = sum(condition) / len(condition) - sum(baseline) / len(baseline)
    if len(set(condition) | set(baseline)) < 2:
        return {"difference": difference, "u": None, "p": None}
    result = stats.mannwhitneyu(condition, baseline, alternative="two-sided")
    return {"difference": difference, "u": float(result.statistic), "p": float(result.pvalue)}
