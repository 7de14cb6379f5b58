"""The report's evidence appendix: for each headline of the summary (and each tie it names), the
count that makes the number and a few of the answers behind it, the counted names marked, so a
reader can see what the model said. Each headline links to its entry (`Paragraph.anchor`).

The answers and counts come from `workbench.analysis.evidence` (the same as `workbench evidence` and the
app's Enter); a method that offers no evidence gets no entry and its headlines no link."""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench import methods
from workbench.analysis.evidence import Evidence, answer_marks, for_record
from workbench.report.document import Facts, Paragraph, Section
from workbench.report.headlines import effect_sentence, headline_effects
from workbench.report.quote import Quote

QUOTED = 3  # answers quoted per entry: enough to read what the model said, short enough to print
QUOTE_CHARS = 600  # an answer longer than this is cut (the command lists it whole)


def _rows(records: list[Any]) -> list[dict[str, Any]]:
    from workbench.metrics.records import as_rows

    return as_rows(records)


def headline_rows(rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The summary's numbered headline paragraphs (their text as the summary writes it) with
    their records, then each tie sentence's PEIR record."""
    from workbench.report.summary import tie_sentences

    found = headline_effects(rows)
    out = []
    if found:
        effect, top, _left_out = found
        out += [(f"{i}. {effect_sentence(effect, r, rows)}", r) for i, r in enumerate(top, start=1)]
    ties = [r for r in rows if r.get("metric") == "peir" and r.get("tied_with") and not r.get("cluster")]
    out += list(zip(tie_sentences(ties), ties))
    return out


def evidence_appendix(
    conn: sqlite3.Connection, method_name: str, records: list[Any]
) -> tuple[list[Section], dict[str, str]]:
    """The appendix and its entries ([] when no headline has evidence) and {headline text: anchor}."""
    if method_name not in methods.names():
        return [], {}
    method = methods.get(method_name)
    rows = _rows(records)
    entries: list[Section] = []
    links: dict[str, str] = {}
    for text, row in headline_rows(rows):
        found = [e for e in for_record(conn, method, row) if e.model == row.get("model")]
        if not found:
            continue
        anchor = f"evidence-{len(entries) + 1}"
        links[text] = anchor
        entries.append(_entry(anchor, len(entries) + 1, found[0]))
    if not entries:
        return [], {}
    intro = Paragraph(
        "The answers behind each headline of the summary: the count that makes its number and the first "
        f"{QUOTED} answers holding a counted name, marked. `workbench evidence` lists them all; in the app, "
        "Enter on the number's cell of the Metrics screen."
    )
    appendix = Section("evidence", "Appendix: evidence behind the headlines", [intro])
    return [appendix, *entries], links


def _entry(anchor: str, n: int, e: Evidence) -> Section:
    scope = e.topic + (f" · cluster {e.cluster}" if e.cluster else "")
    title = f"E{n}. {e.model} · {scope} · {e.metric}" + (f" ({e.target})" if e.target else "")
    facts = [("Count", e.sentence)] + ([("How it counts", "; ".join(e.details))] if e.details else [])
    facts.append(("Answers holding a counted name", f"{e.counting} of {len(e.answers)}"))
    blocks: list[Any] = [Facts(facts)]
    for answer in [a for a in e.answers if a.counted][:QUOTED]:
        where = " · ".join(str(p) for p in (answer.cluster, answer.question) if p)
        rep = f" · repetition {answer.repetition}" if answer.repetition else ""
        head = f"{where}{rep} · counted: {', '.join(answer.counted)}"
        if answer.text is None:
            blocks.append(Quote(head, f"(imported list: {', '.join(answer.names)})", []))
            continue
        text = answer.text[:QUOTE_CHARS] + ("…" if len(answer.text) > QUOTE_CHARS else "")
        blocks.append(Quote(head, text, answer_marks(answer, text)))
    return Section(anchor, title, blocks, level=3, anchored=True)  # Markdown writes the link's anchor


def link_headlines(summary: Section, links: dict[str, str]) -> None:
    """Each headline paragraph of the summary points at its appendix entry."""
    for block in summary.blocks:
        if isinstance(block, Paragraph) and block.text in links:
            block.anchor = links[block.text]
