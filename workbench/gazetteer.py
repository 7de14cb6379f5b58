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
words and with the same first letter; a shorter one must be exact. A spelling that begins with a capital letter matches only text that does ("apple
juice" is not Apple): names are proper nouns. Where two names overlap, the exact one wins,
then the longer one. Every name found is a stretch of the answer (grounded by construction);
what it cannot tell is whether the answer recommends the name or warns against it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from workbench.store.errors import UserFacingError

_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits: the units a name is made of
# Names longer than this many words are not sought across more words than that.
MAX_WORDS = 8


class GazetteerError(UserFacingError, ValueError):
    """A gazetteer file that cannot be read; the message names the file and line."""


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
    edits: int  # 0: exact (up to case, accents, punctuation and spacing)

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

    def find(self, text: str, topic: str | None = None, fuzzy: bool = True) -> list[Found]:
        """Every name in `text`, in order of appearance (a name found twice is listed twice)."""
        return self._index(topic).find(text, fuzzy)

    def entities(self, text: str, k: int | None = None, topic: str | None = None, fuzzy: bool = True) -> list[str]:
        """The distinct entities `text` names, in the order they first appear, at most k."""
        out = list(dict.fromkeys(found.entity for found in self.find(text, topic, fuzzy)))
        return out[:k] if k is not None else out


class _Index:
    def __init__(self, spellings: list[Spelling]) -> None:
        self.spellings = spellings
        self.exact: dict[str, list[int]] = {}
        for i, s in enumerate(spellings):
            self.exact.setdefault(s.compact, []).append(i)
        self.compacts = [s.compact for s in spellings]
        self.allowed = np.array([allowed_edits(len(c)) for c in self.compacts], dtype=np.int32)
        self.longest = min(MAX_WORDS, max((s.words for s in spellings), default=0) + 1)

    def find(self, text: str, fuzzy: bool) -> list[Found]:
        words = [(m.start(), m.end(), _fold(m.group())) for m in _WORD.finditer(text)]
        # Every run of 1..longest words, joined without spaces: a name written apart or together.
        windows = [(i, j) for i in range(len(words)) for j in range(i + 1, min(i + self.longest, len(words)) + 1)]
        keys = ["".join(w for _s, _e, w in words[i:j]) for i, j in windows]
        candidates = []  # (edits, -characters, start word, end word, spelling index)
        for (i, j), key in zip(windows, keys):
            for index in self.exact.get(key, ()):
                candidates.append((0, -len(key), i, j, index))
        if fuzzy and keys and self.compacts and self.allowed.max() > 0:
            distances = process.cdist(keys, self.compacts, scorer=OSA.distance, score_cutoff=int(self.allowed.max()))
            rows, columns = np.nonzero((distances > 0) & (distances <= self.allowed[np.newaxis, :]))
            for row, column in zip(rows.tolist(), columns.tolist()):
                i, j = windows[row]
                s = self.spellings[column]
                # A near spelling keeps the name's words and first letter ("Running" is not "On Running").
                if j - i != s.words or keys[row][0] != s.compact[0]:
                    continue
                candidates.append((int(distances[row, column]), -len(keys[row]), i, j, column))
        taken: set[int] = set()
        chosen = []
        for edits, _length, i, j, index in sorted(candidates):
            s = self.spellings[index]
            start, end = words[i][0], words[j - 1][1]
            if s.capital and not text[start].isupper():
                continue
            if taken.intersection(range(i, j)):
                continue
            taken.update(range(i, j))
            chosen.append(Found(s.entity, s.text, start, end, edits))
        return sorted(chosen, key=lambda found: found.start)


def load(path: Path) -> Gazetteer:
    """A gazetteer file (see the module's docstring); each problem one line naming file and line."""
    from workbench.csv_input import CsvInputError, read_rows

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
