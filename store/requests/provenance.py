"""Where each answer came from, for the responses export: the request as the store keeps it
(its payload is what the engine sent), the model as identified when it was planned, the
replica that answered, and the study it was planned from."""

from __future__ import annotations

import hashlib
import sqlite3


def response_rows(conn: sqlite3.Connection, study: str | None = None) -> sqlite3.Cursor:
    """Every current request (answered or not) with its response, question and provenance, in
    plan order: request, study, model, stage, status, question, answer and its timing, then how
    many sequences the local engine decoded together (`parallel`), the replica that answered
    (`endpoint`), what the model is (engine, name, base URL, GGUF SHA-256) and the study's id
    (for `study_digests`)."""
    where, args = ("AND s.name = ?", (study,)) if study else ("", ())
    return conn.execute(
        f"""
        SELECT r.key AS request_key, s.name AS study, m.spec AS model,
               COALESCE(p.model_identity, m.identity) AS model_identity, r.stage, r.status,
               q.topic, q.cluster, q.cluster_label, q.text AS question, r.repetition, r.seed,
               p.text, p.finish_reason, p.prompt_tokens, p.completion_tokens, p.latency_s,
               r.attempts, r.last_error AS error, p.started_at, p.finished_at, p.replaced_chars, p.shared_from,
               r.payload_json, p.parallel, p.endpoint, p.served_model, m.engine AS model_engine, m.name AS model_name,
               m.base_url AS model_base_url, m.file_hash AS model_file_hash, r.study_id
        FROM requests r
        JOIN studies s ON s.id = r.study_id
        JOIN models m ON m.id = r.model_id
        LEFT JOIN questions q ON q.id = r.question_id
        LEFT JOIN responses p ON p.request_key = r.key
        WHERE r.superseded = 0 {where}
        ORDER BY r.rowid
        """,
        args,
    )


def study_digests(conn: sqlite3.Connection) -> dict[int, str]:
    """Each study's SHA-256 (hex) of the study as the store keeps it: `studies.spec_json`, the
    study file as parsed when it was last run, encoded as UTF-8. Not the file on disk, which
    may have changed or moved since; the hashed text stays in the store to check it against."""
    return {
        study_id: hashlib.sha256(spec_json.encode("utf-8", "surrogatepass")).hexdigest()
        for study_id, spec_json in conn.execute("SELECT id, spec_json FROM studies")
    }
