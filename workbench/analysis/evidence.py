"""The answers behind a number: `workbench evidence`, the Metrics screen's Enter and the
report's evidence appendix all ask here.

A number ("Nike 1.00", "United States vs Europe +0.43") is made of answers; this module
finds them and says how they count ("Nike named in 36 of 36 answers"). It knows no method:
each method that offers evidence names an `evidence_module` (docs/writing-a-method.md,
"Evidence behind a number") giving

    METRICS: dict[str, str]                        metric name -> what its evidence lists
    evidence(conn, query) -> list[Evidence]        the answers of a query (one Evidence a model)
    OPTIONS: dict[str, tuple[str, ...]]            metric name -> the options it takes beyond
                                                   --topic and --model ("cluster", "region", ...)
    cell_query(panel_id, header, row, column, choices) -> Query | None
                                                   which number a cell of its Metrics table shows
    record_query(row) -> Query | None              which number a flat record is (report headlines)

and refuses an unknown topic, model or target with `EvidenceError` naming the known ones.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import Any

from workbench.display.evidence import (  # noqa: F401  (the names callers import from here)
    Answer,
    Evidence,
    EvidenceError,
    Query,
    answer_marks,
    as_record,
    known,
    marks,
    model_named,
)


def module_of(method: Any):
    """A method's evidence part (`hook_types.EvidenceSource`), or None when it offers none."""
    from workbench.methods.hooks import part

    return part(method, "evidence")


def metrics_of(method: Any) -> dict[str, str]:
    module = module_of(method)
    return dict(module.METRICS) if module is not None else {}


def find(conn: sqlite3.Connection, study: str, query: Query) -> list[Evidence]:
    """The evidence of `query` in `study` (one Evidence a model), refused in one line naming
    what the study knows when the metric, topic or model is none of its."""
    from workbench import methods
    from workbench.store.requests import studies

    study_id = studies.study_id(conn, study)
    if study_id is None:
        raise EvidenceError(f"no study named {study!r} (known: {', '.join(studies.study_names(conn)) or 'none'})")
    method_name = studies.study_method(conn, study)
    method = methods.get(method_name) if method_name in methods.names() else None
    module = module_of(method) if method is not None else None
    if module is None:
        offering = [n for n in methods.names() if module_of(methods.get(n)) is not None]
        raise EvidenceError(
            f"study {study!r} ({method_name}) offers no evidence; methods that do: {', '.join(offering) or 'none'}"
        )
    if query.metric not in module.METRICS:
        raise EvidenceError(
            f"no metric {query.metric!r} in study {study!r} ({method_name}); known: {', '.join(module.METRICS)}"
        )
    takes = getattr(module, "OPTIONS", {}).get(query.metric, ())
    for option in query.given:
        if option not in takes:  # silently ignored, it would show another number than the one asked for
            listed = ", ".join(f"--{o}" for o in ("topic", "model", *takes))
            raise EvidenceError(f"metric {query.metric!r} takes no --{option} (it takes: {listed})")
    return module.evidence(conn, study_id, replace(query, study=study))


def for_cell(
    conn: sqlite3.Connection,
    method_name: str,
    panel_id: str,
    header: list[str],
    row: list[str],
    column: int,
    choices: dict[str, str],
) -> list[Evidence]:
    """The evidence of one cell of a method's Metrics table (the screen's Enter): the method
    says which number the cell shows; its studies are asked in turn until one has it."""
    from workbench import methods
    from workbench.store.requests import studies

    module = module_of(methods.get(method_name)) if method_name in methods.names() else None
    query = module.cell_query(panel_id, header, row, column, choices) if module is not None else None
    if query is None:
        raise EvidenceError("this cell is a label or a number with no answers of its own behind it")
    of_method = [name for name in studies.study_names(conn) if studies.study_method(conn, name) == method_name]
    names = [query.study] if query.study else of_method
    refusals = []
    for name in names:
        try:
            found = find(conn, name, query)
        except EvidenceError as exc:
            refusals.append(str(exc))
            continue
        if found:
            return found
    raise EvidenceError(refusals[0] if refusals else "no answers behind this number")


def for_record(conn: sqlite3.Connection, method: Any, row: dict[str, Any]) -> list[Evidence]:
    """The evidence of a flat record (a report headline), [] where the method offers none."""
    module = module_of(method)
    query = module.record_query(row) if module is not None and hasattr(module, "record_query") else None
    if query is None or not row.get("study"):
        return []
    try:
        return find(conn, row["study"], query)
    except EvidenceError:
        return []
