"""`workbench run`, `generate` and `questions`: asking models, with live progress."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

from workbench.cli.common import (
    UserError,
    add_db,
    bounded_int,
    make_console,
    new_table,
    open_store,
    study_id_of,
    the_study,
)
from workbench.engines.specs import MAX_CONCURRENCY, parse_spec, same_model_twice
from workbench.methods.study_files import load_study
from workbench.pipeline import run_records as exports
from workbench.pipeline.queue_limits import DEFAULT_MAX_REQUESTS
from workbench.store.db import new_store_kept_only_if_used
from workbench.store.reads import shared as reads
from workbench.store.requests import questions as question_store
from workbench.store.requests import queue
from workbench.studies.limits import last_seed_problem
from workbench.text.literal import literal_text, visible
from workbench.text.words import flagged_note, plural


def replica_label(url: str) -> str:
    """A replica's URL without what every replica shares ("http://h:8001/v1" -> "h:8001")."""
    short = url.split("://", 1)[-1].rstrip("/")
    return short[: -len("/v1")] if short.endswith("/v1") else short


def progress_display(console: Console, quiet: bool):
    """A rich progress display with one bar per model and stage (and under a pool's model one
    per replica: its share of the answers, failures, mean latency and state), and its callback."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Column

    from workbench.cli.run_lines import ProgressLines

    # At 80 columns a long model label would squeeze the bar and the count out of the line:
    # the label and the detail share what the bar and count leave, each cut with an ellipsis.
    progress = Progress(
        TextColumn("{task.description}", table_column=Column(ratio=2, no_wrap=True, overflow="ellipsis")),
        BarColumn(bar_width=12),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}", table_column=Column(ratio=3, no_wrap=True, overflow="ellipsis")),
        expand=True,
        console=console,
        disable=quiet,
        transient=False,
    )
    tasks: dict[Any, Any] = {}
    lines = None if quiet or console.is_terminal else ProgressLines(console)  # bars draw nowhere but a terminal

    def on_progress(p) -> None:
        if lines is not None:
            lines(p)
        if (p.model, p.stage) not in tasks:
            # The stage first: a long model name is cut, not the stage.
            tasks[p.model, p.stage] = progress.add_task(
                escape(f"{p.stage} · {visible(p.model)}"), total=p.total, detail=""
            )
        waiting = f" · {escape(p.waiting)}" if p.waiting else ""
        progress.update(
            tasks[p.model, p.stage],
            completed=p.done + p.failed,
            total=p.total,
            detail=f"{p.eta_text} · {p.failed} failed · {p.rate_text}{waiting}",  # the ETA first: cut last at 80 columns
        )
        answered = sum(r["done"] for r in p.endpoints)  # each replica's bar: its share of the pool's answers
        for replica in p.endpoints:
            key = (p.model, replica["url"])
            if key not in tasks:
                tasks[key] = progress.add_task(escape(f"  ↳ {visible(replica_label(replica['url']))}"), detail="")
            latency = f"{replica['latency_s']:.2f} s a reply" if replica.get("latency_s") is not None else "-"
            progress.update(
                tasks[key],
                completed=replica["done"],
                total=max(answered, 1),
                detail=f"{escape(visible(replica['state']))} · {replica['failed']} failed · {latency} · "
                f"{replica['in_flight']} in flight",  # the state first: at 80 columns the end is cut
            )

    return progress, on_progress


def run_study(
    study_path: str,
    db: str,
    model_specs: list[str] | None,
    limit: int | None,
    concurrency: int | None,
    console: Console,
    quiet: bool = False,
    max_requests: int = DEFAULT_MAX_REQUESTS,
) -> int:
    """Plan and run a study with a live progress display; returns the exit status."""
    from workbench.engines.base import EngineError
    from workbench.pipeline.audit import prepare, run_prepared
    from workbench.pipeline.run_types import RunOptions, redaction_note

    study = load_study(study_path)
    specs = [parse_spec(s) for s in model_specs] if model_specs else list(study.models)
    if model_specs and (why := same_model_twice(specs, model_specs)):
        raise UserError(f"--model: {why}")
    for spec in specs if model_specs else []:
        if "seed" in spec.options and (
            why := last_seed_problem(spec.options["seed"], getattr(study, "repetitions", 1), "repetitions")
        ):
            raise UserError(f"--model {spec}: {why}")
    for warning in getattr(study, "warnings", []):
        console.print(literal_text(f"note: {warning}"), style="yellow", soft_wrap=True)
    if concurrency:
        specs = [s.with_options(concurrency=concurrency) for s in specs]
    with new_store_kept_only_if_used(db):
        conn = open_store(db)
        try:
            prepared = prepare(conn, study, specs, notify=lambda msg: console.print(msg), max_requests=max_requests)
        except BaseException:
            conn.close()
            raise
    for model in prepared.models:
        console.print(
            literal_text(
                f"{study.name} · {model.resolved.label}: {plural(model.total, 'request')} "
                f"({model.planned} newly planned) · database {db}"
            ),
            soft_wrap=True,
        )
    progress, on_progress = progress_display(console, quiet)
    asked_before = reads.answered(conn, prepared.study_id)[1]  # what another process answers meanwhile: the rest

    options = RunOptions(limit=limit)
    try:
        with progress:
            summary = asyncio.run(run_prepared(conn, prepared, options, on_progress))
    except KeyboardInterrupt:
        left = sum(reads.unanswered(conn, prepared.study_id, queue.claim_owner())[:2])
        console.print(f"Interrupted. {plural(left, 'request')} left pending; run the same command again to resume.")
        return 130
    except EngineError as exc:  # an engine that cannot start: one line, not a traceback
        raise UserError(str(exc)) from None
    print_extraction(summary.extraction, console)
    if note := redaction_note(summary.progress):
        console.print(note, markup=False, soft_wrap=True, style="yellow")
    for p in summary.progress:
        if p.stopped_reason:
            console.print(literal_text(f"{p.model}: {p.stopped_reason}"), style="red", soft_wrap=True)
    if summary.failed:
        last = next((p.last_error for p in summary.progress if p.last_error), "")
        console.print(
            literal_text(
                f"{plural(summary.failed, 'request')} failed (last error: {last}); "
                f"`workbench status --db {db}` shows why, and running again retries them."
            ),
            style="red",
            soft_wrap=True,
        )
        return 1
    return report_pending(conn, prepared.study_id, summary, limit, console, asked_before)


def print_extraction(reports, console: Console) -> None:
    """One line per model whose answers were extracted: lists, experts' agreement, grounding."""
    for report in reports:
        if not report.answers:
            continue
        answers = plural(report.answers, "answer")
        line = f"Extracted ranked lists for {answers} ({report.empty} with no recommendation)"
        if report.expert_replies:
            agreement = f"{report.mean_agreement:.2f}" if report.mean_agreement is not None else "n/a"
            line += (
                f"; {plural(report.expert_replies, 'expert reply', 'expert replies')}, "
                f"{report.unparseable} unparseable (kept), "
                f"mean expert agreement (Jaccard) {agreement}"
            )
            what = "dropped" if report.grounding == "drop" else "kept, flagged"
            voted = plural(report.ungrounded, "voted entity", "voted entities")
            line += f"; {voted} not found in the answer ({what})"
        if report.gazetteer is not None:
            line += f"; names sought: the gazetteer's {report.gazetteer}; {flagged_note(report.near_spellings, report.common_words)}"
        console.print(line, soft_wrap=True)
        if report.again:
            again = plural(report.again, "list was", "lists were")
            console.print(f"Of these, {again} extracted again: {report.again_why}.", soft_wrap=True)


