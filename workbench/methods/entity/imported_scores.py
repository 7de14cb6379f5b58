"""Label scores computed elsewhere, read from their file and stored as a study's scored prompts.

Each prompt is stored as a done `score` request of the study (planned through the store, keyed
with `request_key`), so status, exports and metrics treat an imported study like a scored one."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any

SCORE_IMPORT_COLUMNS = ("entity", "template_id", "label", "logprob")


def read_scores(path, weights: dict[str, float]) -> dict[tuple, dict[str, Any]]:
    """The file's prompts by (model, language, variant, method, entity, template): each with
    its labels' (logprob, continuation), its intended label, first line and prompt text."""
    from workbench.csv_input import CsvInputError, read_rows, real, whole

    prompts: dict[tuple, dict[str, Any]] = {}
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
        key = (
            row.get("model") or "imported",
            row.get("language") or "english",
            row.get("variant") or "zero_shot_text",
            row.get("method") or "exact",
            row["entity"].strip(),
            whole(path, line, "template_id", row["template_id"], 0),
        )
        prompt = prompts.setdefault(
            key,
            {
                "labels": {},
                "intended": (row.get("intended") or "").strip() or None,
                "line": line,
                "text": row.get("prompt") or None,  # as `export --what scores` writes it
            },
        )
        if label in prompt["labels"]:
            raise CsvInputError(f"{path}: line {line}: label {label!r} of this prompt appears twice")
        prompt["labels"][label] = (logprob, row.get("continuation") or f" {label}")
    for key, prompt in prompts.items():
        # A prompt is one unit: probabilities are normalised over its labels, so a label
        # left out would be kept from an earlier import, or shift the others' share.
        missing = [label for label in weights if label not in prompt["labels"]]
        if missing:
            model, language, variant, method, entity, template = key
            raise CsvInputError(
                f"{path}: line {prompt['line']}: the prompt of entity {entity!r}, template_id {template} "
                f"(model {model!r}, language {language!r}, variant {variant!r}, method {method!r}) has no "
                f"row for label(s) {', '.join(repr(m) for m in missing)}; each prompt needs every label "
                f"of the task ({', '.join(weights)})"
            )
    return prompts


def store_imported(conn: sqlite3.Connection, spec: dict, path, task, prompts: dict, meta: dict) -> int:
    """One transaction: the study, its models, every prompt as a done request and its label
    scores are stored, or nothing is. Returns how many label scores were stored."""
    from workbench.store import queue
    from workbench.store.imported import plan_imported

    weights = {label.id: label.weight for label in task.labels}
    with queue.transaction(conn):
        study_id = queue.upsert_study(conn, spec["name"], "entity", spec, None)
        by_model: dict[str, dict[tuple, dict[str, Any]]] = defaultdict(dict)
        for key, prompt in prompts.items():
            by_model[key[0]][key] = prompt
        stored: dict[tuple, str] = {}  # each prompt's request key in the store
        for model, model_prompts in by_model.items():
            model_id = queue.upsert_model(
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
            planned = _imported_requests(conn, study_id, path, model_prompts)
            owned = plan_imported(conn, study_id, model_id, planned.values())
            stored.update((key, owned[request.key]) for key, request in planned.items())
        values = [
            row
            for key, prompt in prompts.items()
            for row in _label_rows(stored[key], study_id, task.id, key, prompt, weights)
        ]
        # A re-imported prompt replaces the stored one whole: none of its old labels stay.
        conn.executemany("DELETE FROM label_scores WHERE request_key = ?", [(k,) for k in stored.values()])
        conn.executemany(
            "INSERT INTO label_scores (request_key, study_id, model, task, entity, template_id, language, "
            "variant, method, label, intended, weight, continuation, logprob, prob) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
        conn.executemany(
            "INSERT OR REPLACE INTO entity_meta (study_id, entity, meta_json) VALUES (?, ?, ?)",
            [(study_id, name, json.dumps(m)) for name, m in meta.items()],
        )
    return len(values)


def _imported_requests(conn: sqlite3.Connection, study_id: int, path, prompts: dict) -> dict[tuple, Any]:
    """Each prompt of one model as a planned `score` request. Its key is `request_key` of
    what identifies the prompt (not the file or its numbers, so a prompt imported again
    replaces itself); a prompt a store written before already holds keeps the key it has."""
    from workbench.keys import request_key
    from workbench.store.imported import held_keys
    from workbench.store.queue import PlannedRequest

    planned: dict[tuple, PlannedRequest] = {}
    for key, prompt in prompts.items():
        model, language, variant, method, entity, template = key
        identity = {
            "language": language,
            "variant": variant,
            "method": method,
            "entity": entity,
            "template_id": template,
        }
        payload = {"imported": str(path), "meta": {"entity": entity, "template_id": template}}
        if prompt["text"]:
            payload["prompt"] = prompt["text"]
        planned[key] = PlannedRequest(
            request_key(stage="score", model_identity=f"import:{model}", payload={"meta": identity}, repetition=None),
            "score",
            payload,
        )
    earlier = {key: _key_before_request_keys(study_id, key) for key in prompts}
    held = held_keys(conn, study_id, earlier.values())
    return {
        key: PlannedRequest(earlier[key], "score", request.payload) if earlier[key] in held else request
        for key, request in planned.items()
    }


def _key_before_request_keys(study_id: int, prompt: tuple) -> str:
    """The key imports gave a prompt before they were keyed with `request_key`: stores
    written then hold their imported prompts under it, and a re-import replaces them there."""
    import hashlib

    return hashlib.sha256(json.dumps([study_id, *prompt]).encode()).hexdigest()[:32]


def _label_rows(
    request: str, study_id: int, task_id: str, key: tuple, prompt: dict, weights: dict[str, float]
) -> list[tuple]:
    """The prompt's label_scores rows, its probabilities normalised over the labels it scored."""
    import math

    model, language, variant, method, entity, template = key
    known = [lp for lp, _c in prompt["labels"].values() if lp is not None]
    peak = max(known) if known else 0.0
    total = sum(math.exp(lp - peak) for lp in known)
    rows = []
    for label, (logprob, continuation) in prompt["labels"].items():
        prob = math.exp(logprob - peak) / total if logprob is not None and total else 0.0
        rows.append(
            (
                request,
                study_id,
                model,
                task_id,
                entity,
                template,
                language,
                variant,
                method,
                label,
                prompt["intended"],
                weights[label],
                continuation,
                logprob,
                prob,
            )
        )
    return rows
