"""Records for `workbench export` and `workbench status`: plain dicts, stable keys."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterable, Iterator
from importlib import metadata
from typing import Any

from workbench.files.safe_output import spreadsheet_cell
from workbench.store.reads import shared as reads

# What identifies a request within its method, read from the request itself: ChoiceEval
from workbench.store.requests import endpoints, provenance, queue, served

# (topic, cluster, question), identity (group, condition), cold-start (persona), entity
# (entity, template, language, variant); `prompt` is the exact text the model was given.
# Provenance follows the answer: the request as sent (`request_messages`, `request_settings`:
# JSON, rebuilding the body an OpenAI-compatible server received together with `model_name`),
# how many sequences the local engine decoded together (`parallel`), the replica that answered
# (`endpoint`), what the model is (`model_engine`, `model_name`: the served name or the GGUF,
# `model_base_url`, `model_file_hash`: the GGUF's SHA-256), the workbench that exports, and the
# SHA-256 of the study as stored (`study_sha256`, see `store.provenance.study_digests`).
# The methods' own columns (hook `export_fields`: keys of their requests' `meta`) follow the question's.
BASE_FIELDS = [
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
    "request_messages",
    "request_settings",
    "parallel",
    "endpoint",
    "served_model",
    "served_model_differs",
    "model_engine",
    "model_name",
    "model_base_url",
    "model_file_hash",
    "workbench_version",
    "study_sha256",
]


def meta_fields() -> list[str]:
    """Every method's `export_fields`, in the methods' order (a key already a column is filled
    from `meta` where the request has no question: a method's own `topic`)."""
    from workbench.methods.hooks import export_fields

    return export_fields()


def response_fields() -> list[str]:
    """The responses export's columns: the request and question, every method's meta fields, the rest."""
    at = BASE_FIELDS.index("prompt")
    return list(dict.fromkeys([*BASE_FIELDS[:at], *meta_fields(), *BASE_FIELDS[at:]]))


def workbench_version() -> str:
    """The installed version of the workbench (package audit-workbench)."""
    try:
        return metadata.version("audit-workbench")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def response_records(conn: sqlite3.Connection, study: str | None = None) -> Iterator[dict[str, Any]]:
    """Every request of the study (answered or not) with its response, in plan order."""
    digests = provenance.study_digests(conn)
    version = workbench_version()
    fields, from_meta = response_fields(), meta_fields()
    for row in provenance.response_rows(conn, study):
        record = dict(row)
        payload = json.loads(record.pop("payload_json") or "{}")
        record["study_sha256"] = digests.get(record.pop("study_id"))
        record["workbench_version"] = version
        meta = payload.get("meta") or {}
        record.update({k: meta.get(k) if record.get(k) is None else record[k] for k in from_meta})
        if record["seed"] is None and "seed" in meta:  # cold-start: the study's seed, kept in its meta
            record["seed"] = meta["seed"]
        messages = payload.get("messages") or []
        score = payload.get("score")
        record["prompt"] = (
            score["prefix"] + score["suffix"]
            if score
            else next((m["content"] for m in reversed(messages) if m.get("role") == "user"), None)
        )
        record["request_messages"], record["request_settings"] = request_as_sent(payload)
        record["served_model_differs"] = served.differs(record["model_name"], record["served_model"])
        yield {k: record[k] for k in fields}


def request_as_sent(payload: dict[str, Any]) -> tuple[str | None, str | None]:
    """The messages (system and user turns, in order) and the settings of a request, as JSON.

    A generated answer's settings are its sampling parameters (temperature, max_tokens, seed,
    top_p, stop, json_schema, ...); a scored one has no messages (`prompt` is its text) and
    its settings are what scoring was asked for (continuations, method, kernels)."""
    score = payload.get("score")
    if score:
        settings = {k: v for k, v in score.items() if k not in ("prefix", "suffix")}
        return None, json.dumps(settings, ensure_ascii=False, sort_keys=True)
    messages = payload.get("messages")
    return (
        None if messages is None else json.dumps(messages, ensure_ascii=False),
        json.dumps(payload.get("params") or {}, ensure_ascii=False, sort_keys=True),
    )


def status_records(
    conn: sqlite3.Connection, study_id: int | None = None, replicas: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Counts per study, model and stage, with the errors each met: survived (a later attempt
    answered the request) and final (the request failed on it)."""
    records = reads.counts(conn, study_id)
    errors = reads.error_summary(conn, study_id)
    abandoned = _abandoned_claims(conn, study_id) if any(r["running"] for r in records) else {}
    for record in records:
        record["total"] = sum(record[s] for s in queue.STATUSES)
        # Claims of a process that no longer runs (killed): nobody answers them, the next run
        # releases them (queue.release_stale_claims); pending, not running, and said apart.
        gone = abandoned.get((record["study"], record["model"], record["stage"]), 0)
        record["running"] -= gone
        record["pending"] += gone
        record["abandoned"] = gone
        mine = [e for e in errors if e["study"] == record["study"] and e["model"] == record["model"]]
        record["errors_survived"] = sum(e["survived"] for e in mine)
        record["errors_final"] = sum(e["final"] for e in mine)
        record["error_kinds"] = {e["kind"]: e["met"] for e in mine}
    if replicas is None:
        replicas = endpoints.endpoint_records(conn, study_id)
    for record in records:
        # A pool's replicas, on its answer stage's record (what `status --json` readers look for).
        mine = [r for r in replicas if r["model"] == record["model"]]
        if mine:
            record["endpoints"] = [{k: v for k, v in r.items() if k != "model"} for r in mine]
    return records


def _abandoned_claims(conn: sqlite3.Connection, study_id: int | None) -> dict[tuple, int]:
    """Running requests per (study, model, stage) whose claiming process is gone."""
    found: dict[tuple, int] = {}
    for claim in reads.claims(conn, study_id):
        if queue.owner_gone(claim["owner"]):
            key = (claim["study"], claim["model"], claim["stage"])
            found[key] = found.get(key, 0) + claim["n"]
    return found


def write_records(
    records: Iterable[dict[str, Any]], fmt: str, fields: list[str], out: io.TextIOBase, raw: bool = False
) -> int:
    """Write records as a JSON array or CSV with a header; returns how many.

    JSON is exact. CSV cells are spreadsheet-safe unless `raw` (formula starts
    neutralised, terminal control characters written out; see `safe_output`)."""
    count = 0
    if fmt == "json":
        # one encoder for every record: json.dumps with an option builds one per call, which
        # cost a tenth of `workbench metrics --format json` at 16,000 records
        encode = json.JSONEncoder(ensure_ascii=False).encode
        out.write("[")
        for record in records:
            out.write(",\n" if count else "\n")
            out.write(encode(record))
            count += 1
        out.write("\n]\n" if count else "]\n")
        return count
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for record in records:
        flat = {k: _as_cell(v) for k, v in record.items()}
        writer.writerow(flat if raw else {k: spreadsheet_cell(v) for k, v in flat.items()})
        count += 1
    return count


def _as_cell(value: Any) -> Any:
    """A sequence or mapping in a CSV cell as JSON (`["Electrolux", "Frigidaire"]`, as the
    JSON export has it), never Python's `('Electrolux', 'Frigidaire')`."""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value
