"""The region vocabulary: the one spelling of each region an entity can be assigned.

The geographic log-odds compare regions by name ("United States" against "Europe",
or against every other region), so "United States ", "united states" and "USA"
must be one region, and a typo ("Eurpoe") must not become a region of its own
without anyone noticing. The vocabulary is the default regions plus every region
already assigned in the store (a region added deliberately is kept there, on the
entities that carry it); a typed value is matched against it ignoring case and
spacing, with a few aliases that are names of the same country.
"""

from __future__ import annotations

import difflib
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterable

from workbench.errors import RegionError  # noqa: F401  (raised here; the family is workbench.errors)

UNITED_STATES = "United States"
DEFAULT_REGIONS = (UNITED_STATES, "Europe", "Asia", "Other")

# Other names of the same place only. "EU" is not Europe (Switzerland, Norway and the
# United Kingdom are in Europe, not in the EU) and "America" is two continents, so
# neither is an alias: typed, they are unknown regions and asked about.
ALIASES = {
    "us": UNITED_STATES,
    "u.s.": UNITED_STATES,
    "u.s": UNITED_STATES,
    "usa": UNITED_STATES,
    "u.s.a.": UNITED_STATES,
    "u.s.a": UNITED_STATES,
    "united states of america": UNITED_STATES,
}


def clean_region(value: str | None) -> str:
    """The value as it should be written: trimmed, inner spacing one space ("" if blank)."""
    return " ".join(unicodedata.normalize("NFKC", value or "").split())


def region_key(value: str) -> str:
    """What two spellings of one region share: case and spacing ignored."""
    return clean_region(value).casefold()


def vocabulary(extra: Iterable[str | None] = ()) -> list[str]:
    """The default regions, then the regions among `extra` that are none of them (each
    once, in its most used spelling, ties broken alphabetically), sorted."""
    spellings: dict[str, Counter[str]] = {}
    for value in extra:
        cleaned = clean_region(value)
        if cleaned:
            spellings.setdefault(region_key(cleaned), Counter())[cleaned] += 1
    known = {region_key(r) for r in DEFAULT_REGIONS}
    added = [
        min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        for key, counts in spellings.items()
        if key not in known and key not in ALIASES
    ]
    return [*DEFAULT_REGIONS, *sorted(added, key=str.casefold)]


def known_regions(conn: sqlite3.Connection) -> list[str]:
    """The vocabulary of this store: the defaults and every region assigned to an
    entity, or kept for a name no entity has yet."""
    stored = conn.execute(
        "SELECT region FROM entities WHERE region IS NOT NULL "
        "UNION ALL SELECT region FROM pending_attributes WHERE region IS NOT NULL"
    )
    return vocabulary(region for (region,) in stored)


def canonical_region(value: str | None, known: Iterable[str] = DEFAULT_REGIONS, allow_new: bool = False) -> str | None:
    """The vocabulary's spelling of a typed region, None when it is blank. A value
    that matches no known region (nor an alias) is refused with RegionError, unless
    `allow_new`: then it is a new region, written trimmed with single spaces."""
    cleaned = clean_region(value)
    if not cleaned:
        return None
    key = cleaned.casefold()
    if key in ALIASES:
        return ALIASES[key]
    known = list(known)
    by_key = {region_key(r): clean_region(r) for r in reversed(known)}  # the first spelling wins
    if key in by_key:
        return by_key[key]
    if allow_new:
        return cleaned
    close = difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.6)
    suggestion = by_key[close[0]] if close else None
    raise RegionError(
        f"unknown region {cleaned!r}"
        + (f" (did you mean {suggestion!r}?)" if suggestion else "")
        + f"; known regions: {', '.join(known)}",
        cleaned,
        suggestion,
    )


def canonical_spellings(values: Iterable[str | None]) -> dict[str, str | None]:
    """Each stored value's canonical spelling, the vocabulary taken from the values
    themselves: how metrics read regions a store holds in several spellings (written
    before imports checked them, or by hand)."""
    values = {v for v in values if v is not None}
    known = vocabulary(values)
    return {v: canonical_region(v, known, allow_new=True) for v in values}
