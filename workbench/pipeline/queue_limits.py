"""How many requests one planning may create, counted before any is stored.

A study's sizes are validated one by one (repetitions, seeds, prompts per group),
but their product can still be huge (10,000 questions x 10,000 repetitions). The
plan is generated lazily and refused as soon as it passes the limit, before any
request is stored, so a typo never fills the disk or the memory.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import TypeVar

from workbench.errors import PlanTooLarge  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.text.words import plural_word

DEFAULT_MAX_REQUESTS = 1_000_000
T = TypeVar("T")


def bounded(items: Iterable[T], already: int, limit: int, what: str, keep: bool = True) -> list[T] | int:
    """The items as a list (or, with keep=False, only their number), or PlanTooLarge as
    soon as `already` + their number exceeds `limit` (the rest is never generated:
    refusing costs no more than the limit)."""
    head = islice(iter(items), max(0, limit - already) + 1)
    kept: list[T] | int = list(head) if keep else sum(1 for _ in head)
    if already + (len(kept) if keep else kept) <= limit:
        return kept
    raise PlanTooLarge(
        f"{what} would create more than {limit:,} {plural_word(limit, 'request')} (the --max-requests limit); "
        "reduce repetitions, seeds, prompts or questions, or raise --max-requests"
    )