def report_pending(conn, study_id: int, summary, limit: int | None, console: Console, asked_before: int = 0) -> int:
    """What is left after a run that failed nothing, said from the store (another process
    may be answering part of the study, or have answered part of it meanwhile: `asked_before`
    is what the store held answered when this run started); the exit status."""
    pending, _here, elsewhere = reads.unanswered(conn, study_id, queue.claim_owner())
    if any(p.stopped_reason for p in summary.progress):  # no server would answer a model: nothing failed
        console.print(f"Stopped with {plural(pending, 'request')} still pending; the line above says why.")
        return 1
    done, asked = reads.answered(conn, study_id)
    mine = sum(p.answered_this_run for p in summary.progress)
    others = max(0, asked - asked_before - mine)  # answered by another `workbench run` while this one ran
    if elsewhere:
        meanwhile = f" ({others} more by another process meanwhile)" if others else ""
        console.print(
            f"This run answered {plural(mine, 'request')}{meanwhile}; "
            f"{plural(elsewhere, 'request is', 'requests are')} being answered by another process (a second "
            "`workbench run` on this database); it will store them. Nothing was asked twice.",
            soft_wrap=True,
        )
        return 0
    if pending:
        why = f" (--limit {limit})" if limit is not None else ""
        console.print(f"Stopped with {plural(pending, 'request')} still pending{why}; run again to continue.")
        return 0
    if not others:
        console.print("1 request answered." if done == 1 else f"All {done} requests answered.")
        return 0
    before = done - mine - others
    console.print(
        f"All {done} requests answered: {mine} by this run, {others} by another process running at the same time"
        + (f", {before} before" if before > 0 else "")
        + ". Nothing was asked twice.",
        soft_wrap=True,
    )
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    return run_study(
        args.study, args.db, args.model, args.limit, args.concurrency, make_console(), args.quiet, args.max_requests
    )


