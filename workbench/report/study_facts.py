"""The parts of a report that say what was audited and how far: the study and its provenance,
the models, the counts of requests per model and stage, and the dates of the answers.

Provenance is the responses export's: the study's SHA-256 is `store.provenance.study_digests`
(the `study_sha256` column), the version `exports.workbench_version` (`workbench --version`)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.display.metric_views import short_labels
from workbench.metrics.records import value_of
from workbench.pipeline import run_records as exports
from workbench.report.document import BarsBlock, Block, Facts, Paragraph, Section, TableBlock
from workbench.store.reads import report as report_reads
from workbench.store.requests import endpoints, provenance
from workbench.text.numbers import fmt_num


@dataclass
class StudyFacts:
    """What every part of the report reads about the study, read once."""

    id: int
    name: str
    method: str
    source_path: str | None
    spec: dict[str, Any]
    stored_sha256: str
    file_sha256: str | None  # of the study file now on disk; None when it is not there
    models: list[dict[str, Any]]  # report_reads.model_facts
    status: list[dict[str, Any]]  # exports.status_records
    replicas: list[dict[str, Any]]  # endpoints.endpoint_records
    database: str

    @property
    def answers(self) -> int:
        return sum(model["answers"] for model in self.models)

    @property
    def imported(self) -> bool:
        return bool(self.spec.get("imported"))


def read_facts(conn: sqlite3.Connection, study: str, database: str) -> StudyFacts | None:
    row = report_reads.study_row(conn, study)
    if row is None:
        return None
    replicas = endpoints.endpoint_records(conn, row["id"])
    return StudyFacts(
        id=row["id"],
        name=row["name"],
        method=row["method"],
        source_path=row["source_path"],
        spec=json.loads(row["spec_json"] or "{}"),
        stored_sha256=provenance.study_digests(conn)[row["id"]],
        file_sha256=file_sha256(row["source_path"]),
        models=report_reads.model_facts(conn, row["id"]),
        status=exports.status_records(conn, row["id"], replicas),
        replicas=replicas,
        database=database,
    )


def file_sha256(path: str | None) -> str | None:
    """The SHA-256 of the study file as it is on disk now (it may have changed since the run:
    the stored study's digest is the one the answers were planned from)."""
    if not path:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _answer_span(facts: StudyFacts) -> tuple[str, str]:
    firsts = [m["first_answer"] for m in facts.models if m["first_answer"]]
    lasts = [m["last_answer"] for m in facts.models if m["last_answer"]]
    return (min(firsts) if firsts else "none yet", max(lasts) if lasts else "none yet")


def study_section(facts: StudyFacts, method_summary: str, convention: str, written_at: str) -> Section:
    first, last = _answer_span(facts)
    file_line = facts.source_path or "none: the data was imported, not run from a study file"
    file_hash = facts.file_sha256 or ("the file is not at that path now" if facts.source_path else "n/a")
    rows = [
        ("Study", facts.name),
        ("Method", f"{facts.method} ({method_summary})" if method_summary else facts.method),
        ("Study file", file_line),
        ("Study file SHA-256 (on disk now)", file_hash),
        ("Stored study SHA-256", facts.stored_sha256),
        ("Database", facts.database),
        ("Workbench version", exports.workbench_version()),
        ("First answer", first),
        ("Last answer", last),
        ("Numbers follow the convention", convention),
        ("Report written", written_at),
    ]
    blocks: list[Block] = [
        Facts(rows),
        Paragraph(
            "The stored study SHA-256 is that of the study as the store keeps it (the study file as parsed "
            "when it was last run or imported); every row of `workbench export --what responses` carries it "
            "as `study_sha256`. The file on disk may have changed since; its own SHA-256 is beside it."
        ),
    ]
    blocks += _model_blocks(facts)
    return Section("study", "The study", blocks)


def _model_blocks(facts: StudyFacts) -> list[Block]:
    if not facts.models:
        text = "imported data: its models are named in the findings" if facts.imported else "none asked yet"
        return [Paragraph(f"Models: {text}.")]
    rows = [
        [
            m["spec"],
            m["engine"],
            m["file_path"] or m["name"],
            m["file_hash"] or "n/a (served model)",
            " | ".join((m["base_url"] or "local").split("|")),
            fmt_num(m["requests"]),
        ]
        for m in facts.models
    ]
    header = ["model (spec as stored)", "engine", "served name or GGUF", "GGUF SHA-256", "endpoint", "requests"]
    blocks: list[Block] = [TableBlock("Models", header, rows)]
    if facts.replicas:
        replica_rows = [
            [
                r["model"],
                r["url"],
                r.get("state") or "n/a",
                fmt_num(r.get("answered")),
                fmt_num(r.get("mean_latency_s")),
            ]
            for r in facts.replicas
        ]
        blocks.append(
            TableBlock("Replicas", ["model", "replica", "last state", "answers", "mean latency (s)"], replica_rows)
        )
    return blocks


def status_section(facts: StudyFacts, records: list[Any]) -> Section:
    """Requests per model and stage: asked, answered, failed, pending; parse rates where the
    method measures them; the same counts as stacked bars."""
    if not facts.status:
        named = sorted({str(value_of(r, "model")) for r in records if value_of(r, "model") is not None})
        if not facts.imported:
            text = "No answers yet: the study has no requests stored. Run it (see the reproduction recipe)."
            return Section("status", "Requests and answers", [Paragraph(text)])
        text = "No requests are stored for this study: its data was imported, so nothing was asked here."
        imported = Facts([("Models in the imported data", ", ".join(named) or "none")])
        return Section("status", "Requests and answers", [Paragraph(text), imported])
    # Survived: errors of requests a later attempt answered; a failed request's errors are not.
    header = ["model", "stage", "asked", "answered", "failed", "pending", "running", "errors recovered from"]
    rows = [
        [
            r["model"],
            r["stage"],
            fmt_num(r["total"]),
            fmt_num(r["done"]),
            fmt_num(r["failed"]),
            fmt_num(r["pending"]),
            fmt_num(r["running"]),
            fmt_num(r["errors_survived"]),
        ]
        for r in facts.status
    ]
    blocks: list[Block] = []
    if not any(r["done"] for r in facts.status):  # (imported scores are answered requests, not answers)
        blocks.append(Paragraph("No answers yet: every request is pending or failed, so there are no findings."))
    blocks.append(
        TableBlock(
            "Requests per model and stage (errors recovered from: those of requests a later attempt answered)",
            header,
            rows,
        )
    )
    short = short_labels([r["model"] for r in facts.status])
    blocks.append(
        BarsBlock(
            "Answered, failed and pending, per model and stage",
            [f"{short[r['model']]} · {r['stage']}" for r in facts.status],
            [
                ("answered", [float(r["done"]) for r in facts.status]),
                ("failed", [float(r["failed"]) for r in facts.status]),
                ("pending or running", [float(r["pending"] + r["running"]) for r in facts.status]),
            ],
        )
    )
    parse = parse_rates(records, facts.method)
    if parse:
        blocks.append(TableBlock("Answers that could be read, per model", ["model", "measure", "share", "n"], parse))
    return Section("status", "Requests and answers", blocks)


def parse_rates(records: list[Any], method: str) -> list[list[str]]:
    """Per model, each parse measure over all its cells: the cells' shares weighted by their n
    (the records, typed or flat, that name a measure of the study's method: its hook `parse_metrics`)."""
    from workbench.methods.hooks import parse_metrics

    measures = parse_metrics(method)
    totals: dict[tuple[str, str], list[float]] = {}
    for r in records:
        metric, value, n = value_of(r, "metric"), value_of(r, "value"), value_of(r, "n")
        if metric in measures and value is not None and n:
            total = totals.setdefault((value_of(r, "model"), metric), [0.0, 0.0])
            total[0] += value * n
            total[1] += n
    return [
        [model, measures[metric], fmt_num(parsed / n), fmt_num(int(n))]
        for (model, metric), (parsed, n) in sorted(totals.items())
    ]
