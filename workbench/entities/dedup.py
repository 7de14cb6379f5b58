"""Suggesting which entities are the same: key collision first, then fuzzy neighbours.

Strict to lax, as in OpenRefine's clustering, all on the words that name the brand
(`name_keys.core_words`: no case, accents, punctuation, legal forms, trailing
places or asides, leading article):
1. `fingerprint`: the same words in any order ("Nike, Inc." / "inc nike" /
   "The Nike Co. (USA)");
2. `ngram`: the same letters once spaces go ("Coca Cola" / "CocaCola", "&" / "and");
3. `nearest`: rapidfuzz similarity of the sorted words at or above a threshold,
   compared only inside blocks (names that share a word prefix, or the start or
   end of the whole string), so the work is far below all pairs. Besides, a name
   written one way and seen at most half as often as another joins it when they are
   one letter apart (two for long names): a misspelling. Two names both seen often need the
   threshold and a little more: "Alder" and "Alden" are more likely two brands.

The methods chain as a reviewer's passes would: what a strict method joins is one
unit for the laxer ones, and every cluster is suggested once, with the laxest
method and the weakest link it needed. A fuzzy link is bounded: the unit joining
must reach the threshold against the cluster's canonical name (its most mentioned
member), so "Alder ~ Alden ~ Alderon" cannot chain. Suggestions never pair
entities a reviewer marked as different.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from workbench.entities.dedup_pairs import DEFAULT_THRESHOLD, blocked_pairs, prepared
from workbench.entities.name_keys import ARTICLES, LEGAL_FORMS, core_words

METHODS = ("fingerprint", "ngram", "nearest")
# A rarely seen name next to a common one: how rare, and how close in letter edits.
RARE_SHARE = 0.5
RARE_FORMS = 1
# Between two names both seen often, the threshold is raised this far towards 100.
SUPPORTED_MARGIN = 0.5
_JOINERS = {"and", "und", "et", "y"}


def fingerprint(text: str) -> str:
    """The name's words (see `name_keys.core_words`), each once, sorted; legal forms
    count nowhere, as word order does not ("Inc Nike")."""
    words = set(core_words(text))
    return " ".join(sorted(words - LEGAL_FORMS or words))


def ngram_fingerprint(text: str, n: int = 2) -> str:
    """The character n-grams of the name's words run together, sorted, repeats kept
    (a set would make "Pann" and "Pannn" one name)."""
    return _grams(_compact(text), n)


def _compact(text: str) -> str:
    return "".join(w for w in core_words(text) if w not in _JOINERS)


def _whole(text: str) -> str:
    """All the name's letters, legal form and article included."""
    return "".join(w for w in core_words(text, strip=False) if w not in _JOINERS)


def _letter_keys(text: str) -> set[str]:
    """The n-gram keys of the name's core and of all its words: a legal form or an
    article run into the name ("WhirlpoolCorporation", "TheNorthFace") is not
    recognised as one, so the name also matches names that keep it."""
    words = [w for w in core_words(text, strip=False) if w not in _JOINERS]
    keys = {ngram_fingerprint(text), _grams("".join(words))}
    if len(words) > 1 and words[0] in ARTICLES:
        keys.add(_grams("".join(words[1:])))
    return keys


def _grams(letters: str, n: int = 2) -> str:
    return " ".join(sorted(letters[i : i + n] for i in range(max(1, len(letters) - n + 1))))


def edit_budget(length: int) -> int:
    """Letter edits a misspelling may make: none in very short names (too many real
    names are one letter apart), one up to seven letters, two beyond."""
    return 0 if length < 4 else 1 if length < 8 else 2


