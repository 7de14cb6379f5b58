"""The kinds of decision the methods add to the log (their review's corrections: cold-start's
catalog matches, identity's probe labels), reached without the store importing a method: the
workbench sets the source when it is imported (workbench/__init__.py), from each registered
method's `decision_kinds`. Each kind has `kind` (the records' `kind`), `records(conn)` (its
decisions as the log writes them) and `replay(conn, where, record, study_id, refused)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_source: Callable[[], list[Any]] = list


def set_source(source: Callable[[], list[Any]]) -> None:
    global _source
    _source = source


def kinds() -> dict[str, Any]:
    """The methods' decision kinds by their `kind`."""
    return {kind.kind: kind for kind in _source()}
