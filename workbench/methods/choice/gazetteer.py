"""Known names found in answer text: a deterministic extraction with no model.

A gazetteer is a CSV file of the names an audit looks for: `name` (the entity, as every
table shows it), optional `spellings` (other ways to write it, separated by `|`: "iPhone"
for Apple, "Hoka One One" for Hoka) and optional `topic` (the topics whose answers it is
sought in, separated by `|`; empty: every topic; each one of the study's, case and spacing
aside, or the study is refused). Any other column (region, country) is for
`workbench import entities`, which reads the same file.

An answer's list is the entities whose spellings appear in it, in the order they first
appear, each once. A name is matched on whole words of the text, blind to case, accents,
punctuation and spacing ("New Balance" finds "NewBalance", "Li-Ning" finds "Li Ning"),
never inside another word ("Anta" is not in "Santa"). Near spellings count too: a name of
6-9 letters may be one edit away ("Adidass", "Samsnug"), a longer one two, written in as many
words and with the same first letter; a shorter one must be exact. A plural or possessive is
the name ("Nikes", "Hokas", "Asics'"). A spelling that begins with a capital letter matches
only text that does ("apple juice" is not Apple): names are proper nouns. A match made of
common words ("On", "Fellow", "Nothing") at the start of a sentence counts only when what
follows reads as a name, and a near spelling that is a common word ("Salmon") never does
(workbench/methods/choice/gazetteer_words.py); each match says its kind, exact, near spelling or common
word, so a reviewer can check the last two. Where two names overlap, the exact one wins,
then the longer one. Every name found is a stretch of the answer (grounded by construction);
what it cannot tell is whether the answer recommends the name or warns against it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from workbench.errors import GazetteerError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.methods.choice.gazetteer_words import in_lists, is_common, list_item, reads_as_name, sentence_start

_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits: the units a name is made of
# Names longer than this many words are not sought across more words than that.
MAX_WORDS = 8


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


def topic_key(topic: str) -> str:
    """A topic as compared: case and spacing ignored, as clusters and regions are matched
    ("Running  Shoes" is the study's "running shoes")."""
    return " ".join(topic.split()).casefold()


def allowed_edits(length: int) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) a near spelling may differ by:
    none under 6 letters (too many words are one edit from a short name: "Apply", "Basics"),
    one up to 9, two beyond."""
    return 0 if length < 6 else 1 if length <= 9 else 2


@dataclass(frozen=True)
class Spelling:
    entity: str  # the name every table shows
    text: str  # the spelling as the file gives it
    compact: str  # folded, letters and digits only: what is compared
    words: int
    capital: bool  # begins with a capital letter: matches only text that does


@dataclass(frozen=True)
class Found:
    entity: str
    spelling: str
    start: int  # character offsets in the answer
    end: int
    edits: int  # 0: exact (up to case, accents, punctuation and spacing, a plural)
    # Common words at a sentence's start, counted because what follows reads as a name.
    common: bool = field(default=False, compare=False)

    @property
    def kind(self) -> str:
        """What a reviewer is told: "exact", "near spelling" or "common word"."""
        return "near spelling" if self.edits else "common word" if self.common else "exact"

    def text_in(self, answer: str) -> str:
        return answer[self.start : self.end]


def spelling(entity: str, text: str) -> Spelling | None:
    words = [_fold(w) for w in _WORD.findall(text)]
    if not words:
        return None
    first = next(c for c in text if c.isalnum())
    return Spelling(entity, text, "".join(words), len(words), first.isupper())


class Gazetteer:
    """Names and their spellings, each spelling one entity's; `find` and `entities` read text."""

    def __init__(self, spellings: Iterable[Spelling], topics: dict[str, frozenset[str]] | None = None) -> None:
        self.spellings = list(spellings)
        self.topics = topics or {}  # entity -> the topics it is sought in, as topic_key (absent: every topic)
        self.topic_lines: dict[str, tuple[str, int]] = {}  # topic_key -> (as the file writes it, first line)
        self._by_topic: dict[str | None, _Index] = {}

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(s.entity for s in self.spellings))

    def _index(self, topic: str | None) -> _Index:
        if topic not in self._by_topic:
            chosen = [
                s
                for s in self.spellings
                if s.entity not in self.topics or topic is None or topic_key(topic) in self.topics[s.entity]
            ]
            self._by_topic[topic] = _Index(chosen)
        return self._by_topic[topic]

    def check_topics(self, path: Path, known: Iterable[str]) -> None:
        """GazetteerError naming the first topic of the file that is none of `known` (the
        study's): its rows would never be sought, while the run counts their names."""
        known = list(known)
        keys = {topic_key(t) for t in known}
        for key, (written, line) in self.topic_lines.items():
            if key not in keys:
                raise GazetteerError(
                    f"{path}: line {line}: topic {written!r} is not one of the study's topics "
                    f"({', '.join(map(repr, known))}); case and spacing may differ, the words may not"
                )

    def find(self, text: str, topic: str | None = None, fuzzy: bool = True, rules: bool = True) -> list[Found]:
        """Every name in `text`, in order of appearance (a name found twice is listed twice).
        `rules=False`: the windows' matches alone, without plurals or the common-word rules."""
        return self._index(topic).find(text, fuzzy, rules)

    def entities(self, text: str, k: int | None = None, topic: str | None = None, fuzzy: bool = True) -> list[str]:
        """The distinct entities `text` names, in the order they first appear, at most k."""
        out = list(dict.fromkeys(found.entity for found in self.find(text, topic, fuzzy)))
        return out[:k] if k is not None else out


