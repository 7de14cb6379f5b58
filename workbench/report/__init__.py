"""`workbench report`: one study's findings as a document an auditor can hand over.

`build_report` reads the store into a `document.Report` (sections of tables, plots and
facts); `html.render` writes it as one self-contained HTML file (inline CSS and SVG, no
script, nothing fetched), `markdown.render` as Markdown with the same headings. The parts:
a summary in plain words (`summary`), the study and its provenance, what was asked
(`asked`: questions, settings, extraction), the requests per model and stage, each method's
findings (its `report_sections` hook, by default its terminal panels: `sections`), the
limitations, the review status, a reproduction recipe, the convention the numbers follow
and the questions asked (an appendix). docs/report.md."""

from __future__ import annotations

import sqlite3

from workbench import methods
from workbench.errors import NoSuchStudy  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.report.asked import appendix_section, asked_section
from workbench.report.checks import check_blocks
from workbench.report.comparisons import comparison_sections
from workbench.report.document import Paragraph, Report, Section
from workbench.report.evidence_appendix import evidence_appendix, link_headlines
from workbench.report.extraction_validity import brands_appendix, unknown_region_items, validity_section
from workbench.report.recipe import convention_section, recipe_section
from workbench.report.recipe_steps import carried
from workbench.report.review_facts import review_section
from workbench.report.sections import method_section
from workbench.report.study_facts import read_facts, status_section, study_section
from workbench.report.summary import limitations_section, summary_section
from workbench.store.db import utc_now
from workbench.store.reads import report_asked


def build_report(
    conn: sqlite3.Connection, study: str, database: str, convention: str = "paper", out_name: str = "report.html"
) -> Report:
    """The report of one study. `database` and `out_name` are written into the reproduction
        commands as given; `convention` is the metrics' (`methods.CONVENTIONS`). The parts: a
    summary, the study, what was asked, the requests, the findings, the limitations, the review,
    the recipe, the conventions and the questions (an appendix)."""
    facts = read_facts(conn, study, database)
    if facts is None:
        raise NoSuchStudy(study)
    by_method = methods.metric_records_by_method(conn, study, convention)
    records = [record for found in by_method.values() for record in found]
    summary = methods.get(facts.method).summary if facts.method in methods.names() else ""
    findings = [method_section(methods.get(name), conn, study, found) for name, found in by_method.items() if found]
    if findings:
        intro = Paragraph(
            "Each method's numbers as `workbench metrics` computes them from the stored results (after any "
            "review). Intervals in brackets are seeded 95% bootstrap intervals unless a caption says otherwise "
            "(a spread over seeds, say); what each metric means: docs/methods.md."
        )
    else:
        intro = Paragraph(
            "No findings yet: the study has no answers (or none its method could score). Run the study, "
            "then make this report again."
        )
    status = status_section(facts, records)
    status.blocks += check_blocks(conn, facts.id)
    appendix = appendix_section(conn, facts)
    opening, limitations = summary_section(facts, records), limitations_section(conn, facts, records)
    evidence, links = evidence_appendix(conn, facts.method, records)  # each headline's answers, linked
    link_headlines(opening, links)
    limitations.blocks += [Paragraph(f"- {text}") for text in unknown_region_items(conn, facts.id)]
    sections = [
        opening,
        study_section(facts, summary, convention, utc_now()),
        asked_section(conn, facts),
        status,
        Section("findings", "Findings", [intro]),
        *findings,
        *comparison_sections(conn, study, records),  # two or more models: each paired with the first
        limitations,
        review_section(conn, study, facts.id),
        *filter(None, [validity_section(conn, facts.id)]),
        recipe_section(
            facts, convention, out_name, report_asked.parallel_used(conn, facts.id), carried(conn, facts.id, facts.spec)
        ),
        convention_section(convention, records),
        *([appendix] if appendix else []),
        *filter(None, [brands_appendix(conn, facts.id)]),
        *evidence,
    ]
    return Report(f"Audit report: {study}", f"{facts.method} study · workbench report", sections)
