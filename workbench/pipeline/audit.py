"""Running a study end to end: register it, resolve its models, plan, drain, extract.

This is the one place the CLI (and the TUI) calls to run an audit. It walks a
method's hooks (`workbench.methods`): plan the first stage, run it, then hand over
to the method's later stages. It knows no method by name.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from functools import cache
from operator import attrgetter, itemgetter
from typing import Any

from workbench import methods
from workbench.engines.resolve import ResolvedModel, continue_identities, make_engine, resolve
from workbench.engines.specs import ModelSpec, same_model_twice
from workbench.pipeline import queue_build as replan
from workbench.pipeline.queue_limits import DEFAULT_MAX_REQUESTS, bounded
from workbench.pipeline.run_types import ModelJob, Progress, RunOptions, RunSummary
from workbench.pipeline.runner import Budget, run_jobs
from workbench.store.errors import UserFacingError
from workbench.store.requests import plan_marks, queue, studies


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
    extraction: list[Any] = field(default_factory=list)  # the method's extraction reports (Stages.extraction)

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


def register_model(
    conn: sqlite3.Connection,
    spec: ModelSpec,
    params: dict,
    notify: Callable[[str], None] | None,
    resolved: ResolvedModel | None = None,
) -> tuple[int, ResolvedModel]:
    resolved = resolved or resolve(spec, notify)
    model_id = studies.upsert_model(
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
    return model_id, replace(resolved, stored_label=studies.model_label(conn, model_id))


def first_stage(study) -> str:
    """The stage a study's planned requests belong to (answers, or label scores)."""
    return methods.get(study.method).first_stage