def misspelt(a: tuple[str, ...], b: tuple[str, ...], common: frozenset[str] = frozenset()) -> bool:
    """Whether one name (as words) is a misspelling of the other: within the edit
    budget of the whole, and, when the words line up, of each word of its own that
    differs (so "University of Trento" is no misspelling of "University of
    Toronto"); a common word ("Systems") may take the whole budget."""
    whole_a, whole_b = "".join(a), "".join(b)
    budget = edit_budget(min(len(whole_a), len(whole_b)))
    if not budget or OSA.distance(whole_a, whole_b, score_cutoff=budget) > budget:
        return False
    if len(a) != len(b):  # a space moved ("Torp at"): only the whole can be compared
        return True
    for x, y in zip(a, b):
        if x != y and x not in common and y not in common:
            allowed = edit_budget(min(len(x), len(y)))
            if not allowed or OSA.distance(x, y, score_cutoff=allowed) > allowed:
                return False
    return True


@dataclass
class Suggestion:
    canonical: str  # proposed name: the most mentioned member
    members: list[str]
    counts: list[int]  # mentions of each member
    score: float  # 100 for key collisions; the weakest link's similarity for `nearest`
    method: str  # the laxest method the cluster needed
    # per member, how it joined: "fingerprint", "ngram", "nearest 93" (similar at the threshold) or
    # "misspelling 83" (a rarely seen name a letter or two from a common one, below the threshold)
    reasons: list[str] = field(default_factory=list)

    def as_record(self) -> dict:
        return {
            "canonical": self.canonical,
            "members": self.members,
            "counts": self.counts,
            "score": round(self.score, 2),
            "method": self.method,
            "reasons": self.reasons,
        }


class _Components:
    """Union-find over entity indices, refusing unions across forbidden pairs; each
    component knows its canonical member (most mentions) and total mentions."""

    def __init__(
        self, names: list[str], counts: list[int], forbidden: set[tuple[int, int]], variety: list[int] | None = None
    ):
        size = len(names)
        self.parent = list(range(size))
        self.members: dict[int, set[int]] = {i: {i} for i in range(size)}
        self.forbidden = forbidden
        self.mentions = list(counts)
        self.canonical = list(range(size))
        # The canonical name: most mentioned; on a tie, the one written in most ways
        # (a misspelling is written one way), then alphabetical.
        variety = variety or [1] * size
        self._rank = [(-counts[i], -variety[i], names[i]) for i in range(size)]

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        if self.forbidden and any(
            (min(x, y), max(x, y)) in self.forbidden for x in self.members[ra] for y in self.members[rb]
        ):
            return False
        if len(self.members[ra]) < len(self.members[rb]):
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.members[ra] |= self.members.pop(rb)
        self.mentions[ra] += self.mentions[rb]
        ca, cb = self.canonical[ra], self.canonical[rb]
        self.canonical[ra] = min(ca, cb, key=self._rank.__getitem__)
        return True


