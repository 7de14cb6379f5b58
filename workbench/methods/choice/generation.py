"""LLM-assisted questions (docs/methods.md §1): adapt clusters to a topic, then generate questions.

Both steps go through the persistent queue (stages `adapt` and `generate`), so a
killed generation resumes without asking twice. Replies are JSON constrained by a
schema (a grammar on llama.cpp) so that small models stay parseable; replies that
still cannot be parsed are kept in `responses` and counted. Each generated
question records its provenance (generator model, request, prompt and seed are in
that request) and starts unverified.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.asking.keys import request_key
from workbench.asking.prompts import fill, load_prompt
from workbench.methods.choice.study import ChoiceStudy, Question
from workbench.store.requests import answers, queue, studies
from workbench.store.requests import questions as question_store

if TYPE_CHECKING:
    from workbench.engines.specs import ModelSpec
    from workbench.pipeline.run_types import Progress, RunOptions

ADAPT_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 80}, "description": {"type": "string", "maxLength": 200}},
    "required": ["name", "description"],
}


def questions_schema(n: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "questions": {"type": "array", "minItems": n, "maxItems": n, "items": {"type": "string", "maxLength": 200}}
        },
        "required": ["questions"],
    }


@dataclass
class GenerationReport:
    adapted: int = 0
    adapt_unparseable: int = 0
    generated: int = 0  # questions stored
    generate_unparseable: int = 0
    per_topic: dict[str, int] = field(default_factory=dict)


def plan_adaptations(conn: sqlite3.Connection, study: ChoiceStudy, study_id: int, model_id: int, identity: str) -> int:
    settings = study.question_generation
    template = load_prompt(settings.adapt_prompt, "adapt_cluster.txt")
    planned = []
    for topic in study.generate:
        for cluster in study.clusters:
            payload = {
                "messages": [
                    {
                        "role": "user",
                        "content": fill(template, topic=topic, cluster=cluster.name, description=cluster.description),
                    }
                ],
                "params": {
                    "temperature": settings.temperature,
                    "max_tokens": 160,
                    "seed": study.seed,
                    "json_schema": ADAPT_SCHEMA,
                },
                "meta": {"topic": topic, "cluster": cluster.name},
            }
            planned.append(
                queue.PlannedRequest(
                    request_key(stage="adapt", model_identity=identity, payload=payload, repetition=None),
                    "adapt",
                    payload,
                    seed=study.seed,
                )
            )
    return queue.plan(conn, study_id, model_id, planned)


def _json_object(text: str | None) -> dict | None:
    if not text:
        return None
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start : end + 1]) if 0 <= start < end else None
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def plan_questions(
    conn: sqlite3.Connection, study: ChoiceStudy, study_id: int, model_id: int, identity: str, report: GenerationReport
) -> int:
    """One `generate` request per adapted cluster. A cluster whose adaptation
    failed or could not be parsed keeps its general name (and is counted)."""
    settings = study.question_generation
    template = load_prompt(settings.generate_prompt, "generate_questions.txt")
    descriptions = {c.name: c.description for c in study.clusters}
    planned = []
    for _key, status, payload_json, text in answers.replies(conn, study_id, model_id, "adapt"):
        meta = json.loads(payload_json)["meta"]
        if meta["topic"] not in study.generate:
            continue
        adapted = _json_object(text) if status == "done" else None
        if adapted and isinstance(adapted.get("name"), str) and adapted["name"].strip():
            name, description = adapted["name"].strip(), str(adapted.get("description", "")).strip()
            report.adapted += 1
        else:
            name, description = meta["cluster"], descriptions.get(meta["cluster"], "")
            report.adapt_unparseable += 1
        n = study.generate[meta["topic"]]
        payload = {
            "messages": [
                {
                    "role": "user",
                    "content": fill(template, topic=meta["topic"], cluster=name, description=description, n=str(n)),
                }
            ],
            "params": {
                "temperature": settings.temperature,
                "max_tokens": settings.max_tokens,
                "seed": study.seed,
                "json_schema": questions_schema(n),
            },
            "meta": {**meta, "label": name, "n": n},
        }
        planned.append(
            queue.PlannedRequest(
                request_key(stage="generate", model_identity=identity, payload=payload, repetition=None),
                "generate",
                payload,
                seed=study.seed,
            )
        )
    new = queue.plan(conn, study_id, model_id, planned)
    queue.supersede_others(conn, study_id, model_id, "generate", [p.key for p in planned])
    return new


def store_generated(
    conn: sqlite3.Connection, study_id: int, model_id: int, identity: str, report: GenerationReport
) -> None:
    for key, status, payload_json, text in answers.replies(conn, study_id, model_id, "generate"):
        meta = json.loads(payload_json)["meta"]
        data = _json_object(text) if status == "done" else None
        texts = data.get("questions") if data else None
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            report.generate_unparseable += 1
            continue
        questions = [
            Question(meta["topic"], meta["cluster"], meta["label"], i, " ".join(t.split()), "generated")
            for i, t in enumerate(texts[: meta["n"]])
            if t.strip()
        ]
        before = len(question_store.study_questions(conn, study_id))
        question_store.insert_questions(
            conn,
            study_id,
            questions,
            provenance={"model": identity, "request_key": key, "adapted_cluster": meta["label"]},
        )
        added = len(question_store.study_questions(conn, study_id)) - before
        report.generated += added
        report.per_topic[meta["topic"]] = report.per_topic.get(meta["topic"], 0) + added


async def generate_questions(
    conn: sqlite3.Connection,
    study: ChoiceStudy,
    spec: ModelSpec | None,
    options: RunOptions,
    on_progress: Callable[[Progress], None] | None = None,
    notify: Callable[[str], None] | None = None,
):
    """Adapt the clusters to each `generate` topic and write its questions (stored unverified):
    `workbench generate` and the Design screen's `g` (the method's hook `generate_questions`)."""
    from workbench.engines.resolve import make_engine
    from workbench.pipeline.audit import register_model
    from workbench.pipeline.run_types import ModelJob, RunOptions  # noqa: F811 (at run time)
    from workbench.pipeline.runner import run_jobs
    from workbench.store.requests.file_questions import sync_file_questions

    study_id = studies.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    sync_file_questions(conn, study_id, study.questions)
    spec = spec or study.question_generation.model or study.models[0]
    model_id, resolved = register_model(conn, spec, {}, notify)
    engine = make_engine(resolved)
    report = GenerationReport()
    job = ModelJob(model_id, resolved.label, engine, retries=spec.options.get("retries"))
    try:
        plan_adaptations(conn, study, study_id, model_id, resolved.identity)
        queue.requeue_failed(conn, study_id, [model_id])
        await run_jobs(conn, study_id, [job], RunOptions(**{**options.__dict__, "stage": "adapt"}), on_progress)
        plan_questions(conn, study, study_id, model_id, resolved.identity, report)
        await run_jobs(conn, study_id, [job], RunOptions(**{**options.__dict__, "stage": "generate"}), on_progress)
        store_generated(conn, study_id, model_id, resolved.identity, report)
    finally:
        await engine.aclose()
    return report