def cmd_generate(args: argparse.Namespace) -> int:
    from workbench import methods
    from workbench.engines.base import EngineError
    from workbench.pipeline.run_types import RunOptions

    console = make_console()
    study = load_study(args.study)
    spec = parse_spec(args.model) if args.model else None
    generate_questions = getattr(methods.get(study.method), "generate_questions", None)
    if generate_questions is None:
        raise UserError(f"{args.study}: {study.method} studies do not generate questions")
    if not getattr(study, "generate", None):
        raise UserError(f"{args.study}: no topic asks for questions; add `generate = N` to a [[topics]] table")
    conn = open_store(args.db)
    progress, on_progress = progress_display(console, args.quiet)
    try:
        with progress:
            report = asyncio.run(
                generate_questions(conn, study, spec, RunOptions(), on_progress, notify=lambda msg: console.print(msg))
            )
    except KeyboardInterrupt:
        console.print("Interrupted; run the same command again to resume.")
        return 130
    except EngineError as exc:  # not a UserFacingError of its own: an engine that cannot start
        raise UserError(str(exc)) from None
    console.print(
        f"Adapted {plural(report.adapted, 'cluster')} ({report.adapt_unparseable} kept their general name: "
        f"unparseable or failed replies, kept in the store)."
    )
    for topic, count in report.per_topic.items():
        console.print(literal_text(f"{topic}: {plural(count, 'new question')}"))
    if report.generate_unparseable:
        console.print(
            f"{plural(report.generate_unparseable, 'question list')} could not be parsed (kept in the store; "
            "`workbench export --what responses` shows them)."
        )
    console.print(
        f"Questions start unverified: review them with `workbench questions --db {args.db} "
        f"--study {study.name}`; `workbench run` asks them (only verified ones with verified_only = true).",
        soft_wrap=True,
    )
    return 0


def cmd_questions(args: argparse.Namespace) -> int:
    marking = bool(args.verify or args.verify_all or args.unverify)
    # Listing only reads (a read-only store lists); marking a missing file is refused, never a new empty one.
    conn = open_store(args.db, create=marking and os.path.exists(args.db))
    args.study = the_study(conn, args.study)
    study_id = study_id_of(conn, args.study)
    if marking:
        ids = None if args.verify_all else (args.verify or args.unverify)
        changed = question_store.set_verified(conn, study_id, ids, verified=not args.unverify)
        make_console().print(f"{'Unverified' if args.unverify else 'Verified'} {plural(changed, 'question')}.")
        return 0
    rows = question_store.question_records(conn, study_id)
    if args.format != "table":
        exports.write_records(rows, args.format, question_store.QUESTION_FIELDS, sys.stdout)
        return 0
    table = new_table(title=f"Questions of {args.study} (✓ = verified)")
    table.add_column("id", justify="right")
    table.add_column("✓")
    table.add_column("topic / cluster", overflow="fold", max_width=28)
    table.add_column("question", overflow="fold")
    for r in rows:
        label = r["cluster_label"] if r["cluster_label"] and r["cluster_label"] != r["cluster"] else r["cluster"]
        table.add_row(
            str(r["id"]), "✓" if r["verified"] else "", literal_text(f"{r['topic']} / {label}"), literal_text(r["text"])
        )
    make_console().print(table)
    return 0


