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

import re
import sqlite3
from dataclasses import asdict, dataclass, field, replace
from importlib import import_module
from typing import Any

from workbench.store.errors import UserFacingError


class EvidenceError(UserFacingError):
    """A query that names no number: an unknown metric, topic, model or target (one line)."""


@dataclass(frozen=True)
class Query:
    """Which number: the study's metric for a topic (or a method's own scope: persona,
    group x condition, task), one model or all, one cluster or the topic, and what the number is
    of where the metric needs it (an entity, a region, a region pair "A vs B")."""

    metric: str
    topic: str | None = None
    model: str | None = None
    cluster: str | None = None
    target: str | None = None
    study: str | None = None
    given: tuple[
        str, ...
    ] = ()  # the options a user typed beyond topic and model, each refused where the metric takes none


@dataclass(frozen=True)
class Answer:
    """One answer behind a number: where it was asked, its text as the model gave it (None for
    an imported list), the names its list holds now and those this number counts."""

    model: str
    topic: str
    question: str
    text: str | None
    names: tuple[str, ...] = ()
    counted: tuple[str, ...] = ()
    cluster: str | None = None
    repetition: int | None = None
    key: str | None = None
    note: str = ""  # what else counts here: a score, the list's rank of a catalog item
    # How the counted names are written in the text when not as counted (a surface a merge or a
    # rename left behind, a gazetteer spelling), and where the extraction found them: a near
    # spelling ("Adiddas") is in no list of spellings, only its offsets say where it is.
    spellings: tuple[str, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Evidence:
    """A number's answers and the count that makes it: `sentence` is the count in words, the
    `details` its parts (per cluster, per side); `answers` lists those that count first."""

    study: str
    method: str
    metric: str
    model: str
    topic: str
    sentence: str
    cluster: str | None = None
    target: str | None = None
    details: tuple[str, ...] = ()
    answers: tuple[Answer, ...] = field(default_factory=tuple)
    counting: int = 0  # the answers that hold a counted name (the first `counting` of `answers`)


def module_of(method: Any):
    """A method's evidence module, or None when it offers none."""
    from workbench.methods.hooks import hook

    name = hook(method, "evidence_module")
    return import_module(name) if name else None


def metrics_of(method: Any) -> dict[str, str]:
    module = module_of(method)
    return dict(module.METRICS) if module is not None else {}


def known(value: str | None, choices: list[str], what: str) -> str | None:
    """`value` when it is one of `choices` (None stays None), else refused naming them all."""
    if value is None or value in choices:
        return value
    listed = ", ".join(repr(c) for c in choices) or "none"
    raise EvidenceError(f"no {what} {value!r} here (known: {listed})")


def model_named(value: str | None, models: list[str]) -> str | None:
    """The model a label names: itself, or the short label a table shows ("gpt-4o" for
    "openai:gpt-4o@https://..."); refused naming the known ones."""
    from workbench.metric_views import short_labels

    if value is None or value in models:
        return value
    short = {s: label for label, s in short_labels(models).items()}
    return short.get(value) or known(value, models, "model")


def find(conn: sqlite3.Connection, study: str, query: Query) -> list[Evidence]:
    """The evidence of `query` in `study` (one Evidence a model), refused in one line naming
    what the study knows when the metric, topic or model is none of its."""
    from workbench import methods
    from workbench.store import studies

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
    from workbench.store import studies

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


def marks(text: str, names: list[str] | tuple[str, ...], spans=()) -> list[tuple[int, int]]:
    """Where the names occur in `text` as whole words (case ignored, a plural "s" after one
    allowed; a name written with a capital only where the text has one, as the gazetteer reads
    names), and the `spans` given, as (start, end) spans that do not overlap, the given spans
    and then the longest name first: what a reader sees marked."""
    out: list[tuple[int, int]] = []

    def add(start: int, end: int) -> None:
        if 0 <= start < end <= len(text) and all(end <= s or start >= e for s, e in out):
            out.append((start, end))

    for start, end in spans:
        add(start, end)
    for name in sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True):
        flags = 0 if name[0].isupper() else re.IGNORECASE
        head = f"(?i:{re.escape(name[0])})" if flags else re.escape(name[0])
        pattern = rf"(?<![^\W_]){head}(?i:{re.escape(name[1:])})(?=(?:'?s)?(?![^\W_]))"
        for found in re.finditer(pattern, text, flags):
            add(found.start(), found.end())
    return sorted(out)


def answer_marks(answer: Answer, text: str | None = None) -> list[tuple[int, int]]:
    """The marks of an answer's text (or of `text`, its beginning where a quote cuts it short):
    its counted names, the other spellings of them and where the extraction found them."""
    text = answer.text if text is None else text
    return marks(text or "", (*answer.counted, *answer.spellings), answer.spans)


def as_record(evidence: Evidence) -> dict[str, Any]:
    """The evidence as `--format json` writes it: every field, each answer with its marks."""
    out = asdict(evidence)
    out["answers"] = [{**asdict(a), "marks": [list(span) for span in answer_marks(a)]} for a in evidence.answers]
    return out
