"""Catalog-constrained parsing for cold-start studies (docs/methods.md §3).

A response is split into items (numbered or bulleted lines, else lines), and each
item is matched to the catalog: exactly after normalisation, then by rapidfuzz
similarity above a threshold. Items outside the catalog and repeated items are
kept as recorded facts (task fidelity, diversity), never silently dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz, process, utils

from workbench.asking.extract import clean_item

DEFAULT_THRESHOLD = 86.0

# What a stored ranking row is (`rankings.duplicate`): an item as first named, a repeat of an
# item or of an out-of-catalog name named earlier in the answer, or a line that is no item at
# all (a heading, "Answer", "Sure!"). Repeats and non-items are counted apart from items
# outside the catalog, so a chatty answer is not read as one recommending 20 unknown titles.
FIRST, REPEAT, NOT_AN_ITEM = 0, 1, 2
_FILLER = frozenset(
    "answer answers sure here recommendations recommendation list note notes okay ok yes no none "
    "certainly of course thanks thank you n a na output result results response".split()
) | {"of course", "thank you", "n a"}
_LINE_ITEM = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•+])\s+(?P<item>.+)$")


@dataclass(frozen=True)
class Catalog:
    items: list[str]  # exactly as given (some carry trailing spaces; they are kept)
    attributes: dict[str, dict[str, str]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_processed", [utils.default_process(i) for i in self.items])
        object.__setattr__(self, "_exact", {p: i for p, i in zip(self._processed, self.items)})


def load_catalog(path: str | Path) -> Catalog:
    """A JSON list of names (or of objects with a name/title), or a CSV whose first
    column (or `item`/`name`/`title`) names the item and other columns are attributes."""
    path = Path(path)
    from workbench.files.csv_input import read_rows, read_text

    if path.suffix.lower() == ".csv":
        rows = [row for _line, row in read_rows(path)]
        if not rows:
            raise ValueError(f"{path}: empty catalog (a header and at least one item)")
        fields = list(rows[0])
        key = next((f for f in ("item", "name", "title") if f in fields), fields[0])
        for number, row in enumerate(rows, start=2):
            if not row[key].strip():
                raise ValueError(f"{path}: line {number}: an item without a {key}")
        return Catalog([r[key] for r in rows], {r[key]: {k: v for k, v in r.items() if k != key} for r in rows})
    from workbench.files.json_input import parse_json

    data = parse_json(read_text(path), path)
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a JSON list of items")
    items, attributes = [], {}
    for index, entry in enumerate(data):
        if isinstance(entry, dict):
            name = entry.get("name") or entry.get("title") or entry.get("item")
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"{path}: item {index}: expected a name, title or item (a non-empty string)")
            items.append(name)
            attributes[name] = {k: v for k, v in entry.items() if k not in ("name", "title", "item")}
        elif isinstance(entry, str) and entry.strip():
            items.append(entry)
        else:
            raise ValueError(f"{path}: item {index}: expected a non-empty name or an object with one")
    return Catalog(items, attributes)


@dataclass(frozen=True)
class Match:
    rank: int
    surface: str  # what the response said
    item: str | None  # the catalog item, None when out of catalog
    score: float
    duplicate: bool  # the same catalog item (or the same out-of-catalog name) appeared earlier in the response
    not_an_item: bool = False  # a heading, a label or filler ("Answer", "Here are five films:")

    @property
    def code(self) -> int:
        """What the row is, as `rankings.duplicate` stores it (FIRST, REPEAT or NOT_AN_ITEM)."""
        return NOT_AN_ITEM if self.not_an_item else REPEAT if self.duplicate else FIRST


def not_an_item(surface: str, line: str = "") -> bool:
    """A line of the answer that names nothing: no letters or digits, a label ending in a colon
    (as written, before cleaning), or a filler word on its own."""
    key = utils.default_process(surface)
    return not key or (line or surface).rstrip().endswith(":") or key in _FILLER


def split_items(text: str) -> list[str]:
    """The listed items of a response, cleaned of numbering and descriptions."""
    return [name for _line, name in _listed(text)]


def _listed(text: str) -> list[tuple[str, str]]:
    """(line as written, cleaned item) for each listed line of a response (numbered or
    bulleted lines, else every line) that still says something once cleaned."""
    lines = [m.group("item") for m in map(_LINE_ITEM.match, text.splitlines()) if m]
    if not lines:
        lines = [line for line in text.splitlines() if line.strip()]
    return [(line, name) for line, name in ((line, clean_item(line)) for line in lines) if name]


def match_items(text: str, catalog: Catalog, threshold: float = DEFAULT_THRESHOLD) -> list[Match]:
    out: list[Match] = []
    seen: set[str] = set()
    seen_outside: set[str] = set()  # out-of-catalog names already met: a repeat is not a second unknown item
    for rank, (line, surface) in enumerate(_listed(text), start=1):
        if not_an_item(surface, line):
            out.append(Match(rank, surface, None, 0.0, False, True))
            continue
        key = utils.default_process(surface)
        item, score = catalog._exact.get(key), 100.0
        if item is None and key:
            found = process.extractOne(
                key, catalog._processed, scorer=fuzz.WRatio, processor=None, score_cutoff=threshold
            )
            if found:
                item, score = catalog.items[found[2]], float(found[1])
        if item is None:
            score = 0.0
        repeat = item in seen if item is not None else key in seen_outside
        out.append(Match(rank, surface, item, score, repeat))
        (seen if item is not None else seen_outside).add(item if item is not None else key)
    return out


def recommended(matches: list[Match]) -> list[str]:
    """The catalog items recommended, in order, without repeats."""
    return [m.item for m in matches if m.item is not None and not m.duplicate]
