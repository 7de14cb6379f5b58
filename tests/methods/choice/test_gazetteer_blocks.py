"""The gazetteer compares near spellings a block at a time, reading the words as it goes: the
same names found as when every window of the text was compared with every spelling at once
(that matrix took 3.9 GB for a 1,000,000-word answer), with memory that does not grow with the
answer. bench/bench_gazetteer_memory.py measures the process's peak."""

from __future__ import annotations

import random
import tracemalloc

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import OSA

from workbench.methods.choice import gazetteer
from workbench.methods.choice.gazetteer import _WORD, MAX_WORDS, Found, Gazetteer, _fold, allowed_edits, spelling

NAMES = {
    "On": [],
    "Puma": [],
    "Nike": ["Nike Inc"],
    "Brooks": [],
    "Garmin": [],
    "Salomon": [],
    "Philips": ["Philips Hue"],
    "Saucony": [],
    "New Balance": ["NB"],
    "Under Armour": [],
    "Hoka": ["Hoka One One"],
    "Le Coq Sportif": ["Lé Coq"],
    "Asics": ["Onitsuka Tiger"],
    "Li-Ning": [],
    "Skechers": ["skechers usa"],
    "Mizuno": [],
    "Columbia Sportswear": ["Columbia"],
    "361 Degrees": ["361°"],
    "Björn Borg": [],
    "Reebok": ["Reebok Classic"],
}
WORDS = "on balance the best pick is a shoe for running salmon phillips garmins new and or but Santa".split()


def reference_find(spellings: list, text: str, fuzzy: bool) -> list[Found]:
    """The matching as it was before it was blocked: every window of the text against every
    spelling in one distance matrix (kept here as the specification of the result)."""
    exact: dict[str, list[int]] = {}
    for i, s in enumerate(spellings):
        exact.setdefault(s.compact, []).append(i)
    compacts = [s.compact for s in spellings]
    allowed = np.array([allowed_edits(len(c)) for c in compacts], dtype=np.int32)
    longest = min(MAX_WORDS, max((s.words for s in spellings), default=0) + 1)
    words = [(m.start(), m.end(), _fold(m.group())) for m in _WORD.finditer(text)]
    windows = [(i, j) for i in range(len(words)) for j in range(i + 1, min(i + longest, len(words)) + 1)]
    keys = ["".join(w for _s, _e, w in words[i:j]) for i, j in windows]
    candidates = []
    for (i, j), key in zip(windows, keys):
        for index in exact.get(key, ()):
            candidates.append((0, -len(key), i, j, index))
    if fuzzy and keys and compacts and allowed.max() > 0:
        distances = process.cdist(keys, compacts, scorer=OSA.distance, score_cutoff=int(allowed.max()))
        rows, columns = np.nonzero((distances > 0) & (distances <= allowed[np.newaxis, :]))
        for row, column in zip(rows.tolist(), columns.tolist()):
            i, j = windows[row]
            s = spellings[column]
            if j - i != s.words or keys[row][0] != s.compact[0]:
                continue
            candidates.append((int(distances[row, column]), -len(keys[row]), i, j, column))
    taken: set[int] = set()
    chosen = []
    for edits, _length, i, j, index in sorted(candidates):
        s = spellings[index]
        start, end = words[i][0], words[j - 1][1]
        if s.capital and not text[start].isupper():
            continue
        if taken.intersection(range(i, j)):
            continue
        taken.update(range(i, j))
        chosen.append(Found(s.entity, s.text, start, end, edits))
    return sorted(chosen, key=lambda found: found.start)


def _gazetteer() -> Gazetteer:
    spellings = []
    for name, others in NAMES.items():
        for text in [name, *others]:
            spellings.append(spelling(name, text))
    return Gazetteer(spellings)


def _mutated(rng: random.Random, text: str) -> str:
    """`text` with one or two edits of the kinds a near spelling allows, or split, joined or
    recased as answers write names."""
    for _ in range(rng.choice((1, 1, 2))):
        at = rng.randrange(len(text))
        kind = rng.choice(("insert", "delete", "substitute", "swap", "split", "join", "case"))
        letter = rng.choice("aeiosnrx")
        if kind == "insert":
            text = text[:at] + letter + text[at:]
        elif kind == "delete" and len(text) > 1:
            text = text[:at] + text[at + 1 :]
        elif kind == "substitute":
            text = text[:at] + letter + text[at + 1 :]
        elif kind == "swap" and at + 1 < len(text):
            text = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
        elif kind == "split":
            text = text[:at] + " " + text[at:]
        elif kind == "join":
            text = text.replace(" ", "", 1)
        elif kind == "case":
            text = text.lower() if rng.random() < 0.5 else text.upper()
    return text


def _answer(rng: random.Random, words: int) -> str:
    names = [text for name, others in NAMES.items() for text in [name, *others]]
    out = []
    for _ in range(words):
        draw = rng.random()
        if draw < 0.25:
            out.append(rng.choice(names))
        elif draw < 0.5:
            out.append(_mutated(rng, rng.choice(names)))
        else:
            out.append(rng.choice(WORDS).capitalize() if rng.random() < 0.2 else rng.choice(WORDS))
        out.append(rng.choice((" ", " ", ", ", ". ", "\n1. ", "-", " (")))
    return "".join(out)


@pytest.mark.parametrize("blocks", ["default", "tiny"])
def test_blocked_matching_finds_what_matching_everything_at_once_did(monkeypatch, blocks):
    """300 generated answers (names exact, one or two edits away, split, joined, recased, among
    common words): the same names, spellings, offsets and edits, with fuzzy matching and
    without; with tiny blocks every answer is compared over many blocks."""
    if blocks == "tiny":
        monkeypatch.setattr(gazetteer, "BLOCK_CELLS", 7)
        monkeypatch.setattr(gazetteer, "BLOCK_WINDOWS", 5)
    names = _gazetteer()
    rng = random.Random(40)
    near = 0
    for n in range(300):
        text = _answer(rng, rng.randint(0, 60))
        for fuzzy in (True, False):
            found = names.find(text, fuzzy=fuzzy, rules=False)  # the windows' matches: what blocking changed
            assert found == reference_find(names.spellings, text, fuzzy), (n, text)
            near += fuzzy and sum(1 for f in found if f.edits)
    assert near > 300  # the answers did exercise near spellings


def test_a_long_answer_is_matched_in_bounded_memory():
    """A 50,000-word answer against the demo's 98 brands: some 8 MB of Python and NumPy memory at
    the peak (every window against every spelling at once: 91 MB, growing with the answer)."""
    from pathlib import Path

    names = gazetteer.load(Path(__file__).resolve().parents[3] / "assets" / "studies" / "demo_brands.csv")
    rng = random.Random(8)
    brands = names.names
    text = " ".join(rng.choice(brands) if rng.random() < 0.02 else rng.choice(WORDS) for _ in range(50_000))
    tracemalloc.start()
    try:
        found = names.find(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found) > 900
    assert peak < 25_000_000, peak
