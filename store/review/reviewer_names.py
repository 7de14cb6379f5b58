"""A reviewer's name: one rule for every way a name enters, one key wherever names are compared.

A name enters as `--who`, as the login name ($USER: the default), as `tui --reviewer`, or
through the store's own calls; every one goes through `clean_reviewer`: invisible characters
(zero-width spaces and joiners, direction marks: Unicode format characters) are taken out,
runs of spaces become one, and a name that is empty, longer than MAX_REVIEWER characters or
holding a control character (an ANSI escape, a newline) is refused in one line naming where
it came from. The cleaned name is what is recorded and shown.

Two names are the same person when their `reviewer_key`s are equal: NFKC (full-width and
compatibility forms read as their plain letters), case folded, invisible characters gone.
So `Ann`, `ANN` and `ann` with a zero-width space are one reviewer: one cannot adjudicate a
disagreement of one's own, nor be two reviewers of a list, by spelling oneself differently.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from workbench.store.errors import InputError

MAX_REVIEWER = 100  # a name on every decision and screen
# Characters that show nothing but are no format character (Unicode's default-ignorables).
_IGNORABLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810), *range(0xFE00, 0xFE10)}


def _invisible(c: str) -> bool:
    return unicodedata.category(c) == "Cf" or ord(c) in _IGNORABLE


def clean_reviewer(name: str | None, source: str = "a reviewer's name") -> str:
    """The name as recorded and shown: invisible characters out, spaces trimmed and single.
    Refused (InputError, naming `source`: --who, $USER, --reviewer) when empty, over
    MAX_REVIEWER characters or holding a control character."""
    text = name or ""
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs") for c in text):
        raise InputError(
            f"{source} takes a person's name: no control characters (an escape, a newline); "
            f"got {text!r}" + ("; give --who NAME" if source == "$USER" else "")
        )
    cleaned = " ".join("".join(c for c in text if not _invisible(c)).split())
    if not cleaned:
        raise InputError(f"{source} needs a reviewer's name (it was empty)")
    if len(cleaned) > MAX_REVIEWER:
        raise InputError(f"{source} takes a person's name: at most {MAX_REVIEWER} characters (got {len(cleaned)})")
    return cleaned


def reviewer_key(name: str) -> str:
    """What two names are compared by: NFKC, case folded, invisible characters and repeated
    spaces gone (`Ann`, `ANN`, `ａｎｎ` and `ann` + U+200B key alike)."""
    text = unicodedata.normalize("NFKC", name or "")
    text = unicodedata.normalize("NFKC", text.casefold())
    return " ".join("".join(c for c in text if not _invisible(c)).split())


def same_reviewer(first: str | None, second: str | None) -> bool:
    return first is not None and second is not None and reviewer_key(first) == reviewer_key(second)


def among(name: str | None, names: Iterable[str]) -> str | None:
    """The name in `names` that is the same person as `name` (as written there), else None."""
    if name is None:
        return None
    key = reviewer_key(name)
    return next((n for n in names if reviewer_key(n) == key), None)


def by_person(verdicts: Iterable[Any]) -> dict[str, Any]:
    """Each person's last verdict of `verdicts` (oldest first), under the name that verdict
    was recorded with: a reviewer who wrote their name two ways is one reviewer."""
    latest: dict[str, Any] = {}
    for v in verdicts:
        latest[reviewer_key(v["reviewer"])] = v
    return {v["reviewer"]: v for v in latest.values()}


def spellings_of(conn: Any, table: str, column: str, name: str) -> list[str]:
    """Every spelling in `table`.`column` that is the same person as `name`: what an undo
    compares its `who` with in SQL (`column IN (...)`), so `undo --who ANN` takes back what
    Ann recorded as `ann`. The distinct names of a log are few: they are keyed here, in Python.
    `table` and `column` are the store's own names, never a user's."""
    key = reviewer_key(name)
    stored = (row[0] for row in conn.execute(f"SELECT DISTINCT {column} FROM {table}"))  # noqa: S608
    return [n for n in stored if n is not None and reviewer_key(n) == key] or [name]


def placeholders(names: list[str]) -> str:
    return ",".join("?" * len(names))
