"""Records for `workbench export` and `workbench status`: plain dicts, stable keys."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from workbench.safe_output import spreadsheet_cell
from workbench.store import endpoints, queue, reads

# What identifies a request within its method, read from the request itself: ChoiceEval
# (topic, cluster, question), identity (group, condition), cold-start (persona), entity
# (entity, template, language, variant); `prompt` is the exact text the model was given.
META_FIELDS = ["group", "condition", "persona_category", "persona", "entity", "template_id", "language", "variant"]
RESPONSE_FIELDS = [
    "request_key",
    "study",
    "model",
    "model_identity",
    "stage",
    "status",
    "topic",
    "cluster",
    "cluster_label",
    "question",
    *META_FIELDS,
    "prompt",
    "repetition",
    "seed",
    "text",
    "finish_reason",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "attempts",
    "error",
    "started_at",
    "finished_at",
    "replaced_chars",
    "shared_from",
]


def response_records(conn: sqlite3.Connection, study: str | None = None) -> Iterator[dict[str, Any]]:
    """Every request of the study (answered or not) with its response, in plan order."""
    rows = reads.response_rows(conn, study)
    for row in rows:
        record = dict(row)
        payload = json.loads(record.pop("payload_json") or "{}")
        meta = payload.get("meta") or {}
        record.update({k: meta.get(k) for k in META_FIELDS})
        if record["seed"] is None and "seed" in meta:  # cold-start: the study's seed, kept in its meta
            record["seed"] = meta["seed"]
        messages = payload.get("messages") or []
        score = payload.get("score")
        record["prompt"] = (
            score["prefix"] + score["suffix"]
            if score
            else next((m["content"] for m in reversed(messages) if m.get("role") == "user"), None)
        )
        yield record


def status_records(
    conn: sqlite3.Connection, study_id: int | None = None, replicas: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Counts per study, model and stage, with the errors each met (survived and final)."""
    records = queue.counts(conn, study_id)
    errors = queue.error_summary(conn, study_id)
    for record in records:
        record["total"] = sum(record[s] for s in queue.STATUSES)
        mine = [e for e in errors if e["study"] == record["study"] and e["model"] == record["model"]]
        record["errors_survived"] = sum(e["survived"] for e in mine)
        record["errors_final"] = sum(e["final"] for e in mine)
        record["error_kinds"] = {e["kind"]: e["survived"] + e["final"] for e in mine}
    if replicas is None:
        replicas = endpoints.endpoint_records(conn, study_id)
    for record in records:
        # A pool's replicas, on its answer stage's record (what `status --json` readers look for).
        mine = [r for r in replicas if r["model"] == record["model"]]
        if mine:
            record["endpoints"] = [{k: v for k, v in r.items() if k != "model"} for r in mine]
    return records


def write_records(
    records: Iterable[dict[str, Any]], fmt: str, fields: list[str], out: io.TextIOBase, raw: bool = False
) -> int:
    """Write records as a JSON array or CSV with a header; returns how many.

    JSON is exact. CSV cells are spreadsheet-safe unless `raw` (formula starts
    neutralised, terminal control characters written out; see `safe_output`)."""
    count = 0
    if fmt == "json":
        out.write("[")
        for record in records:
            out.write(",\n" if count else "\n")
            out.write(json.dumps(record, ensure_ascii=False))
            count += 1
        out.write("\n]\n" if count else "]\n")
        return count
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow(record if raw else {k: spreadsheet_cell(v) for k, v in record.items()})
        count += 1
    return count
