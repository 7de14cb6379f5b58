"""Identity-disclosure metrics (docs/methods.md §2): Mean Share, Coverage, condition vs baseline."""

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


STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
nor not now of off on once only or other our ours ourselves out over own same she should so some such than that
the their theirs them themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself yourselves""".split()
)


def explanation_words(
    explanations: Sequence[tuple[str, str, set[str]]], min_count: int = 5, top: int = 10
) -> dict[str, list[tuple[str, float, int]]]:
    """Words that characterise each group's explanations (docs/methods.md §2).

    `explanations`: (group, text, words to exclude — the query's and the entities' own).
    Score(w, g) = (count of w in g's explanations + 1) / (count of w in all + G): the share
    of a word's uses that fall to the group, smoothed so rare words do not dominate; words
    used fewer than `min_count` times in all are left out. Returns group -> [(word, score, count)].
    """
    import re

    per_group: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    for group, text, exclude in explanations:
        counts = per_group.setdefault(group, {})
        for word in re.findall(r"[a-z][a-z'-]+", text.lower()):
            if word in STOPWORDS or word in exclude:
                continue
            counts[word] = counts.get(word, 0) + 1
            totals[word] = totals.get(word, 0) + 1
    groups = len(per_group) or 1
    out = {}
    for group, counts in per_group.items():
        scored = [(w, (c + 1) / (totals[w] + groups), totals[w]) for w, c in counts.items() if totals[w] >= min_count]
        out[group] = sorted(scored, key=lambda x: (-x[1], -x[2], x[0]))[:top]
    return out