class _Linker:
    """Decides whether two clusters' canonical names are near enough to join.

    Words shared by many names ("Bank", "Systems", "University of") say little
    about which brand is meant, yet they make "Alder Systems" and "Alden Systems"
    look 92 % alike; so a link must also hold on the names' own words (those that
    are not common), and only the rare-misspelling rule looks at the whole name.
    """

    def __init__(self, names: list[str], threshold: float, scorer: str, common_share: float = 0.002):
        self.names = names
        self.threshold = threshold
        self.strict = threshold + (100.0 - threshold) * SUPPORTED_MARGIN
        self.scorer = scorer
        self._processed, self._score = prepared(names, scorer)
        self._words = [tuple(w for w in core_words(n) if w not in _JOINERS) for n in names]
        self._all_words = [tuple(w for w in core_words(n, strip=False) if w not in _JOINERS) for n in names]
        self._digits = [re.findall(r"\d+", " ".join(w)) for w in self._all_words]
        frequency: dict[str, int] = defaultdict(int)
        for name in names:
            for word in set(core_words(name, strip=False)):
                frequency[word] += 1
        limit = max(5, int(common_share * len(names)))
        # Legal forms are common by nature, however rare in this list.
        self._common = frozenset(w for w, n in frequency.items() if n > limit) | LEGAL_FORMS
        self._own = []
        for processed in self._processed:
            own = [w for w in processed.split() if w not in self._common]
            self._own.append(" ".join(own) if own else processed)

    def candidates(self, indices: list[int]) -> dict[tuple[int, int], float]:
        """Pairs (positions in `indices`) similar enough to be looked at: the names as
        prepared once for scoring, compared within blocks."""
        return blocked_pairs(
            [self._processed[i] for i in indices], self._score, self.floor(), wratio=self.scorer == "WRatio"
        )

    def floor(self) -> float:
        """The lowest similarity a misspelling can have, for the candidate search."""
        return min(self.threshold, 70.0)

    def accepts(
        self, i: int, j: int, support_i: tuple[int, int], support_j: tuple[int, int]
    ) -> tuple[float, str] | None:
        """The link's score (similarity of the whole names) and its rule ("nearest", or
        "misspelling" for a rare name's letter edits) when i and j may join, else None.
        A support is (mentions, surface forms) of the cluster each name stands for."""
        if self._digits[i] != self._digits[j]:  # "Terminator 2" / "Terminator 3", "Collision 1" / "2"
            return None
        score = float(self._score(self._processed[i], self._processed[j]))
        small, large = sorted((support_i, support_j))
        rare = small[0] <= RARE_SHARE * large[0] and small[1] <= RARE_FORMS
        # Both seen often: their own words must agree beyond the threshold.
        if score >= self.threshold and self._score(self._own[i], self._own[j]) >= (
            self.threshold if rare else self.strict
        ):
            return score, "nearest"
        if rare:
            # A misspelling may hit the legal form too ("Vector Limted").
            for words in (self._words, self._all_words):
                if misspelt(words[i], words[j], self._common):
                    return score, "misspelling"
        return None


def suggest(
    names: list[str],
    counts: list[int] | None = None,
    *,
    methods: Iterable[str] = METHODS,
    threshold: float = DEFAULT_THRESHOLD,
    scorer: str = "token_sort_ratio",
    forbidden: Iterable[tuple[str, str]] = (),
) -> list[Suggestion]:
    """Clusters of entity names; strict methods make units that laxer ones join."""
    methods = list(methods)
    if not 0 <= threshold <= 100:  # also refuses nan
        raise ValueError(f"threshold {threshold} is outside 0-100")
    for method in methods:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
    counts = list(counts) if counts else [1] * len(names)
    index = {name: i for i, name in enumerate(names)}
    banned = {(min(index[a], index[b]), max(index[a], index[b])) for a, b in forbidden if a in index and b in index}
    keys = [fingerprint(name) for name in names]
    ways = Counter(keys)
    components = _Components(names, counts, banned, [ways[k] for k in keys])
    reason: dict[int, tuple[str, float]] = {}  # how each name first joined another
    laxest: dict[int, tuple[int, float]] = {}  # per root: (method rank, weakest score)

    def link(i: int, j: int, method: str, score: float, rule: str | None = None) -> None:
        ri, rj = components.find(i), components.find(j)
        if ri == rj or not components.union(i, j):
            return
        rank = METHODS.index(method)
        before = [laxest.get(ri, (0, 100.0)), laxest.get(rj, (0, 100.0))]
        laxest.pop(ri, None)
        laxest.pop(rj, None)
        laxest[components.find(i)] = (max(rank, *(b[0] for b in before)), min(score, *(b[1] for b in before)))
        for k in (i, j):
            reason.setdefault(k, (rule or method, score))

    for method in METHODS:  # always strict to lax, whatever order they were asked in
        if method not in methods:
            continue
        if method in ("fingerprint", "ngram"):
            by_key: dict[str, list[int]] = defaultdict(list)
            for i, name in enumerate(names):
                for key in [keys[i]] if method == "fingerprint" else _letter_keys(name):
                    by_key[key].append(i)
            for group in by_key.values():
                for other in group[1:]:
                    link(group[0], other, method, 100.0)
        else:
            _nearest(names, components, link, _Linker(names, threshold, scorer))

    out = []
    for root, members in components.members.items():
        if len(members) < 2:
            continue
        ordered = sorted(members, key=components._rank.__getitem__)
        rank, weakest = laxest.get(root, (0, 100.0))
        reasons = [_reason(*reason[i]) if i in reason else "" for i in ordered]
        out.append(
            Suggestion(
                names[ordered[0]],
                [names[i] for i in ordered],
                [counts[i] for i in ordered],
                weakest,
                METHODS[rank],
                reasons,
            )
        )
    out.sort(key=lambda s: (METHODS.index(s.method), -s.score, -sum(s.counts), s.canonical))
    return out


