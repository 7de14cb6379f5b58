"""Suggesting which entities are the same: key collision first, then fuzzy neighbours.

Strict to lax, as in OpenRefine's clustering:
1. `fingerprint`: same words whatever the case, accents, punctuation and order
   ("Nike, Inc." / "inc nike");
2. `ngram`: same character bigrams once spaces and punctuation go ("Coca Cola" /
   "CocaCola");
3. `nearest`: rapidfuzz similarity at or above a threshold, computed with
   `process.cdist` only inside blocks (strings that share a word prefix, or
   the start or end of the whole string), so the work is far below all pairs.
Suggestions are over entities (what reviewers have already merged stays one
unit) and never pair entities a reviewer marked as different.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz, process, utils

METHODS = ("fingerprint", "ngram", "nearest")
DEFAULT_THRESHOLD = 90.0
SCORERS = {"token_sort_ratio": fuzz.token_sort_ratio, "ratio": fuzz.ratio, "token_set_ratio": fuzz.token_set_ratio,
           "WRatio": fuzz.WRatio}


def _ascii_lower(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


# Legal forms say nothing about which brand is meant ("Nike" / "Nike, Inc.").
LEGAL_FORMS = {"inc", "incorporated", "ltd", "limited", "llc", "co", "corp", "corporation", "company", "gmbh",
               "ag", "sa", "plc", "nv", "bv", "spa", "srl", "kk", "oy", "ab", "as"}


def fingerprint(text: str) -> str:
    """Case, accents, punctuation, word order and legal forms (Inc., GmbH, ...) ignored;
    each word once."""
    words = set(re.sub(r"[^\w\s]", " ", _ascii_lower(text)).split())
    meaningful = words - LEGAL_FORMS
    return " ".join(sorted(meaningful or words))


def ngram_fingerprint(text: str, n: int = 2) -> str:
    """The sorted set of character n-grams once spaces and punctuation are gone."""
    letters = re.sub(r"[\W_]", "", _ascii_lower(text))
    grams = {letters[i : i + n] for i in range(max(1, len(letters) - n + 1))}
    return "".join(sorted(grams))


@dataclass
class Suggestion:
    canonical: str  # proposed name: the most mentioned member
    members: list[str]
    counts: list[int]  # mentions of each member
    score: float  # 100 for key collisions; the weakest link's similarity for `nearest`
    method: str

    def as_record(self) -> dict:
        return {"canonical": self.canonical, "members": self.members, "counts": self.counts,
                "score": round(self.score, 2), "method": self.method}


class _Components:
    """Union-find over entity indices, refusing unions across forbidden pairs."""

    def __init__(self, size: int, forbidden: set[tuple[int, int]]):
        self.parent = list(range(size))
        self.members: dict[int, set[int]] = {i: {i} for i in range(size)}
        self.forbidden = forbidden

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        if self.forbidden and any((min(x, y), max(x, y)) in self.forbidden
                                  for x in self.members[ra] for y in self.members[rb]):
            return False
        self.parent[rb] = ra
        self.members[ra] |= self.members.pop(rb)
        return True


def _blocks(processed: list[str], prefix: int = 3, common_share: float = 0.02) -> dict[str, list[int]]:
    """Blocking keys: the start and end of the string, and the first letters of each
    of its words that are not common (a word in more than `common_share` of the
    names, like "Inc" or "Sport", makes a huge block that rarely holds a match the
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


def _prepared(names: list[str], scorer: str):
    """Strings ready for cdist, and the scorer to use on them. token_sort_ratio is
    ratio on words sorted once up front, which spares cdist re-sorting each pair."""
    processed = [utils.default_process(n) for n in names]
    if scorer == "token_sort_ratio":
        return [" ".join(sorted(p.split())) for p in processed], fuzz.ratio
    return processed, SCORERS[scorer]


def similar_pairs(names: list[str], threshold: float = DEFAULT_THRESHOLD, scorer: str = "token_sort_ratio",
                  max_block: int = 4000) -> dict[tuple[int, int], float]:
    """Pairs (i < j) scoring at least `threshold`, compared within blocks only."""
    processed, score_fn = _prepared(names, scorer)
    pairs: dict[tuple[int, int], float] = {}
    for members in _blocks(processed).values():
        if len(members) < 2:
            continue
        for start in range(0, len(members), max_block):
            chunk = members[start : start + max_block]
            rows = [processed[i] for i in chunk]
            matrix = process.cdist(rows, rows, scorer=score_fn, score_cutoff=threshold, workers=-1,
                                   dtype=np.uint8 if scorer != "WRatio" else None)
            hits = np.argwhere(np.triu(matrix >= threshold, k=1))
            for a, b in hits:
                i, j = chunk[a], chunk[b]
                key = (i, j) if i < j else (j, i)
                pairs[key] = max(pairs.get(key, 0.0), float(matrix[a, b]))
    return pairs


def exhaustive_pairs(names: list[str], threshold: float = DEFAULT_THRESHOLD,
                     scorer: str = "token_sort_ratio") -> dict[tuple[int, int], float]:
    """All pairs at or above the threshold, by brute force (the reference for recall)."""
    processed, score_fn = _prepared(names, scorer)
    matrix = process.cdist(processed, processed, scorer=score_fn, score_cutoff=threshold, workers=-1,
                           dtype=np.uint8 if scorer != "WRatio" else None)
    hits = np.argwhere(np.triu(matrix >= threshold, k=1))
    return {(int(i), int(j)): float(matrix[i, j]) for i, j in hits}


def suggest(names: list[str], counts: list[int] | None = None, *, methods: Iterable[str] = METHODS,
            threshold: float = DEFAULT_THRESHOLD, scorer: str = "token_sort_ratio",
            forbidden: Iterable[tuple[str, str]] = ()) -> list[Suggestion]:
    """Clusters of entity names, strict methods first, each cluster suggested once."""
    counts = counts or [1] * len(names)
    index = {name: i for i, name in enumerate(names)}
    banned = {(min(index[a], index[b]), max(index[a], index[b])) for a, b in forbidden if a in index and b in index}
    taken: set[int] = set()
    out: list[Suggestion] = []

    def emit(groups: list[list[int]], method: str, scores: dict[int, float]) -> None:
        for group in groups:
            group = [i for i in group if i not in taken]
            if len(group) < 2:
                continue
            group.sort(key=lambda i: (-counts[i], names[i]))
            taken.update(group)
            out.append(Suggestion(names[group[0]], [names[i] for i in group], [counts[i] for i in group],
                                  scores.get(group[0], 100.0), method))

    for method in methods:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
        components = _Components(len(names), banned)
        if method in ("fingerprint", "ngram"):
            key_of = fingerprint if method == "fingerprint" else ngram_fingerprint
            by_key: dict[str, list[int]] = defaultdict(list)
            for i, name in enumerate(names):
                if i not in taken:
                    by_key[key_of(name)].append(i)
            for group in by_key.values():
                for other in group[1:]:
                    components.union(group[0], other)
            emit(_groups(components), method, {})
        else:
            pairs = similar_pairs(names, threshold, scorer)
            weakest: dict[int, float] = {}
            for (i, j), score in sorted(pairs.items(), key=lambda kv: -kv[1]):
                if i in taken or j in taken:
                    continue
                if components.union(i, j):
                    root = components.find(i)
                    weakest[root] = min(weakest.get(root, 100.0), score)
            groups = _groups(components)
            scores = {}
            for group in groups:
                root = components.find(group[0])
                ordered = sorted(group, key=lambda i: (-counts[i], names[i]))
                scores[ordered[0]] = weakest.get(root, threshold)
            emit(sorted(groups, key=lambda g: -weakest.get(components.find(g[0]), 0)), method, scores)
    return out


def _groups(components: _Components) -> list[list[int]]:
    return [sorted(members) for members in components.members.values() if len(members) > 1]


@dataclass
class EntityIndex:
    """What `suggest` needs from the store: names, mention counts, forbidden pairs."""

    names: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    forbidden: list[tuple[str, str]] = field(default_factory=list)


def load_entities(conn, study: str | None = None) -> EntityIndex:
    """Entities that are mentioned (in a study, or anywhere), with their mention counts."""
    where, args = ("AND l.study_id = (SELECT id FROM studies WHERE name = ?)", (study,)) if study else ("", ())
    rows = conn.execute(
        f"""
        SELECT e.name, COUNT(*) FROM mentions m
        JOIN mention_lists l ON l.id = m.list_id
        JOIN aliases a ON a.surface_key = m.surface_key
        JOIN entities e ON e.id = a.entity_id
        WHERE 1 = 1 {where}
        GROUP BY e.id ORDER BY e.name
        """,
        args,
    ).fetchall()
    forbidden = conn.execute("SELECT a.name, b.name FROM forbidden_pairs f JOIN entities a ON a.id = f.entity_a "
                             "JOIN entities b ON b.id = f.entity_b").fetchall()
    return EntityIndex([r[0] for r in rows], [r[1] for r in rows], [(a, b) for a, b in forbidden])
