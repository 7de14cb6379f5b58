"""What the Entities screen says: names clipped to a width, counts with their noun, the rows
of its two tables, and the detail of the highlighted cluster or entity."""

from __future__ import annotations

from collections.abc import Container

from rich.text import Text

from workbench.entities.dedup import Suggestion
from workbench.store.entities.listing import EntityRow
from workbench.text.literal import visible_line
from workbench.text.words import plural


def clip(text: str, width: int, tell: bool = False) -> str:
    """A name cut to `width` characters, so one long name cannot push the members off
    screen; with `tell`, how long it really is."""
    if len(text) <= width:
        return text
    return text[: width - 1] + "…" + (f" ({len(text):,} characters)" if tell else "")


def suggestion_cells(s: Suggestion, marked: Container[str]) -> list[str | Text]:
    """A cluster's row: method, score, canonical name, and its members (ticked if marked) with their mentions."""
    members = ", ".join(f"{'✓' if m in marked else ''}{m} ({c})" for m, c in zip(s.members, s.counts))
    return [s.method, f"{s.score:.0f}", Text(clip(visible_line(s.canonical), 32)), Text(visible_line(members))]


def entity_cells(e: EntityRow, marked: bool) -> list[str | Text]:
    """An entity's row in the list of every entity: its mark, name, mentions and region."""
    return [
        "✓" if marked else "",
        Text(clip(visible_line(e.name), 48)),
        f"{e.mentions:,}",
        Text(visible_line(e.region or "")),
    ]


def suggestion_detail(s: Suggestion) -> list[str]:
    """A cluster's members in full, one a line, with their mentions and why they are in it."""
    return [
        f"{clip(visible_line(m), 160, tell=True)}  ({plural(c, 'mention')}{', ' + r if r else ''})"
        for m, c, r in zip(s.members, s.counts, s.reasons or [""] * len(s.members))
    ]


def entity_detail(e: EntityRow) -> list[str]:
    """An entity's name in full, its mentions and region, and the spellings it stands for."""
    spellings = ", ".join(clip(visible_line(w), 60) for w in e.spellings[:20])
    more = f" and {len(e.spellings) - 20} more" if len(e.spellings) > 20 else ""
    return [
        f"{clip(visible_line(e.name), 160, tell=True)}  ({plural(e.mentions, 'mention')}, region {e.region or 'none'})",
        f"spellings: {spellings}{more}",
    ]