def _one_edit_pairs(*spellings: list[str], largest: int = 50) -> set[tuple[int, int]]:
    """Pairs one letter edit apart (a deletion, insertion, substitution or swap) in
    any of the spellings given per index, by the symmetric-delete trick: such
    strings share a string with one letter deleted."""
    by_key: dict[str, list[int]] = defaultdict(list)
    for index, texts in enumerate(zip(*spellings)):
        keys: set[str] = set()
        for text in texts:
            if 4 <= len(text) <= 40:  # long names share prefix or suffix blocks; keys grow as length squared
                keys.add(text)
                keys.update(text[:k] + text[k + 1 :] for k in range(len(text)))
        for key in keys:
            by_key[key].append(index)
    pairs: set[tuple[int, int]] = set()
    for members in by_key.values():
        if 1 < len(members) <= largest:
            pairs.update(itertools.combinations(members, 2))
    return pairs


def _reason(rule: str, score: float) -> str:
    return f"{rule} {score:.0f}" if rule in ("nearest", "misspelling") else rule


def _nearest(names: list[str], components: _Components, link, linker: _Linker) -> None:
    """Join units by similarity, best pairs first, each join bounded by the canonicals."""
    roots = sorted({components.find(i) for i in range(len(names))})
    canon = [components.canonical[r] for r in roots]
    candidates = linker.candidates(canon)
    # Misspellings that also move a space ("Torp at" / "Torapt") only show letter by letter.
    compact = [_compact(names[i]) for i in canon]
    for pair, score in blocked_pairs(compact, fuzz.ratio, linker.floor()).items():
        candidates.setdefault(pair, score)
    # One letter off at both ends of a short name ("Vinyel" / "Viynel") shares no
    # block; a misspelt legal form ("Vector Limted") is one letter from the whole name.
    near = [pair for pair in _one_edit_pairs(compact, [_whole(names[i]) for i in canon]) if pair not in candidates]
    if near:
        scores = process.cpdist(
            [compact[a] for a, _ in near], [compact[b] for _, b in near], scorer=fuzz.ratio, workers=-1
        )
        candidates.update(zip(near, scores.tolist()))
    for (a, b), _ in sorted(candidates.items(), key=lambda kv: (-kv[1], kv[0])):
        ra, rb = components.find(canon[a]), components.find(canon[b])
        if ra == rb:
            continue
        ca, cb = components.canonical[ra], components.canonical[rb]
        accepted = linker.accepts(
            ca,
            cb,
            (components.mentions[ra], len(components.members[ra])),
            (components.mentions[rb], len(components.members[rb])),
        )
        if accepted is not None:
            link(ca, cb, "nearest", accepted[0], accepted[1])


@dataclass
class EntityIndex:
    """What `suggest` needs from the store: names, mention counts, forbidden pairs."""

    names: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    forbidden: list[tuple[str, str]] = field(default_factory=list)


def load_entities(conn, study: str | None = None) -> EntityIndex:
    """Entities that are mentioned (in a study, or anywhere), with their mention counts."""
    from workbench.store.entities.decisions import forbidden_names, mentioned_entities

    rows = mentioned_entities(conn, study)
    return EntityIndex([r[0] for r in rows], [r[1] for r in rows], forbidden_names(conn))