LIMIT_HELP = (
    "send at most N requests to models in this run, over every stage and model together "
    "(answers first, then extractions, probes or judges with what is left)"
)


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "run",
        help="run (or resume) a study",
        formatter_class=fmt,
        description="Plan every request of a study and answer the ones not answered yet.\n\n"
        "Safe to interrupt (Ctrl-C) or kill at any moment: run the same command again and it\n"
        "resumes exactly where it stopped, asking nothing twice. Failed requests are retried.",
        epilog="examples:\n"
        "  workbench run study.toml --db audit.db\n"
        "  workbench run study.toml --db audit.db --model 'openai:llama3@http://127.0.0.1:8000/v1,concurrency=16'\n"
        "  workbench run study.toml --db audit.db --limit 20      # try 20 requests first (all stages)",
    )
    p.add_argument("study", help="study file (TOML), e.g. the demo at assets/studies/demo.toml")
    add_db(p)
    p.add_argument(
        "--model", action="append", metavar="SPEC", help="model spec replacing the study's models (repeat for several)"
    )
    p.add_argument("--limit", type=bounded_int(1, None), metavar="N", help=LIMIT_HELP)
    p.add_argument(
        "--concurrency",
        type=bounded_int(1, MAX_CONCURRENCY),
        metavar="N",
        help=f"requests in flight per model (1 to {MAX_CONCURRENCY})",
    )
    p.add_argument(
        "--max-requests",
        type=bounded_int(1, None),
        metavar="N",
        default=DEFAULT_MAX_REQUESTS,
        help="refuse to plan a study that would create more than N requests "
        f"(default {DEFAULT_MAX_REQUESTS:,}); nothing is stored when refused",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "generate",
        help="LLM-assisted questions: adapt clusters to topics, then write questions",
        formatter_class=fmt,
        description="For every [[topics]] table with `generate = N`, an LLM rewrites each user cluster in\n"
        "the topic's terms (stage adapt), then writes N questions per adapted cluster (stage generate),\n"
        "as schema-constrained JSON. Questions are stored unverified, with their provenance; edit the\n"
        "prompts in assets/prompts/ or point [question_generation] adapt_prompt / generate_prompt at\n"
        "your own. Resumable like `run`.",
        epilog="examples:\n  workbench generate study.toml --db audit.db\n"
        "  workbench generate study.toml --db audit.db --model 'openai:gpt-4o@https://api.openai.com/v1,"
        "api_key_env=OPENAI_API_KEY'",
    )
    p.add_argument("study", help="study file (TOML) with `generate = N` in some [[topics]]")
    add_db(p)
    p.add_argument(
        "--model",
        metavar="SPEC",
        help="generator model (default: [question_generation] model, else the study's first model)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser(
        "questions",
        help="list a study's questions; mark them verified",
        formatter_class=fmt,
        description="Lists the questions of a study (from its file, imported or generated) with their\n"
        "verified flag, or sets the flag. With `verified_only = true` in the study, `run` asks only\n"
        "verified questions.",
        epilog="examples:\n  workbench questions --db audit.db --study shoes\n"
        "  workbench questions --db audit.db --study shoes --verify 12 13 14\n"
        "  workbench questions --db audit.db --study shoes --verify-all",
    )
    add_db(p)
    p.add_argument("--study", help="the study (default: the database's only study)")
    p.add_argument("--verify", type=int, nargs="+", metavar="ID", help="mark these questions verified")
    p.add_argument("--unverify", type=int, nargs="+", metavar="ID", help="clear their verified flag")
    p.add_argument("--verify-all", action="store_true", help="mark every question of the study verified")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_questions)
