"""Running a study end to end: register it, resolve its models, plan, drain, extract.

This is the one place the CLI (and the TUI) calls to run an audit; it knows the
order of the stages but no method's details beyond its planning and extraction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.audit_limits import DEFAULT_MAX_REQUESTS, bounded
from workbench.models import ResolvedModel, generation_params, make_engine, resolve
from workbench.runner import ModelJob, Progress, RunOptions, RunSummary, run_jobs
from workbench.specs import ModelSpec
from workbench.store import queue
from workbench.studies import choice, choice_extraction
from workbench.studies.choice_extraction import ExtractionReport


@dataclass
class PreparedModel:
    model_id: int
    resolved: ResolvedModel
    planned: int  # requests new in this planning
    total: int


@dataclass
class PreparedStudy:
    study_id: int
    study: choice.ChoiceStudy
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


def _plan(study, identity: str, params: dict, question_ids: dict):
    """The study's first-stage requests for one model, lazily."""
    if study.method == "coldstart":
        from workbench.studies import coldstart

        return coldstart.plan_requests(study, identity, params)
    if study.method == "identity":
        from workbench.studies import identity as identity_study

        return identity_study.plan_requests(study, identity, params)
    if study.method == "entity":
        from workbench.studies import entity

        return entity.plan_requests(study, identity)
    return choice.plan_requests(study, identity, params, question_ids)


def _register(conn: sqlite3.Connection, spec: ModelSpec, params: dict,
              notify: Callable[[str], None] | None,
              resolved: ResolvedModel | None = None) -> tuple[int, ResolvedModel]:
    resolved = resolved or resolve(spec, notify)
    model_id = queue.upsert_model(
        conn, identity=resolved.identity, spec=spec.canonical(), engine=spec.engine, name=spec.name,
        base_url=spec.base_url, file_path=resolved.file_path, file_hash=resolved.file_hash, params=params,
    )
    return model_id, resolved


def first_stage(study) -> str:
    """The stage a study's planned requests belong to: answers, or label scores."""
    return "score" if study.method == "entity" else "answer"


def prepare(conn: sqlite3.Connection, study: choice.ChoiceStudy, specs: list[ModelSpec] | None = None,
            notify: Callable[[str], None] | None = None,
            max_requests: int = DEFAULT_MAX_REQUESTS) -> PreparedStudy:
    """Store the study and its questions, register models, plan every answer.
    A plan over `max_requests` is refused (PlanTooLarge) before anything is stored."""
    specs = specs or study.models
    question_ids = {}
    if study.method == "choice":
        question_ids = {(q.topic, q.cluster, q.text): 0 for q in study.questions}  # for counting only
    plans, total = [], 0
    for spec in specs:
        params = generation_params(study.generation, spec)
        resolved = resolve(spec, notify)
        requests = bounded(_plan(study, resolved.identity, params, question_ids), total, max_requests,
                           f"study {study.name!r}")
        total += len(requests)
        plans.append((spec, params, resolved, requests))
    study_id = queue.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    if study.method == "choice":
        queue.insert_questions(conn, study_id, study.questions)
        question_ids = queue.study_questions(conn, study_id, study.verified_only)
    prepared = []
    for spec, params, resolved, requests in plans:
        model_id, resolved = _register(conn, spec, params, notify, resolved)
        if study.method == "choice":  # again, with the stored questions' ids (and imported questions)
            requests = list(_plan(study, resolved.identity, params, question_ids))
        new = queue.plan(conn, study_id, model_id, requests)
        queue.supersede_others(conn, study_id, model_id, first_stage(study), [r.key for r in requests])
        prepared.append(PreparedModel(model_id, resolved, new, len(requests)))
    extractor = None
    if study.method == "choice" and study.extraction.method == "experts" and study.extraction.model is not None:
        model_id, resolved = _register(conn, study.extraction.model, {}, notify)
        extractor = PreparedModel(model_id, resolved, 0, 0)
    if study.method == "identity" and study.judge is not None:
        model_id, resolved = _register(conn, study.judge, {}, notify)
        extractor = PreparedModel(model_id, resolved, 0, 0)
    return PreparedStudy(study_id, study, prepared, extractor)


