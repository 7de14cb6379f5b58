"""Exports for people: any export kind as Markdown, headed by what it is.

A CSV answers a program; a file handed to a person needs to say what it holds: which study
and models, when it was written and by which version, how many records, which filters and
convention, and how much of the study people reviewed. The metrics come as each method's
sections (the panels the app and `workbench report` show); any other kind as one table.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench import methods
from workbench.metrics.records import as_rows, value_of
from workbench.pipeline.run_records import workbench_version
from workbench.report import markdown
from workbench.report.document import Facts, Report, Section, TableBlock
from workbench.report.sections import method_section
from workbench.store.db import utc_now
from workbench.store.reads import report as report_reads
from workbench.store.requests import studies
from workbench.text.numbers import fmt_num
from workbench.text.words import plural_word


def _cell(value: Any) -> str:
    return "" if value is None else fmt_num(value) if isinstance(value, float) else str(value)


def header(
    conn: sqlite3.Connection, kind: str, records: list[Any], study: str | None, filters: dict[str, str]
) -> Section:
    """What the export holds, as label and value pairs (`records`: flat rows, or typed metric records)."""
    models = list(dict.fromkeys(str(value_of(r, "model")) for r in records if value_of(r, "model") is not None))
    rows = [
        ("Export", kind),
        ("Study", study or "every study in the database"),
        ("Models", ", ".join(models) or "n/a (no model named in these records)"),
        ("Records", fmt_num(len(records))),
        ("Written", f"{utc_now()} by workbench {workbench_version()}"),
    ]
    rows += [(name.capitalize(), value) for name, value in filters.items()]
    study_id = studies.study_id(conn, study) if study else None
    if study_id is not None:
        counts = report_reads.list_review_counts(conn, study_id)
        if counts["lists"]:
            reviewers = ", ".join(r["reviewer"] for r in counts["reviewers"]) or "nobody yet"
            rows.append(
                (
                    "Review",
                    f"{fmt_num(counts['reviewed'])} of {fmt_num(counts['lists'])} {plural_word(counts['lists'], 'list')} reviewed ({reviewers})",
                )
            )
    return Section("about", "About this export", [Facts(rows)])


def markdown_export(
    conn: sqlite3.Connection,
    kind: str,
    records: list[Any],
    fields: list[str],
    study: str | None = None,
    filters: dict[str, str] | None = None,
    by_method: dict[str, list[Any]] | None = None,
) -> str:
    """The export as one Markdown document: the header, then the metrics' sections (`by_method`:
    each method's records, which `records` lists one after another) or a table of the rows."""
    records = list(records)
    sections = [header(conn, kind, records, study, filters or {})]
    if by_method is not None:  # the metrics: each method's sections, as the app shows them
        sections += [
            method_section(methods.get(name), conn, study or "", found) for name, found in by_method.items() if found
        ]
    else:
        rows = [[_cell(r.get(f)) for f in fields] for r in as_rows(records)]
        sections.append(Section("records", kind, [TableBlock("", fields, rows)]))
    return markdown.render(Report(f"{kind}: {study or 'every study'}", "workbench export", sections))
