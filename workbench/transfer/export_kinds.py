"""Every export the workbench offers: the core's (responses, metrics, decisions, reviews)
and each method's (`import_kinds`/`export_kinds` hooks), in the order `--help` lists them."""

from __future__ import annotations

from workbench import methods
from workbench.methods.kinds import ExportKind
from workbench.metrics.records import as_rows
from workbench.pipeline import run_records as exports


def _responses(conn, study):
    return exports.response_records(conn, study), exports.response_fields()


def _reviews(conn, study):
    from workbench.store.review.verdicts import REVIEW_FIELDS, review_records

    return review_records(conn), REVIEW_FIELDS


def _decisions(conn, study):
    from workbench.store.decisions.log import FIELDS, decision_log

    return decision_log(conn, study), FIELDS


def _metrics(convention: str):
    def records(conn, study):
        rows = as_rows(methods.metric_records(conn, study, convention))  # an export writes flat rows
        return rows, methods.metric_fields(rows)

    return records


def export_kinds(convention: str = "paper") -> dict[str, ExportKind]:
    """The kinds by name; `convention` is the metrics' (paper or original)."""
    first = [
        ExportKind(
            "responses",
            "responses (answers and extraction replies, with the messages, settings, replica and model behind each)",
            _responses,
        )
    ]
    core = [
        ExportKind("metrics", "metrics (flat records)", _metrics(convention)),
        ExportKind(
            "decisions",
            "decisions (every human decision: verdicts, entity merges, splits, renames, forbids and regions, "
            "catalog-match and probe corrections, with who, when, why, what it is about, before and after)",
            _decisions,
        ),
        ExportKind("reviews", "reviews (verdicts on extracted lists, with the list before and after)", _reviews),
    ]
    reserved = {k.name for k in first + core}  # a method cannot take a core kind's name
    offered = [k for k in methods.kinds().exports.values() if k.name not in reserved]
    return {k.name: k for k in first + offered + core}
