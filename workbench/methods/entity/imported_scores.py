"""Label scores computed elsewhere, read from their file and stored as a study's scored prompts.

Each prompt is stored as a done `score` request of the study (planned through the store, keyed
with `request_key`), so status, exports and metrics treat an imported study like a scored one.

A file of millions of rows is never held whole: its rows are checked as they are read and
staged, a chunk at a time, in scratch tables of the connection (TEMP tables, which SQLite keeps
in a file of its own, not in memory), where the checks that span rows (a label given twice for
one prompt, a label a prompt lacks) are made with SQL. Only then are the prompts stored, a
chunk at a time in one transaction, in the order the file first names them: a file refused at
its last line leaves nothing, and the refusal names the line it named when files were read whole.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import groupby
from typing import Any

from workbench.files.csv_input import CHUNK, CsvInputError, read_rows, real, whole
from workbench.store.db import transaction
from workbench.store.requests.staging import scratch

SCORE_IMPORT_COLUMNS = ("entity", "template_id", "label", "logprob")
PROMPTS_PER_CHUNK = 2_000  # prompts planned as requests at a time
PROMPT = ("model", "language", "variant", "method", "entity", "template_id")  # what names a prompt
_SAME_PROMPT = " AND ".join(f"p.{c} = r.{c}" for c in PROMPT)

# One import's scratch tables. `score_import_rows` holds one chunk of the file; `_prompts` each
# prompt, numbered in the order the file first names it, with what its first row gave (intended
# label, prompt text) and, once planned, its request key; `_labels` each prompt's labels, in the
# order of their lines.
SCRATCH = (
    "CREATE TEMP TABLE score_import_rows (line INTEGER PRIMARY KEY, model TEXT, language TEXT, variant TEXT, "
    "method TEXT, entity TEXT, template_id INTEGER, label TEXT, logprob REAL, continuation TEXT, intended TEXT, "
    "prompt TEXT)",
    "CREATE TEMP TABLE score_import_prompts (no INTEGER PRIMARY KEY, model TEXT, language TEXT, variant TEXT, "
    "method TEXT, entity TEXT, template_id INTEGER, intended TEXT, prompt TEXT, line INTEGER, request_key TEXT, "
    "UNIQUE (model, language, variant, method, entity, template_id))",
    "CREATE INDEX temp.score_import_by_model ON score_import_prompts (model, no)",
    "CREATE TEMP TABLE score_import_labels (prompt_no INTEGER, line INTEGER, label TEXT, logprob REAL, "
    "continuation TEXT, PRIMARY KEY (prompt_no, line), UNIQUE (prompt_no, label)) WITHOUT ROWID",
)
TABLES = ("score_import_rows", "score_import_prompts", "score_import_labels")


@contextmanager
def staging(conn: sqlite3.Connection) -> Iterator[None]:
    """The scratch tables, for the time of one import."""
    try:
        with scratch(conn):
            for sql in SCRATCH:
                conn.execute(sql)
        yield
    finally:
        with scratch(conn):
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS temp.{table}")


def stage_scores(conn: sqlite3.Connection, path, weights: dict[str, float]) -> dict[str, int]:
    """Read, check and stage the file's prompts (inside `staging`): each with its labels'
    (logprob, continuation), its intended label, first line and prompt text. Raises the refusal
    of the first line at fault; returns how many prompts and entities the file names."""
    rows = _rows(path, weights)
    more = True
    while more:
        chunk: list[tuple] = []
        refusal = None
        try:
            for row in rows:
                chunk.append(row)
                if len(chunk) >= CHUNK:
                    break
            else:
                more = False
        except CsvInputError as exc:  # raised after what the rows before it call for
            refusal = exc
        with scratch(conn):
            _stage_chunk(conn, path, chunk)
        if refusal is not None:
            raise refusal
    _refuse_missing_labels(conn, path, weights)
    prompts, entities = conn.execute("SELECT COUNT(*), COUNT(DISTINCT entity) FROM score_import_prompts").fetchone()
    return {"prompts": prompts, "entities": entities}


def _rows(path, weights: dict[str, float]) -> Iterator[tuple]:
    """Each row of the file, checked, as score_import_rows holds it."""
    for line, row in read_rows(path, SCORE_IMPORT_COLUMNS):
        label = row["label"].strip()
        if label not in weights:
            raise CsvInputError(
                f"{path}: line {line}: column 'label': {label!r} is not a label id of the task "
                f"(one of: {', '.join(weights)})"
            )
        logprob = real(path, line, "logprob", row["logprob"]) if row["logprob"].strip() else None
        if logprob is not None and logprob > 1e-9:
            raise CsvInputError(f"{path}: line {line}: column 'logprob': a log-probability is at most 0, got {logprob}")
        yield (
            line,
            row.get("model") or "imported",
            row.get("language") or "english",
            row.get("variant") or "zero_shot_text",
            row.get("method") or "exact",
            row["entity"].strip(),
            whole(path, line, "template_id", row["template_id"], 0),
            label,
            logprob,
            row.get("continuation") or f" {label}",
            (row.get("intended") or "").strip() or None,
            row.get("prompt") or None,  # as `export --what scores` writes it
        )


def _stage_chunk(conn: sqlite3.Connection, path, chunk: list[tuple]) -> None:
    """Stage one chunk of rows; refuse the first that gives a label its prompt was given before
    (in an earlier chunk or earlier in this one)."""
    conn.execute("DELETE FROM score_import_rows")
    conn.executemany(f"INSERT INTO score_import_rows VALUES ({', '.join('?' * 12)})", chunk)
    # A prompt's intended label and text are those of its first row.
    conn.execute(
        f"INSERT OR IGNORE INTO score_import_prompts ({', '.join(PROMPT)}, intended, prompt, line) "
        f"SELECT {', '.join(PROMPT)}, intended, prompt, line FROM score_import_rows ORDER BY line"
    )
    twice = conn.execute(
        f"SELECT r.line, r.label FROM score_import_rows r JOIN score_import_prompts p ON {_SAME_PROMPT} "
        "JOIN score_import_labels l ON l.prompt_no = p.no AND l.label = r.label ORDER BY r.line LIMIT 1"
    ).fetchone()
    given: set[tuple] = set()
    for line, *prompt, label, _logprob, _continuation, _intended, _text in chunk:
        if twice is not None and line >= twice[0]:
            break
        if (*prompt, label) in given:
            twice = (line, label)
            break
        given.add((*prompt, label))
    if twice is not None:
        raise CsvInputError(f"{path}: line {twice[0]}: label {twice[1]!r} of this prompt appears twice")
    conn.execute(
        "INSERT INTO score_import_labels SELECT p.no, r.line, r.label, r.logprob, r.continuation "
        f"FROM score_import_rows r JOIN score_import_prompts p ON {_SAME_PROMPT}"
    )


def _refuse_missing_labels(conn: sqlite3.Connection, path, weights: dict[str, float]) -> None:
    """A prompt is one unit: probabilities are normalised over its labels, so a label left out
    would be kept from an earlier import, or shift the others' share. The first prompt the file
    names without every label is refused, at its first line."""
    lacking = conn.execute(
        f"SELECT no, {', '.join(PROMPT)}, line FROM score_import_prompts p "
        "WHERE (SELECT COUNT(*) FROM score_import_labels l WHERE l.prompt_no = p.no) < ? ORDER BY no LIMIT 1",
        (len(weights),),
    ).fetchone()
    if lacking is None:
        return
    no, model, language, variant, method, entity, template, line = lacking
    given = {label for (label,) in conn.execute("SELECT label FROM score_import_labels WHERE prompt_no = ?", (no,))}
    missing = [label for label in weights if label not in given]
    raise CsvInputError(
        f"{path}: line {line}: the prompt of entity {entity!r}, template_id {template} "
        f"(model {model!r}, language {language!r}, variant {variant!r}, method {method!r}) has no "
        f"row for label(s) {', '.join(repr(m) for m in missing)}; each prompt needs every label "
        f"of the task ({', '.join(weights)})"
    )


def store_imported(conn: sqlite3.Connection, spec: dict, path, task, meta: dict) -> int:
    """One transaction: the study, its models, every staged prompt as a done request and its
    label scores are stored, or nothing is. Returns how many label scores were stored."""
    from workbench.store.requests import studies

    weights = {label.id: label.weight for label in task.labels}
    with transaction(conn):
        study_id = studies.upsert_study(conn, spec["name"], "entity", spec, None)
        # Models in the order the file first names them, each model's prompts likewise.
        models = [m for (m,) in conn.execute("SELECT model FROM score_import_prompts GROUP BY model ORDER BY MIN(no)")]
        for model in models:
            model_id = studies.upsert_model(
                conn,
                identity=f"import:{model}",
                spec=model,
                engine="import",
                name=model,
                base_url=None,
                file_path=str(path),
                file_hash=None,
                params={},
            )
            _plan_prompts(conn, study_id, model_id, path, model)
        # A re-imported prompt replaces the stored one whole: none of its old labels stay.
        conn.execute(
            "DELETE FROM label_scores WHERE request_key IN (SELECT request_key FROM temp.score_import_prompts)"
        )
        stored = 0
        for values in _label_chunks(conn, study_id, task.id, weights):
            conn.executemany(
                "INSERT INTO label_scores (request_key, study_id, model, task, entity, template_id, language, "
                "variant, method, label, intended, weight, continuation, logprob, prob) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            stored += len(values)
        conn.executemany(
            "INSERT OR REPLACE INTO entity_meta (study_id, entity, meta_json) VALUES (?, ?, ?)",
            [(study_id, name, json.dumps(m)) for name, m in meta.items()],
        )
    return stored


def _plan_prompts(conn: sqlite3.Connection, study_id: int, model_id: int, path, model: str) -> None:
    """Plan one model's prompts as requests, PROMPTS_PER_CHUNK at a time (a request is planned
    on its own), and note the key each is stored under."""
    from workbench.store.requests.imported import plan_imported

    after = 0
    while chunk := conn.execute(
        "SELECT no, language, variant, method, entity, template_id, prompt FROM score_import_prompts "
        "WHERE model = ? AND no > ? ORDER BY no LIMIT ?",
        (model, after, PROMPTS_PER_CHUNK),
    ).fetchall():
        after = chunk[-1][0]
        planned = _imported_requests(conn, study_id, path, model, chunk)
        owned = plan_imported(conn, study_id, model_id, planned.values())
        conn.executemany(
            "UPDATE score_import_prompts SET request_key = ? WHERE no = ?",
            [(owned[request.key], no) for no, request in planned.items()],
        )


def _imported_requests(conn: sqlite3.Connection, study_id: int, path, model: str, prompts: list) -> dict[int, Any]:
    """Each prompt (no, language, variant, method, entity, template, text) of one model as a
    planned `score` request. Its key is `request_key` of what identifies the prompt (not the
    file or its numbers, so a prompt imported again replaces itself); a prompt a store written
    before already holds keeps the key it has."""
    from workbench.asking.keys import request_key
    from workbench.store.requests.imported import held_keys
    from workbench.store.requests.queue import PlannedRequest

    planned: dict[int, PlannedRequest] = {}
    earlier: dict[int, str] = {}
    for no, language, variant, method, entity, template, text in prompts:
        identity = {
            "language": language,
            "variant": variant,
            "method": method,
            "entity": entity,
            "template_id": template,
        }
        payload = {"imported": str(path), "meta": {"entity": entity, "template_id": template}}
        if text:
            payload["prompt"] = text
        planned[no] = PlannedRequest(
            request_key(stage="score", model_identity=f"import:{model}", payload={"meta": identity}, repetition=None),
            "score",
            payload,
        )
        earlier[no] = _key_before_request_keys(study_id, (model, language, variant, method, entity, template))
    held = held_keys(conn, study_id, earlier.values())
    return {
        no: PlannedRequest(earlier[no], "score", request.payload) if earlier[no] in held else request
        for no, request in planned.items()
    }


def _key_before_request_keys(study_id: int, prompt: tuple) -> str:
    """The key imports gave a prompt before they were keyed with `request_key`: stores
    written then hold their imported prompts under it, and a re-import replaces them there."""
    import hashlib

    return hashlib.sha256(json.dumps([study_id, *prompt]).encode()).hexdigest()[:32]


def _label_chunks(conn: sqlite3.Connection, study_id: int, task_id: str, weights: dict[str, float]) -> Iterator[list]:
    """The label_scores rows of every staged prompt, prompts in the order the file first names
    them and each prompt's labels in the order of their lines (the order exports keep), CHUNK
    rows at a time; each prompt's probabilities normalised over the labels it scored."""
    rows = conn.execute(
        "SELECT p.no, p.request_key, p.model, p.entity, p.template_id, p.language, p.variant, p.method, "
        "p.intended, l.label, l.continuation, l.logprob FROM score_import_prompts p "
        "JOIN score_import_labels l ON l.prompt_no = p.no ORDER BY p.no, l.line"
    )
    chunk: list[tuple] = []
    for _no, group in groupby(rows, key=lambda row: row[0]):
        labels = list(group)
        known = [row[11] for row in labels if row[11] is not None]
        peak = max(known) if known else 0.0
        total = sum(math.exp(lp - peak) for lp in known)
        for _, request, model, entity, template, language, variant, method, intended, label, continuation, lp in labels:
            prob = math.exp(lp - peak) / total if lp is not None and total else 0.0
            chunk.append(
                (request, study_id, model, task_id, entity, template, language, variant, method, label, intended)
                + (weights[label], continuation, lp, prob)
            )
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
