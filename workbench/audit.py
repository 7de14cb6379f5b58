"""Running a study end to end: register it, resolve its models, plan, drain.

This is the one place the CLI (and later the TUI) calls to run an audit; it
knows the order of things but no method's details beyond `plan_requests`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Callable

from store import queue
from workbench.models import ResolvedModel, generation_params, make_engine, resolve
from workbench.runner import ModelJob, Progress, RunOptions, RunSummary, run_jobs
from workbench.specs import ModelSpec
from workbench.studies import choice


@dataclass
class PreparedModel:
    model_id: int
    resolved: ResolvedModel
    planned: int  # requests new in this planning
    total: int


@dataclass
class PreparedStudy:
    study_id: int
    models: list[PreparedModel]


def prepare(conn: sqlite3.Connection, study: choice.ChoiceStudy, specs: list[ModelSpec] | None = None,
            notify: Callable[[str], None] | None = None) -> PreparedStudy:
    """Store the study and its questions, register models, plan every request."""
    specs = specs or study.models
    study_id = queue.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    question_ids = queue.insert_questions(conn, study_id, study.questions)
    prepared = []
    for spec in specs:
        resolved = resolve(spec, notify)
        params = generation_params(study.generation, spec)
        model_id = queue.upsert_model(
            conn,
            identity=resolved.identity,
            spec=spec.canonical(),
            engine=spec.engine,
            name=spec.name,
            base_url=spec.base_url,
            file_path=resolved.file_path,
            file_hash=resolved.file_hash,
            params=params,
        )
        requests = list(choice.plan_requests(study, resolved.identity, params, question_ids))
        new = queue.plan(conn, study_id, model_id, requests)
        prepared.append(PreparedModel(model_id, resolved, new, len(requests)))
    return PreparedStudy(study_id, prepared)


async def run_prepared(conn: sqlite3.Connection, prepared: PreparedStudy, options: RunOptions,
                       on_progress: Callable[[Progress], None] | None = None) -> RunSummary:
    """Drain the study's queue; failed requests from earlier runs get another chance."""
    queue.requeue_failed(conn, prepared.study_id, [m.model_id for m in prepared.models])
    engines = [make_engine(m.resolved) for m in prepared.models]
    jobs = [
        ModelJob(m.model_id, m.resolved.label, engine, retries=m.resolved.spec.options.get("retries"))
        for m, engine in zip(prepared.models, engines)
    ]
    try:
        return await run_jobs(conn, prepared.study_id, jobs, options, on_progress)
    finally:
        for engine in engines:
            await engine.aclose()
