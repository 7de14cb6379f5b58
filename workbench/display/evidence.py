"""What the answers behind a number are and how they read: a query (which number), an
answer (the text, the names its list holds now and those the number counts), the evidence of
one model, and the marks of names in an answer's text. The methods' evidence modules build
these; `workbench.analysis.evidence` finds which method to ask."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.errors import EvidenceError  # noqa: F401  (raised here; the family is workbench.errors)


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


def known(value: str | None, choices: list[str], what: str) -> str | None:
    """`value` when it is one of `choices` (None stays None), else refused naming them all."""
    if value is None or value in choices:
        return value
    listed = ", ".join(repr(c) for c in choices) or "none"
    raise EvidenceError(f"no {what} {value!r} here (known: {listed})")


def model_named(value: str | None, models: list[str]) -> str | None:
    """The model a label names: itself, or the short label a table shows ("gpt-4o" for
    "openai:gpt-4o@https://..."); refused naming the known ones."""
    from workbench.display.metric_views import short_labels

    if value is None or value in models:
        return value
    short = {s: label for label, s in short_labels(models).items()}
    return short.get(value) or known(value, models, "model")


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