async def run_prepared(conn: sqlite3.Connection, prepared: PreparedStudy, options: RunOptions,
                       on_progress: Callable[[Progress], None] | None = None) -> AuditSummary:
    """Answer, then extract. Failed requests from earlier runs get another chance."""
    every = prepared.models + ([prepared.extractor] if prepared.extractor else [])
    queue.requeue_failed(conn, prepared.study_id, [m.model_id for m in every])
    engines = {m.model_id: make_engine(m.resolved) for m in every}
    try:
        jobs = [ModelJob(m.model_id, m.resolved.label, engines[m.model_id],
                         retries=m.resolved.spec.options.get("retries")) for m in prepared.models]
        answers = await run_jobs(conn, prepared.study_id, jobs,
                                 RunOptions(**{**options.__dict__, "stage": first_stage(prepared.study)}), on_progress)
        summary = AuditSummary(answers)
        if prepared.study.method == "entity":
            from workbench.studies import entity

            for m in prepared.models:
                entity.store_scores(conn, prepared.study, prepared.study_id, m.model_id, m.resolved.label)
            return summary
        if prepared.study.method == "identity":
            from workbench.studies import identity

            for m in prepared.models:
                identity.plan_probes(conn, prepared.study, prepared.study_id, m.model_id, m.resolved.identity,
                                     generation_params(prepared.study.generation, m.resolved.spec))
            if prepared.study.probe:
                summary.later.append(await run_jobs(conn, prepared.study_id, jobs,
                                                    RunOptions(**{**options.__dict__, "stage": "probe"}), on_progress))
            if prepared.study.probe and prepared.extractor is not None:
                judge = prepared.extractor
                for m in prepared.models:
                    identity.plan_judging(conn, prepared.study, prepared.study_id, m.model_id, judge.model_id,
                                          judge.resolved.identity)
                judge_job = ModelJob(judge.model_id, judge.resolved.label, engines[judge.model_id],
                                     retries=judge.resolved.spec.options.get("retries"))
                summary.later.append(await run_jobs(conn, prepared.study_id, [judge_job],
                                                    RunOptions(**{**options.__dict__, "stage": "judge"}), on_progress))
            for m in prepared.models:
                identity.store_outputs(conn, prepared.study, prepared.study_id, m.model_id, m.resolved.label)
            return summary
        if prepared.study.method == "coldstart":
            from workbench.studies import coldstart

            for m in prepared.models:
                coldstart.parse_answers(conn, prepared.study, prepared.study_id, m.model_id, m.resolved.label)
            return summary
        settings = prepared.study.extraction
        if settings.method == "list":
            for m in prepared.models:
                summary.extraction.append(choice_extraction.extract_with_list_parser(
                    conn, prepared.study_id, m.model_id, m.resolved.label, settings.k))
            return summary
        extractor_jobs: dict[int, ModelJob] = {}
        for m in prepared.models:
            x = prepared.extractor or m
            choice_extraction.plan_experts(conn, prepared.study_id, m.model_id, x.model_id, x.resolved.identity,
                                           settings)
            extractor_jobs[x.model_id] = ModelJob(x.model_id, x.resolved.label, engines[x.model_id],
                                                  retries=x.resolved.spec.options.get("retries"))
        summary.later.append(await run_jobs(
            conn, prepared.study_id, list(extractor_jobs.values()),
            RunOptions(**{**options.__dict__, "stage": "extract"}), on_progress))
        for m in prepared.models:
            summary.extraction.append(choice_extraction.vote(conn, prepared.study_id, m.model_id,
                                                             m.resolved.label, settings))
        return summary
    finally:
        for engine in engines.values():
            await engine.aclose()


async def generate_questions(conn: sqlite3.Connection, study: choice.ChoiceStudy, spec: ModelSpec | None,
                             options: RunOptions, on_progress: Callable[[Progress], None] | None = None,
                             notify: Callable[[str], None] | None = None):
    """Adapt the clusters to each `generate` topic and write its questions (stored unverified)."""
    from workbench.studies import choice_generation as generation

    study_id = queue.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    queue.insert_questions(conn, study_id, study.questions)
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