# Near spellings are compared a block at a time: at most BLOCK_CELLS (window, spelling) pairs
# in one distance matrix, and at most BLOCK_WINDOWS windows waiting for one, so memory is
# bounded whatever the answer's length and the gazetteer's size (every window against every
# spelling at once took 3.9 GB for a 1,000,000-word answer, 3.6 GB for 100,000 names).
BLOCK_CELLS = 1 << 22
BLOCK_WINDOWS = 1 << 15


class _Index:
    def __init__(self, spellings: list[Spelling]) -> None:
        self.spellings = spellings
        self.exact: dict[str, list[int]] = {}
        for i, s in enumerate(spellings):
            self.exact.setdefault(s.compact, []).append(i)
        self.longest = min(MAX_WORDS, max((s.words for s in spellings), default=0) + 1)
        # A near spelling keeps the name's words and first letter ("Running" is not "On Running"),
        # and a name under 6 letters has none: a window is compared only with the spellings of
        # its number of words and first letter that allow an edit.
        near: dict[tuple[int, str], list[int]] = {}
        for i, s in enumerate(spellings):
            if allowed_edits(len(s.compact)) > 0:
                near.setdefault((s.words, s.compact[0]), []).append(i)
        self.near = {key: _Bucket(spellings, members) for key, members in near.items()}

    def find(self, text: str, fuzzy: bool, rules: bool = True) -> list[Found]:
        candidates: list[tuple] = []  # (edits, -characters, start word, end word, spelling, start, end)
        near = _Near(self.near, candidates) if fuzzy and self.near else None
        recent: deque[tuple[int, int, str]] = deque(maxlen=self.longest)  # latest first: (word, offset, folded)
        # The words are read as the text is, never all at once: a long answer costs its matches.
        for n, match in enumerate(_WORD.finditer(text)):
            recent.appendleft((n, match.start(), _fold(match.group())))
            end, key = match.end(), ""
            # Every run of 1..longest words ending here, joined without spaces: a name written apart or together.
            for i, start, word in recent:
                key = word + key
                for index in self.exact.get(key, ()):
                    candidates.append((0, -len(key), i, n + 1, index, start, end))
                if rules and len(key) > 2 and key.endswith("s"):  # a plural or possessive: "Nikes", "Asics'"
                    for index in self.exact.get(key[:-1], ()):
                        if not self.spellings[index].compact.endswith("s"):
                            candidates.append((0, -len(key), i, n + 1, index, start, end))
                if near is not None and key:
                    near.add(key, i, n + 1, start, end)
        if near is not None:
            near.flush()
        taken: set[int] = set()
        chosen = []
        for edits, _length, i, j, index, start, end in sorted(candidates):
            s = self.spellings[index]
            if s.capital and not text[start].isupper():
                continue
            if taken.intersection(range(i, j)):
                continue
            common = rules and all(is_common(_fold(w)) for w in _WORD.findall(text[start:end]))
            if common and not edits and list_item(text, start, end):
                common = False  # "1. Brooks": a list item on its own is a name, whatever the word
            opening = common and sentence_start(text, start)
            if common and (edits or (opening and not reads_as_name(text, end))):
                continue  # "Salmon" is no Salomon; "On balance," names no On
            taken.update(range(i, j))
            chosen.append(Found(s.entity, s.text, start, end, edits, opening))
        return in_lists(text, sorted(chosen, key=lambda found: found.start))


