"""Why a number is n/a, and what to do about it, from the catalog (workbench/display/na_catalog.py).

A record says why a number is missing in `na_reason`, `p_na_reason` or `ci_na_reason` (short:
the cause, as the cells show it). This catalog recognises each reason and adds the remedy, for
the note under every method's tables (`na_panel`: the Metrics screen, `workbench metrics`, the
report), for the report's summary, and for the messages shown where there are no numbers at all.
docs/methods.md ("When a number is n/a") lists the same reasons, causes and remedies: a test
holds the two together."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from workbench.display.na_catalog import REASONS, Reason  # noqa: F401  (Reason: re-exported for the views)

REASON_FIELDS = (
    "na_reason",
    "p_na_reason",
    "ci_na_reason",
    "std_na_reason",
    "runner_up_na_reason",
    "stays_preferred_na_reason",
)

_COMPILED = [(re.compile(r.pattern), r) for r in REASONS]


def find(text: str | None) -> Reason | None:
    """The catalog's reason for a record's reason text (None when it is not one of them)."""
    if not text:
        return None
    return next((reason for pattern, reason in _COMPILED if pattern.match(text)), None)


def remedy(text: str | None) -> str:
    """What to do about a reason ("" for one the catalog does not know, a plugin's)."""
    found = find(text)
    return found.remedy if found else ""


def by_key(key: str) -> Reason:
    return next(r for r in REASONS if r.key == key)


def shown(key: str, **words: Any) -> str:
    """A reason's text for a view to show, from the catalog (the view and the docs agree)."""
    return by_key(key).shown.format(**words)


def reasons_in(records: list[Any]) -> Counter[str]:
    """Every reason text the records give, with how many numbers give it."""
    from workbench.metrics.records import value_of

    found: Counter[str] = Counter()
    for record in records:
        for name in REASON_FIELDS:
            text = value_of(record, name)
            if isinstance(text, str) and text:
                found[text] += 1
    return found


def na_rows(records: list[Any], extra: list[str] = ()) -> list[list[str]]:
    """One row per reason of the catalog the records (and `extra`: reasons a view gives
    itself) give, in the catalog's order: the reason as the cells show it (a few of its texts,
    most numbers first, where it has several: "no Asia slot: 60 vs 0 slots" and "... 7 vs 0"
    are one reason), how many numbers it leaves n/a, and what to do, once. A text the catalog does not know (a plugin's) is a row of its own."""
    counts = reasons_in(records)
    for text in extra:
        counts[text] += 0
    groups: dict[Any, list[tuple[str, int]]] = {}
    for text, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        groups.setdefault(find(text) or text, []).append((text, n))
    order = {reason: i for i, reason in enumerate(REASONS)}
    rows = []
    for key in sorted(groups, key=lambda k: (order.get(k, len(order)), str(k))):
        texts = groups[key]
        total = sum(n for _t, n in texts)
        # several texts of one reason: a few of them as they read, never the pattern's placeholders
        # ("no REGION slot: N vs 0 slots" read as a reason of its own)
        said = "; ".join(t for t, _n in texts[:EXAMPLES])
        if len(texts) > EXAMPLES:
            said += f"; and {len(texts) - EXAMPLES} more like these"
        rows.append([said, str(total) if total else "-", remedy(texts[0][0]) or "see docs/methods.md"])
    return rows


EXAMPLES = 3  # texts a grouped reason gives as examples


_IN_A_CELL = re.compile(r"n/a \(([^()]+)\)")


def shown_in(panels: list[Any]) -> list[str]:
    """The catalog's reasons the tables give in their cells, "n/a (no answers)", in the order
    found: those a view says itself (a model with no lists for a topic has no record to carry
    it), so that the note gives their remedy too."""
    found: list[str] = []
    for panel in panels:
        for row in panel.table[1] if panel.table else ():
            for cell in row:
                found += [t for t in _IN_A_CELL.findall(str(cell)) if find(t) and t not in found]
    return found


def na_panel(panel_id: str, records: list[Any], extra: list[str] = (), scope: str = ""):
    """The note under a method's tables: why its n/a numbers are n/a and what to do (none
    when every number has a value); `scope`: what the records cover where filters chose them."""
    from workbench.display.metric_views import Panel

    rows = na_rows(records, extra)
    if not rows:
        return []
    header = ["n/a because", "numbers", "what to do"]
    title = "Why some numbers are n/a, and what to do" + (f" (only {scope})" if scope else "")
    return [Panel(panel_id, title, table=(header, rows))]