def _digest(value: Any) -> str:
    """A digest of a study, a model's parameters or a planning context that is the same in
    every process: dataclasses field by field, dicts and sets sorted, anything else by its
    repr. Whatever it cannot see the same twice only costs a plan made again, never a plan
    skipped."""
    text = json.dumps(_plain(value), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@cache
def _field_values(kind: type) -> Callable[[Any], tuple]:
    """A dataclass's field values as one tuple, in field order (one C call per object)."""
    names = tuple(f.name for f in fields(kind))
    getter = attrgetter(*names)
    return (lambda o: (getter(o),)) if len(names) == 1 else getter


_PRIMITIVE = frozenset((str, int, float, bool, type(None)))


def _plain(o: Any) -> Any:
    if o is None or isinstance(o, (str, int, float, bool)):
        return o
    if isinstance(o, (list, tuple)):
        return [_plain(x) for x in o]
    if isinstance(o, dict):
        try:  # keys that compare (strings, tuples of strings): sorted by the C sort, no key function
            items = sorted(o.items(), key=itemgetter(0))
        except TypeError:
            items = sorted(o.items(), key=lambda kv: repr(kv[0]))
        return [[repr(k), _plain(v)] for k, v in items]
    if isinstance(o, (set, frozenset)):
        return sorted(map(repr, o))
    if is_dataclass(o) and not isinstance(o, type):
        values = _field_values(type(o))(o)
        if all(type(v) in _PRIMITIVE for v in values):  # most of a study: questions, prompts
            return [type(o).__name__, *values]
        return [type(o).__name__, *map(_plain, values)]
    return repr(o)


@dataclass
class _Unchanged:
    """The models (by identity) whose stored plan was made from this very study, these
    parameters and what the store holds now (identity -> requests planned), and the planning
    context read to tell (with its digest), kept so that it is read once per run."""

    totals: dict[str, int] = field(default_factory=dict)
    context: Any = None
    context_digest: str | None = None


def _unchanged_plans(conn, method, study, resolved_all, model_digests: list[str]) -> _Unchanged:
    """Reading the planning context may store the study's own questions: only done once the
    study is known to be the one planned before, when they are there already."""
    study_id = studies.study_id(conn, study.name)
    if study_id is None:
        return _Unchanged()
    stored = plan_marks.marks(conn, study_id)
    candidates = {
        r.identity: stored[r.identity]
        for r, digest in zip(resolved_all, model_digests)
        if r.identity in stored and stored[r.identity][0] == digest
    }
    if not candidates:
        return _Unchanged()
    context = method.plan_context(conn, study, study_id)
    digest = _digest(context)
    totals = {identity: total for identity, (_s, c, total) in candidates.items() if c == digest}
    return _Unchanged(totals, context, digest)


def prepare(
    conn: sqlite3.Connection,
    study,
    specs: list[ModelSpec] | None = None,
    notify: Callable[[str], None] | None = None,
    max_requests: int = DEFAULT_MAX_REQUESTS,
) -> PreparedStudy:
    """Store the study, register models, plan every first-stage request.
    A plan over `max_requests` is refused (PlanTooLarge) before anything is stored.
    A model whose plan was made from the same study and store (a resume) is not planned again;
    a method with plan units plans again only the units an edit changed (workbench.pipeline.queue_build).
    The study's other models (removed from its file, or replaced by `specs`) are retired:
    their requests superseded, their answers kept (store/requests/plan_marks.py)."""
    method = methods.get(study.method)
    specs = specs or study.models
    # Replicas may change between runs without asking anything again (see continue_identities).
    resolved_all = continue_identities(
        [resolve(spec, notify) for spec in specs], studies.study_identities(conn, study.name), notify
    )
    # Two specs of one file written two ways (llama:default and its path) are one model too.
    why = same_model_twice(list(specs), [str(s) for s in specs], [r.identity for r in resolved_all])
    if why:
        raise UserFacingError(f"{study.path or study.name}: models: {why}")
    params_all = [method.plan_params(study, spec) for spec in specs]
    # Each digest and the planning context once per run (a large study's digest is read in full).
    study_digest = _digest(study)
    model_digests = [_digest([study_digest, r.identity, p]) for r, p in zip(resolved_all, params_all)]
    found = _unchanged_plans(conn, method, study, resolved_all, model_digests)
    unchanged = found.totals
    to_plan = [(s, r, p) for s, r, p in zip(specs, resolved_all, params_all) if r.identity not in unchanged]
    plans = _count_plans(conn, method, study, to_plan, sum(unchanged.values()), max_requests)
    study_id = studies.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
    if found.context_digest is not None:  # read from this same study (its digest matched) and store
        context, context_digest = found.context, found.context_digest
    else:
        context = method.plan_context(conn, study, study_id) if to_plan or not unchanged else None
        context_digest = _digest(context)
    prepared = []
    for spec, resolved, params, digest in zip(specs, resolved_all, params_all, model_digests):
        model_id, resolved = register_model(conn, spec, params, notify, resolved)
        if resolved.identity in unchanged:
            prepared.append(PreparedModel(model_id, resolved, 0, unchanged[resolved.identity]))
            continue
        retired = plan_marks.was_retired(conn, study_id, model_id)
        new, total = _plan_model(conn, method, study, study_id, model_id, resolved.identity, params, context, plans)
        if retired:  # added back: what was planned from its answers counts again with them
            plan_marks.restore_follow_ups(conn, study_id, model_id, method.first_stage)
        plan_marks.mark(conn, study_id, model_id, digest, context_digest, total)
        prepared.append(PreparedModel(model_id, resolved, new, total))
    # The study's models are the ones planned now: a model removed from the file is superseded
    # as a dropped question is (its answers kept; added back, they count again, not asked twice).
    plan_marks.retire_models(conn, study_id, [m.model_id for m in prepared], method.first_stage)
    extractor = None
    helper = method.helper_model(study)
    if helper is not None:
        model_id, resolved = register_model(conn, helper, {}, notify)
        extractor = PreparedModel(model_id, resolved, 0, 0)
    return PreparedStudy(study_id, study, prepared, extractor)


def _plan_model(conn, method, study, study_id: int, model_id: int, identity: str, params, context, plans):
    """Store one model's plan: (requests new in the store, requests in the plan)."""
    units = getattr(method, "plan_units", None)
    if units is not None:
        found = replan.survey(units(study, identity, params, context), plans[identity])
        return replan.plan_model(conn, study_id, model_id, method.first_stage, found)
    requests = plans[identity]
    if requests is None:  # planned again with what the store added (question ids, imported questions)
        requests = list(method.plan(study, identity, params, context))
    plan_marks.forget(conn, study_id, model_id)  # a run killed mid-plan must not trust the old mark
    new = queue.plan(conn, study_id, model_id, requests)
    queue.supersede_others(conn, study_id, model_id, method.first_stage, [r.key for r in requests])
    plan_marks.settle_follow_ups(conn, study_id, model_id, method.first_stage)  # probes go with their answers
    return new, len(requests)


def _count_plans(conn, method, study, to_plan, total: int, max_requests: int) -> dict[str, Any]:
    """Each model's requests (None: plan again once the store has the context; with plan
    units: the units' marks, read once), counted against `max_requests` before anything is
    stored (PlanTooLarge past it)."""
    preview = method.plan_context(None, study, None)
    units = getattr(method, "plan_units", None)
    # A method with a planning context plans again once the store has it (ChoiceEval: question
    # ids): its first pass only counts, so the plan is never held in memory twice.
    replanned = preview is not None or units is not None
    study_id = studies.study_id(conn, study.name)
    what = f"study {study.name!r}"
    plans: dict[str, Any] = {}
    for _spec, resolved, params in to_plan:
        if units is not None:  # units marked with the same digest count by their mark, unbuilt
            stored = plan_marks.unit_marks(conn, study_id, resolved.identity)
            total = replan.count_units(
                units(study, resolved.identity, params, preview), stored, total, max_requests, what
            )
            plans[resolved.identity] = stored
            continue
        requests = bounded(
            method.plan(study, resolved.identity, params, preview), total, max_requests, what, keep=not replanned
        )
        total += requests if replanned else len(requests)
        plans[resolved.identity] = None if replanned else requests
    return plans


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

    budget = Budget(options.limit)  # --limit counts every request the run sends, over all stages
    try:
        answers = await run_jobs(
            conn,
            prepared.study_id,
            [job(m) for m in prepared.models],
            stage_options(method.first_stage),
            on_progress,
            budget,
        )
        summary = AuditSummary(answers)

        async def run_stage(stage: str, jobs: list[ModelJob]) -> RunSummary:
            result = await run_jobs(conn, prepared.study_id, jobs, stage_options(stage), on_progress, budget)
            summary.later.append(result)
            return result

        stages = methods.Stages(conn, prepared, job, run_stage, summary.extraction)
        await method.after_answers(stages)
        return summary
    finally:
        for engine in engines.values():
            await engine.aclose()