class _Bucket:
    """The spellings one window may be a near spelling of: one number of words, one first letter."""

    def __init__(self, spellings: list[Spelling], members: list[int]) -> None:
        self.members = members  # indices into the index's spellings
        self.compacts = [spellings[i].compact for i in members]
        self.allowed = np.array([allowed_edits(len(c)) for c in self.compacts], dtype=np.uint8)
        self.cutoff = int(self.allowed.max())
        self.most_waiting = max(1, BLOCK_CELLS // len(members))


class _Near:
    """The windows of one text waiting to be compared with their bucket's spellings, compared a
    block at a time; each near spelling found goes into `candidates`."""

    def __init__(self, buckets: dict[tuple[int, str], _Bucket], candidates: list[tuple]) -> None:
        self.buckets, self.candidates = buckets, candidates
        self.waiting: dict[tuple[int, str], list[tuple[str, int, int, int, int]]] = {}
        self.count = 0

    def add(self, key: str, i: int, j: int, start: int, end: int) -> None:
        bucket_key = (j - i, key[0])
        bucket = self.buckets.get(bucket_key)
        if bucket is None:
            return
        waiting = self.waiting.setdefault(bucket_key, [])
        waiting.append((key, i, j, start, end))
        self.count += 1
        if len(waiting) >= bucket.most_waiting:
            self._compare(bucket_key)
        elif self.count >= BLOCK_WINDOWS:
            self.flush()

    def flush(self) -> None:
        for bucket_key in list(self.waiting):
            self._compare(bucket_key)

    def _compare(self, bucket_key: tuple[int, str]) -> None:
        waiting, bucket = self.waiting.pop(bucket_key), self.buckets[bucket_key]
        self.count -= len(waiting)
        keys = [w[0] for w in waiting]
        distances = process.cdist(
            keys, bucket.compacts, scorer=OSA.distance, score_cutoff=bucket.cutoff, dtype=np.uint8
        )
        rows, columns = np.nonzero((distances > 0) & (distances <= bucket.allowed[np.newaxis, :]))
        for row, column in zip(rows.tolist(), columns.tolist()):
            key, i, j, start, end = waiting[row]
            self.candidates.append((int(distances[row, column]), -len(key), i, j, bucket.members[column], start, end))


def load(path: Path) -> Gazetteer:
    """A gazetteer file (see the module's docstring); each problem one line naming file and line."""
    from workbench.files.csv_input import CsvInputError, read_rows

    spellings: list[Spelling] = []
    owner: dict[str, tuple[str, int]] = {}  # compact spelling -> (entity, line)
    topics: dict[str, set[str]] = {}
    topic_lines: dict[str, tuple[str, int]] = {}
    everywhere: set[str] = set()
    try:
        for line, row in read_rows(path, ("name",)):
            entity = " ".join(row["name"].split())
            if not entity:
                raise GazetteerError(f"{path}: line {line}: the name is empty; every row names one entity")
            texts = [entity] + [t.strip() for t in row.get("spellings", "").split("|") if t.strip()]
            for text in texts:
                s = spelling(entity, text)
                if s is None:
                    raise GazetteerError(f"{path}: line {line}: spelling {text!r} has no letter or digit to match")
                earlier = owner.get(s.compact)
                if earlier is not None and earlier[0] != entity:
                    raise GazetteerError(
                        f"{path}: line {line}: spelling {text!r} is already {earlier[0]!r}'s (line {earlier[1]}); "
                        "a spelling names one entity"
                    )
                if earlier is None:
                    owner[s.compact] = (entity, line)
                    spellings.append(s)
            named = [" ".join(t.split()) for t in row.get("topic", "").split("|") if t.strip()]
            for written in named:
                topic_lines.setdefault(topic_key(written), (written, line))
            if named:
                topics.setdefault(entity, set()).update(map(topic_key, named))
            else:
                everywhere.add(entity)
    except CsvInputError as exc:
        raise GazetteerError(str(exc)) from None
    if not spellings:
        raise GazetteerError(f"{path}: no names; expected a header with name (and optional spellings, topic)")
    # An entity listed once for every topic is sought in every topic.
    found = Gazetteer(spellings, {e: frozenset(t) for e, t in topics.items() if e not in everywhere})
    found.topic_lines = topic_lines
    return found
