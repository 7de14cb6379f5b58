"""Pairs of names at or above a similarity, for `dedup`'s `nearest` method: compared within
blocks (names sharing the start or end of the string, or a word's first letters), big
blocks as one rapidfuzz matrix each; `exhaustive_pairs` is all pairs, the reference."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from rapidfuzz import fuzz, process

from workbench.entities.name_keys import core_words

DEFAULT_THRESHOLD = 90.0
SCORERS = {
    "token_sort_ratio": fuzz.ratio,
    "ratio": fuzz.ratio,
    "token_set_ratio": fuzz.token_set_ratio,
    "WRatio": fuzz.WRatio,
}


def _blocks(processed: list[str], prefix: int = 3, common_share: float = 0.02) -> dict[str, list[int]]:
    """Blocking keys: the start and end of the string, and the first letters of each
    of its words that are not common (a word in more than `common_share` of the
    names, like "Bank" or "Sport", makes a huge block that rarely holds a match the
    other keys miss)."""
    blocks: dict[str, list[int]] = defaultdict(list)
    word_blocks: dict[str, list[int]] = defaultdict(list)
    for index, text in enumerate(processed):
        for key in {"^" + text[:prefix], "$" + text[-prefix:]}:
            blocks[key].append(index)
        for key in {"w" + word[:prefix] for word in text.split() if len(word) >= 2}:
            word_blocks[key].append(index)
    limit = max(50, int(common_share * len(processed)))
    for key, members in word_blocks.items():
        if len(members) <= limit:
            blocks[key] = members
    return blocks


def prepared(names: list[str], scorer: str):
    """Strings ready for cdist (the sorted words of each name's core, so
    token_sort_ratio becomes plain ratio, computed once) and the scorer."""
    if scorer not in SCORERS:
        raise ValueError(f"unknown scorer {scorer!r} (expected one of {', '.join(sorted(SCORERS))})")
    if scorer == "token_sort_ratio":
        return [" ".join(sorted(core_words(n))) for n in names], fuzz.ratio
    return [" ".join(core_words(n)) for n in names], SCORERS[scorer]


def similar_pairs(
    names: list[str], threshold: float = DEFAULT_THRESHOLD, scorer: str = "token_sort_ratio", max_block: int = 4000
) -> dict[tuple[int, int], float]:
    """Pairs (i < j) scoring at least `threshold`, compared within blocks only."""
    processed, score_fn = prepared(names, scorer)
    return blocked_pairs(processed, score_fn, threshold, max_block, wratio=scorer == "WRatio")


def blocked_pairs(
    processed: list[str], score_fn, threshold: float, max_block: int = 4000, wratio: bool = False, small: int = 48
) -> dict[tuple[int, int], float]:
    """Pairs at or above the threshold within blocks: big blocks as one matrix each,
    the many small ones as a single list of pairs (a matrix call per tiny block
    would cost more in calls than in comparisons)."""
    pairs: dict[tuple[int, int], float] = {}
    few: set[tuple[int, int]] = set()
    dtype = None if wratio else np.uint8
    for members in _blocks(processed).values():
        if len(members) < 2:
            continue
        if len(members) <= small:
            few.update((i, j) if i < j else (j, i) for n, i in enumerate(members) for j in members[n + 1 :] if i != j)
            continue
        for start in range(0, len(members), max_block):
            chunk = members[start : start + max_block]
            rows = [processed[i] for i in chunk]
            matrix = process.cdist(rows, rows, scorer=score_fn, score_cutoff=threshold, workers=-1, dtype=dtype)
            hits = np.argwhere(np.triu(matrix >= threshold, k=1))
            for a, b in hits:
                i, j = chunk[a], chunk[b]
                key = (i, j) if i < j else (j, i)
                pairs[key] = max(pairs.get(key, 0.0), float(matrix[a, b]))
    if few:
        listed = [pair for pair in few if pair not in pairs]
        scores = process.cpdist(
            [processed[i] for i, _ in listed],
            [processed[j] for _, j in listed],
            scorer=score_fn,
            score_cutoff=threshold,
            workers=-1,
            dtype=dtype,
        )
        for pair, value in zip(listed, scores.tolist()):
            if value >= threshold:
                pairs[pair] = float(value)
    return pairs


def exhaustive_pairs(
    names: list[str], threshold: float = DEFAULT_THRESHOLD, scorer: str = "token_sort_ratio"
) -> dict[tuple[int, int], float]:
    """All pairs at or above the threshold, by brute force (the reference for blocking)."""
    processed, score_fn = prepared(names, scorer)
    matrix = process.cdist(
        processed,
        processed,
        scorer=score_fn,
        score_cutoff=threshold,
        workers=-1,
        dtype=np.uint8 if scorer != "WRatio" else None,
    )
    hits = np.argwhere(np.triu(matrix >= threshold, k=1))
    return {(int(i), int(j)): float(matrix[i, j]) for i, j in hits}
