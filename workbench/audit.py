"""Running a study end to end: register it, resolve its models, plan, drain, extract.

This is the one place the CLI (and the TUI) calls to run an audit. It walks a
method's hooks (`workbench.methods`): plan the first stage, run it, then hand over
to the method's later stages. It knows no method by name.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from workbench import methods
from workbench.audit_limits import DEFAULT_MAX_REQUESTS, bounded
from workbench.methods.choice import study as choice
from workbench.methods.choice.extraction import ExtractionReport
from workbench.models import ResolvedModel, continue_identities, make_engine, resolve
from workbench.runner import ModelJob, Progress, RunOptions, RunSummary, run_jobs
from workbench.specs import ModelSpec
from workbench.store import questions as question_store
from workbench.store import queue


@dataclass
class PreparedModel:
    model_id: int
    resolved: ResolvedModel
    planned: int  # requests new in this planning
    total: int


@dataclass
class PreparedStudy:
    study_id: int
    study: Any  # the study of its method (ChoiceStudy, ColdStartStudy, IdentityStudy, EntityStudy, ...)
    models: list[PreparedModel]
    extractor: PreparedModel | None = None  # a separate extraction (or probe-judging) model, if the study names one


@dataclass
class AuditSummary:
    answers: RunSummary
    later: list[RunSummary] = field(default_factory=list)  # extraction, probe and judge stages
    extraction: list[ExtractionReport] = field(default_factory=list)

    @property
    def cancelled(self) -> bool:
        return self.answers.cancelled or any(s.cancelled for s in self.later)

    @property
    def failed(self) -> int:
        return self.answers.failed + sum(s.failed for s in self.later)

    @property
    def pending(self) -> int:
        return self.answers.pending + sum(s.pending for s in self.later)

    @property
    def progress(self) -> list[Progress]:
        return self.answers.progress + [p for s in self.later for p in s.progress]


def _register(
    conn: sqlite3.Connection,
    spec: ModelSpec,
    params: dict,
    notify: Callable[[str], None] | None,
    resolved: ResolvedModel | None = None,
) -> tuple[int, ResolvedModel]:
    resolved = resolved or resolve(spec, notify)
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
    # Results are stored under the model's first label: a pool whose replicas changed is
    # still one model, in one column.
    return model_id, replace(resolved, stored_label=queue.model_label(conn, model_id))


def first_stage(study) -> str:
    """The stage a study's planned requests belong to (answers, or label scores)."""
    return methods.get(study.method).first_stage


def prepare(
    conn: sqlite3.Connection,
    study,
    specs: list[ModelSpec] | None = None,
    notify: Callable[[str], None] | None = None,
    max_requests: int = DEFAULT_MAX_REQUESTS,
) -> PreparedStudy:
    """Store the study, register models, plan every first-stage request.
    A plan over `max_requests` is refused (PlanTooLarge) before anything is stored."""
    method = methods.get(study.method)
    specs = specs or study.models
    preview = method.plan_context(None, study, None)
    # A method with a planning context plans again once the store has it (ChoiceEval: question
    # ids): its first pass only counts, so the plan is never held in memory twice.
    replanned = preview is not None
    plans, total = [], 0
    # Replicas may change between runs without asking anything again (see continue_identities).
    resolved_all = continue_identities(
        [resolve(spec, notify) for spec in specs], queue.study_identities(conn, study.name), notify
    )
    for spec, resolved in zip(specs, resolved_all):
        params = method.plan_params(study, spec)
        requests = bounded(
            method.plan(study, resolved.identity, params, preview),
            total,
            max_requests,
            f"study {study.name!r}",
            keep=not replanned,
        )
        total += requests if replanned else len(requests)
        plans.append((spec, params, resolved, requests))
    study_id = queue.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    context = method.plan_context(conn, study, study_id)
    prepared = []
    for spec, params, resolved, requests in plans:
        model_id, resolved = _register(conn, spec, params, notify, resolved)
        if replanned:  # planned again with what the store added (question ids, imported questions)
            requests = list(method.plan(study, resolved.identity, params, context))
        new = queue.plan(conn, study_id, model_id, requests)
        queue.supersede_others(conn, study_id, model_id, method.first_stage, [r.key for r in requests])
        prepared.append(PreparedModel(model_id, resolved, new, len(requests)))
    extractor = None
    helper = method.helper_model(study)
    if helper is not None:
        model_id, resolved = _register(conn, helper, {}, notify)
        extractor = PreparedModel(model_id, resolved, 0, 0)
    return PreparedStudy(study_id, study, prepared, extractor)


async def run_prepared(
    conn: sqlite3.Connection,
    prepared: PreparedStudy,
    options: RunOptions,
    on_progress: Callable[[Progress], None] | None = None,
) -> AuditSummary:
    """The first stage, then whatever the method does after it. Failed requests
    from earlier runs get another chance."""
    method = methods.get(prepared.study.method)
    every = prepared.models + ([prepared.extractor] if prepared.extractor else [])
    queue.requeue_failed(conn, prepared.study_id, [m.model_id for m in every])
    engines = {m.model_id: make_engine(m.resolved) for m in every}

    def job(m: PreparedModel) -> ModelJob:
        return ModelJob(
            m.model_id, m.resolved.label, engines[m.model_id], retries=m.resolved.spec.options.get("retries")
        )

    def stage_options(stage: str) -> RunOptions:
        return RunOptions(**{**options.__dict__, "stage": stage})

    try:
        answers = await run_jobs(
            conn, prepared.study_id, [job(m) for m in prepared.models], stage_options(method.first_stage), on_progress
        )
        summary = AuditSummary(answers)

        async def run_stage(stage: str, jobs: list[ModelJob]) -> RunSummary:
            result = await run_jobs(conn, prepared.study_id, jobs, stage_options(stage), on_progress)
            summary.later.append(result)
            return result

        stages = methods.Stages(conn, prepared, job, run_stage, summary.extraction)
        await method.after_answers(stages)
        return summary
    finally:
        for engine in engines.values():
            await engine.aclose()


async def generate_questions(
    conn: sqlite3.Connection,
    study: choice.ChoiceStudy,
    spec: ModelSpec | None,
    options: RunOptions,
    on_progress: Callable[[Progress], None] | None = None,
    notify: Callable[[str], None] | None = None,
):
    """Adapt the clusters to each `generate` topic and write its questions (stored unverified)."""
    from workbench.methods.choice import generation

    study_id = queue.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    question_store.insert_questions(conn, study_id, study.questions)
    spec = spec or study.question_generation.model or study.models[0]
    model_id, resolved = _register(conn, spec, {}, notify)
    engine = make_engine(resolved)
    report = generation.GenerationReport()
    job = ModelJob(model_id, resolved.label, engine, retries=spec.options.get("retries"))
    try:
        generation.plan_adaptations(conn, study, study_id, model_id, resolved.identity)
        queue.requeue_failed(conn, study_id, [model_id])
        await run_jobs(conn, study_id, [job], RunOptions(**{**options.__dict__, "stage": "adapt"}), on_progress)
        generation.plan_questions(conn, study, study_id, model_id, resolved.identity, report)
        await run_jobs(conn, study_id, [job], RunOptions(**{**options.__dict__, "stage": "generate"}), on_progress)
        generation.store_generated(conn, study_id, model_id, resolved.identity, report)
    finally:
        await engine.aclose()
    return report
