"""`workbench ...`: the headless command line. A thin layer over the core."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from workbench import exports
from workbench.audit_limits import DEFAULT_MAX_REQUESTS
from workbench.literal import literal_text, visible
from workbench.models import ModelNotFound
from workbench.safe_output import OutputRefused, atomic_text_file, check_output_path
from workbench.specs import MAX_CONCURRENCY, SpecError, parse_spec
from workbench.store import queue
from workbench.store.db import StoreError, connect
from workbench.store.db import reason as db_reason
from workbench.studies.spec import StudyError, load_study

DEFAULT_DB = "workbench.db"

MAIN_HELP = """\
Audit which brands, cultures and people language models favour when they recommend.

Quick start:
  workbench demo                         run the bundled demo study on the bundled local model
  workbench run study.toml --db my.db    run your own study (Ctrl-C stops; run again to resume)
  workbench status --db my.db            what is answered, pending, failed, and the errors met
  workbench export --db my.db --what responses --format csv > responses.csv

Methods (a study's `method`): choice (ChoiceEval), coldstart (catalog re-ranking),
identity (identity disclosure), entity (entity x template label probabilities), e.g.
  workbench run assets/studies/entity/countries_urgency.toml --db entity.db

Model specs (in a study's `models` or with --model):
  llama:default                          the bundled Gemma 3 270M GGUF (CPU, or GPU with n_gpu_layers)
  llama:/path/model.gguf,n_ctx=4096      any local GGUF
  openai:MODEL@http://host:port/v1       any OpenAI-compatible server (vLLM, llama-server, Ollama, OpenAI)
  options: ,temperature=0.7 ,seed=1 ,max_tokens=256 ,timeout=60 ,concurrency=8 ,retries=4
           ,api_key_env=OPENAI_API_KEY ,n_gpu_layers=-1 ,threads=4 ,mode=chat|completion
           ,invariant=true (llama label scores equal to a lone evaluation, bit for bit)
"""


class UserError(Exception):
    """Something the user can fix; printed as one line, exit status 2."""


def _table(title: str, **kwargs: Any) -> Table:
    # Light borders leave room for the numbers in an 80-column terminal.
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, **kwargs)


def _console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, no_color=bool(os.environ.get("NO_COLOR")))


def _open_db(path: str, create: bool = True):
    """The store; `create=False` for commands that only read (a wrong path is an
    error, never a new empty database)."""
    try:
        return connect(path, create)
    except StoreError as exc:
        raise UserError(str(exc)) from None


def _study_id(conn, name: str | None) -> int | None:
    if name is None:
        return None
    row = conn.execute("SELECT id FROM studies WHERE name = ?", (name,)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT name FROM studies ORDER BY name")]
        raise UserError(f"no study named {name!r} in this database (known: {', '.join(known) or 'none'})")
    return row[0]


# -- run ---------------------------------------------------------------------


def _format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


def progress_display(console: Console, quiet: bool):
    """A rich progress display with one bar per model and stage, and its callback."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed · {task.fields[rate]} tok/s · ETA {task.fields[eta]}"
                   "{task.fields[waiting]}"),
        console=console,
        disable=quiet,
        transient=False,
    )
    tasks: dict[Any, Any] = {}

    def on_progress(p) -> None:
        if (p.model, p.stage) not in tasks:
            tasks[p.model, p.stage] = progress.add_task(
                escape(f"{visible(p.model)} {p.stage}"), total=p.total, failed=0, rate="0.0", eta="--:--",
                waiting="",
            )
        progress.update(
            tasks[p.model, p.stage], completed=p.done + p.failed, total=p.total, failed=p.failed,
            rate=f"{p.tokens_per_s:.1f}", eta=_format_eta(p.eta_s),
            waiting=f" · {escape(p.waiting)}" if p.waiting else "",
        )

    return progress, on_progress


def run_study(study_path: str, db: str, model_specs: list[str] | None, limit: int | None,
              concurrency: int | None, console: Console, quiet: bool = False,
              max_requests: int = DEFAULT_MAX_REQUESTS) -> int:
    """Plan and run a study with a live progress display; returns the exit status."""
    from workbench.audit import prepare, run_prepared
    from workbench.audit_limits import PlanTooLarge
    from workbench.engines.base import EngineError
    from workbench.runner import RunOptions

    try:
        study = load_study(study_path)
        specs = [parse_spec(s) for s in model_specs] if model_specs else list(study.models)
    except (StudyError, SpecError) as exc:
        raise UserError(str(exc)) from None
    if concurrency:
        specs = [s.with_options(concurrency=concurrency) for s in specs]
    conn = _open_db(db)
    try:
        prepared = prepare(conn, study, specs, notify=lambda msg: console.print(msg), max_requests=max_requests)
    except (ModelNotFound, PlanTooLarge) as exc:
        raise UserError(str(exc)) from None
    for model in prepared.models:
        console.print(literal_text(
            f"{study.name} · {model.resolved.label}: {model.total} requests "
            f"({model.planned} newly planned) · database {db}"
        ), soft_wrap=True)
    progress, on_progress = progress_display(console, quiet)

    options = RunOptions(limit=limit)
    try:
        with progress:
            summary = asyncio.run(run_prepared(conn, prepared, options, on_progress))
    except KeyboardInterrupt:
        left = conn.execute(
            "SELECT COUNT(*) FROM requests WHERE study_id = ? AND status IN ('pending', 'running') "
            "AND superseded = 0",
            (prepared.study_id,),
        ).fetchone()[0]
        console.print(f"Interrupted. {left} requests left pending; run the same command again to resume.")
        return 130
    except EngineError as exc:  # an engine that cannot start: one line, not a traceback
        raise UserError(str(exc)) from None
    for report in summary.extraction:
        if report.answers:
            line = f"Extracted ranked lists for {report.answers} answers ({report.empty} with no recommendation)"
            if report.expert_replies:
                agreement = f"{report.mean_agreement:.2f}" if report.mean_agreement is not None else "n/a"
                line += (f"; {report.expert_replies} expert replies, {report.unparseable} unparseable (kept), "
                         f"mean expert agreement (Jaccard) {agreement}")
            console.print(line, soft_wrap=True)
    for p in summary.progress:
        if p.stopped_reason:
            console.print(literal_text(f"{p.model}: {p.stopped_reason}"), style="red", soft_wrap=True)
    if summary.failed:
        last = next((p.last_error for p in summary.progress if p.last_error), "")
        console.print(literal_text(
            f"{summary.failed} requests failed (last error: {last}); "
            f"`workbench status --db {db}` shows why, and running again retries them."
        ), style="red", soft_wrap=True)
        return 1
    # Say what is true now, from the store (another process may be answering part of the study).
    pending, elsewhere = conn.execute(
        "SELECT COUNT(*) FILTER (WHERE status = 'pending'), "
        "COUNT(*) FILTER (WHERE status = 'running' AND claimed_by IS NOT NULL AND claimed_by != ?) "
        "FROM requests WHERE study_id = ? AND superseded = 0", (queue.claim_owner(), prepared.study_id)).fetchone()
    if elsewhere:
        console.print(f"{elsewhere} requests are being answered by another process (a second `workbench run` "
                      "on this database); it will store them. Nothing was asked twice.", soft_wrap=True)
        return 0
    if pending:
        why = f" (--limit {limit})" if limit is not None else ""
        console.print(f"Stopped with {pending} requests still pending{why}; run again to continue.")
        return 0
    done = sum(p.done for p in summary.progress)
    console.print(f"All {done} requests answered.")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    return run_study(args.study, args.db, args.model, args.limit, args.concurrency, _console(), args.quiet,
                     args.max_requests)


# -- generate and questions -------------------------------------------------


def cmd_generate(args: argparse.Namespace) -> int:
    from workbench.audit import generate_questions
    from workbench.engines.base import EngineError
    from workbench.runner import RunOptions

    console = _console()
    try:
        study = load_study(args.study)
        spec = parse_spec(args.model) if args.model else None
    except (StudyError, SpecError) as exc:
        raise UserError(str(exc)) from None
    if not getattr(study, "generate", None):
        raise UserError(f"{args.study}: no topic asks for questions; add `generate = N` to a [[topics]] table")
    conn = _open_db(args.db)
    progress, on_progress = progress_display(console, args.quiet)
    try:
        with progress:
            report = asyncio.run(generate_questions(conn, study, spec, RunOptions(), on_progress,
                                                    notify=lambda msg: console.print(msg)))
    except KeyboardInterrupt:
        console.print("Interrupted; run the same command again to resume.")
        return 130
    except (EngineError, ModelNotFound) as exc:
        raise UserError(str(exc)) from None
    console.print(f"Adapted {report.adapted} clusters ({report.adapt_unparseable} kept their general name: "
                  f"unparseable or failed replies, kept in the store).")
    for topic, count in report.per_topic.items():
        console.print(literal_text(f"{topic}: {count} new questions"))
    if report.generate_unparseable:
        console.print(f"{report.generate_unparseable} question lists could not be parsed (kept in the store; "
                      "`workbench export --what responses` shows them).")
    console.print(f"Questions start unverified: review them with `workbench questions --db {args.db} "
                  f"--study {study.name}`; `workbench run` asks them (only verified ones with verified_only = true).",
                  soft_wrap=True)
    return 0


def cmd_questions(args: argparse.Namespace) -> int:
    conn = _open_db(args.db)
    study_id = _study_id(conn, args.study)
    if args.verify or args.verify_all or args.unverify:
        ids = None if args.verify_all else (args.verify or args.unverify)
        changed = queue.set_verified(conn, study_id, ids, verified=not args.unverify)
        _console().print(f"{'Unverified' if args.unverify else 'Verified'} {changed} questions.")
        return 0
    rows = [dict(r) for r in conn.execute(
        "SELECT id, topic, cluster, cluster_label, text, source, verified, provenance_json FROM questions "
        "WHERE study_id = ? ORDER BY topic, cluster, position, id", (study_id,))]
    if args.format != "table":
        exports.write_records(rows, args.format, ["id", "topic", "cluster", "cluster_label", "text", "source",
                                                  "verified", "provenance_json"], sys.stdout)
        return 0
    table = _table(title=f"Questions of {args.study} (✓ = verified)")
    table.add_column("id", justify="right")
    table.add_column("✓")
    table.add_column("topic / cluster", overflow="fold", max_width=28)
    table.add_column("question", overflow="fold")
    for r in rows:
        label = r["cluster_label"] if r["cluster_label"] and r["cluster_label"] != r["cluster"] else r["cluster"]
        table.add_row(str(r["id"]), "✓" if r["verified"] else "", literal_text(f"{r['topic']} / {label}"),
                      literal_text(r["text"]))
    _console().print(table)
    return 0


# -- entities ------------------------------------------------------------------


def _who(args: argparse.Namespace) -> str:
    return args.who or os.environ.get("USER") or os.environ.get("USERNAME") or "reviewer"


def cmd_entities(args: argparse.Namespace) -> int:
    from workbench import dedup
    from workbench.store import entities as registry

    conn = _open_db(args.db, create=False)
    console = _console()
    try:
        if args.action == "suggest":
            if args.study:
                _study_id(conn, args.study)
            index = dedup.load_entities(conn, args.study)
            methods = dedup.METHODS if args.method == "all" else (args.method,)
            found = dedup.suggest(index.names, index.counts, methods=methods, threshold=args.threshold,
                                  scorer=args.scorer, forbidden=index.forbidden)
            if args.format == "json":
                print(json.dumps([s.as_record() for s in found], ensure_ascii=False, indent=1))
                return 0
            if not found:
                console.print(f"No suggestions among {len(index.names)} entities.")
                return 0
            table = _table(title=f"{len(found)} suggested merges among {len(index.names)} entities (strict first)")
            for column in ("method", "score", "canonical", "members (mentions)"):
                table.add_column(column, overflow="fold")
            for s in found:
                members = ", ".join(f"{m} ({c})" for m, c in zip(s.members, s.counts))
                table.add_row(s.method, f"{s.score:.0f}", literal_text(s.canonical), literal_text(members))
            console.print(table)
            console.print("Accept one: `workbench entities merge NAME NAME ... --into CANONICAL --db DB`", style="dim")
            return 0
        if args.action == "list":
            from workbench import choice_io

            exports.write_records(choice_io.entity_records(conn), args.format if args.format != "table" else "csv",
                                  choice_io.ENTITY_FIELDS, sys.stdout)
            return 0
        if args.action in ("undo", "redo"):
            done = registry.undo(conn) if args.action == "undo" else registry.redo(conn)
            console.print(literal_text(f"{args.action.title()}: {done['summary']} (decision {done['id']})"
                                       if done else f"Nothing to {args.action}."))
            return 0
        who, why = _who(args), args.why
        if args.action == "merge":
            decision = registry.merge(conn, args.names, args.into, who=who, why=why)
        elif args.action == "split":
            decision = registry.split(conn, args.names[0], args.names[1:], args.as_name, who=who, why=why)
        elif args.action == "rename":
            if len(args.names) != 2:
                raise UserError("rename takes the entity and its new name")
            decision = registry.rename(conn, args.names[0], args.names[1], who=who, why=why)
        else:
            if len(args.names) != 2:
                raise UserError("forbid takes two entities")
            decision = registry.forbid(conn, args.names[0], args.names[1], who=who, why=why)
    except registry.DecisionError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    summary = conn.execute("SELECT summary FROM entity_decisions WHERE id = ?", (decision,)).fetchone()[0]
    console.print(literal_text(f"Decision {decision}: {summary} (by {who}). `workbench entities undo` reverts it."))
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from workbench.store import reviews

    conn = _open_db(args.db, create=False)
    _study_id(conn, args.study)
    if args.action in ("probes", "label", "undo-label"):
        return _review_probes(conn, args)
    if args.action in ("matches", "match", "undo-match"):
        return _review_matches(conn, args)
    ids = reviews.sample_list_ids(conn, args.study, args.per_topic, args.seed)
    if args.action == "sample":
        records = [dict(r) for r in reviews.review_items(conn, args.study, list_ids=ids)]
        exports.write_records(records, args.format, ["id", "model", "topic", "cluster", "question", "repetition",
                                                     "verdict"], sys.stdout)
        return 0
    if not (args.first and args.second):
        raise UserError("agreement needs --first REVIEWER and --second REVIEWER")
    result = reviews.agreement(conn, ids, args.first, args.second)
    if args.format == "json":
        print(json.dumps(result))
        return 0
    rate = f"{result['agreement']:.1%}" if result["agreement"] is not None else "n/a"
    kappa = f"{result['kappa']:.3f}" if result["kappa"] is not None else "n/a (too few or identical labels)"
    _console().print(f"Validation sample: {result['items']} lists ({args.per_topic} questions per topic, seed "
                     f"{args.seed}); both reviewed {result['both_reviewed']}. Agreement {rate}; Cohen's kappa "
                     f"{kappa}.", soft_wrap=True)
    return 0


def _review_matches(conn, args: argparse.Namespace) -> int:
    from workbench.store import match_reviews

    study_id = _study_id(conn, args.study)
    console = _console()
    try:
        if args.action == "match":
            if not args.key or not (args.item or args.out):
                raise UserError("match needs --key MODEL/SEED/CATEGORY/PERSONA/RANK (from `workbench review matches`) "
                                "and --item TITLE or --out")
            done = match_reviews.correct(conn, study_id, args.key, None if args.out else args.item, _who(args))
            console.print(literal_text(f"{done['key']}: {done['before'] or 'not in catalog'} -> "
                                       f"{done['after'] or 'not in catalog'} (by {_who(args)}); "
                                       "`workbench review undo-match` takes it back."))
            return 0
        if args.action == "undo-match":
            undone = match_reviews.undo(conn, study_id, _who(args))
            console.print("Nothing to undo." if undone is None else literal_text(
                f"{undone['key']}: back to {undone['restored'] or 'not in catalog'}."))
            return 0
    except ValueError as exc:
        raise UserError(str(exc)) from None
    records = match_reviews.rows(conn, study_id, args.only if args.only in ("unmatched", "uncertain") else "all")
    if args.format != "table":
        exports.write_records(records, args.format, match_reviews.ROW_FIELDS, sys.stdout)
        return 0
    table = _table(f"Catalog matches ({args.only}): {len(records)}")
    for name in ("key", "the answer said", "catalog entry", "score", "by"):
        table.add_column(name, overflow="fold")
    for r in records:
        table.add_row(literal_text(r["key"]), literal_text(r["surface"] or "-"), literal_text(r["item"] or "-"),
                      "" if r["match_score"] is None else f"{r['match_score']:.0f}", literal_text(r["corrected_by"] or ""))
    console.print(table)
    return 0


def _review_probes(conn, args: argparse.Namespace) -> int:
    from workbench.store import probe_reviews

    console = _console()
    if args.action == "label":
        if not (args.key and args.label):
            raise UserError("label needs --key REQUEST_KEY (from `workbench review probes`) and --label "
                            "admits|denies|unclear")
        try:
            probe_reviews.label(conn, args.key, _who(args), args.label)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        console.print(literal_text(f"Labelled {args.key[:12]} {args.label} (by {_who(args)}); "
                                   "`workbench review undo-label` takes it back."))
        return 0
    if args.action == "undo-label":
        undone = probe_reviews.undo(conn, _who(args))
        if undone is None:
            console.print("Nothing to undo.")
            return 0
        console.print(literal_text(f"Took back {undone['label']} on {undone['request_key'][:12]}; the label is now "
                                   f"{undone['restored']} ({undone['source']})."))
        return 0
    records = probe_reviews.items(conn, args.only, args.study)
    if args.format != "table":
        exports.write_records(records, args.format, probe_reviews.ITEM_FIELDS, sys.stdout)
        return 0
    table = _table(f"Probe labels ({args.only}): {len(records)}")
    for name in ("key", "model", "group", "condition", "rules", "judge", "label", "source"):
        table.add_column(name)
    for r in records:
        table.add_row(*(literal_text(str(v or "-")) for v in (
            r["request_key"][:12], r["model"], r["group"], r["condition"], r["rule_label"], r["judge_label"],
            r["label"], r["source"])))
    console.print(table)
    result = probe_reviews.agreement(conn, args.study)
    for name in ("rule", "judge"):
        part = result[name]
        if part["n"]:
            kappa = f"{part['kappa']:.3f}" if part["kappa"] is not None else "n/a"
            console.print(f"{name} labels vs human: {part['agree']}/{part['n']} agree, Cohen's kappa {kappa}")
    return 0


# -- status ------------------------------------------------------------------


def print_status(conn, study: str | None, console: Console) -> None:
    records = exports.status_records(conn, _study_id(conn, study))
    if not records:
        console.print("No requests in this database yet. Start with `workbench run STUDY.toml --db DB`.")
        return
    table = _table(title="Requests (retried: errors met and retried)")
    table.add_column("study", overflow="fold")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("stage")
    for column in ("done", "pending", "running", "failed", "retried"):
        table.add_column(column, justify="right")
    for r in records:
        table.add_row(literal_text(r["study"]), literal_text(r["model"]), r["stage"], str(r["done"]),
                      str(r["pending"]), str(r["running"]), str(r["failed"]), str(r["errors_survived"]))
    console.print(table)
    errors = queue.error_summary(conn, _study_id(conn, study))
    if errors:
        table = _table(title="Errors met (survived: retried; final: the request failed)")
        for column in ("model", "kind", "survived", "final", "example"):
            table.add_column(column, overflow="fold")
        for e in errors:
            table.add_row(literal_text(e["model"]), e["kind"], str(e["survived"]), str(e["final"]),
                          literal_text(e["example"][:120]))
        console.print(table)


def cmd_status(args: argparse.Namespace) -> int:
    conn = _open_db(args.db, create=False)
    if args.json:
        print(json.dumps(exports.status_records(conn, _study_id(conn, args.study)), indent=2))
        return 0
    print_status(conn, args.study, _console())
    return 0


# -- export ------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    conn = _open_db(args.db, create=False)
    _study_id(conn, args.study)
    if args.output:
        try:  # refuse a database as the target before reading anything
            check_output_path(args.output, args.db)
        except OutputRefused as exc:
            raise UserError(str(exc)) from None
    records, fields = cmd_export_what(args, conn)
    if not args.output:
        exports.write_records(records, args.format, fields, sys.stdout, raw=args.raw)
        return 0
    try:
        with atomic_text_file(args.output, args.db) as out:
            count = exports.write_records(records, args.format, fields, out, raw=args.raw)
    except OutputRefused as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{args.output}: could not be written ({exc.strerror or exc}); nothing was changed") from None
    _console(stderr=True).print(literal_text(f"Wrote {count} records to {Path(args.output).resolve()}"), soft_wrap=True)
    return 0


def cmd_export_what(args: argparse.Namespace, conn) -> tuple[Any, list[str]]:
    from workbench import choice_io

    if args.what == "mentions":
        return choice_io.mention_records(conn, args.study), choice_io.MENTION_FIELDS
    if args.what == "entities":
        return choice_io.entity_records(conn), choice_io.ENTITY_FIELDS
    if args.what == "metrics":
        return choice_io.metric_records(conn, args.study), choice_io.METRIC_FIELDS
    if args.what == "rankings":
        from workbench import coldstart_io

        return coldstart_io.ranking_records(conn, args.study), coldstart_io.RANKING_FIELDS
    if args.what == "scores":
        from workbench import entity_io

        return entity_io.score_records(conn, args.study), entity_io.SCORE_FIELDS
    if args.what == "entity_bias":
        from workbench import entity_io

        return entity_io.bias_records(conn, args.study)
    if args.what == "reviews":
        from workbench.store.reviews import REVIEW_FIELDS, review_records

        return review_records(conn), REVIEW_FIELDS
    if args.what == "decisions":
        from workbench.store.entities import DECISION_FIELDS, decision_records

        return decision_records(conn), DECISION_FIELDS
    return exports.response_records(conn, args.study), exports.RESPONSE_FIELDS


# -- import ------------------------------------------------------------------


def cmd_import(args: argparse.Namespace) -> int:
    created = not Path(args.db).exists()
    try:
        return _import(args)
    except BaseException:
        # An import that fails leaves no trace: not even the database it would have created.
        if created:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{args.db}{suffix}").unlink(missing_ok=True)
        raise


def _import(args: argparse.Namespace) -> int:
    from workbench import choice_io

    conn = _open_db(args.db)
    console = _console()
    path = Path(args.file)
    try:
        if args.kind == "references":
            from workbench import identity_io

            if not args.study:
                raise UserError("import references needs --study NAME")
            count = identity_io.import_references(conn, args.study, path)
            console.print(f"Imported {count} reference shares into study {args.study!r}.")
        elif args.kind in ("rankings", "responses"):
            from workbench import coldstart_io

            if not args.study:
                raise UserError(f"import {args.kind} needs --study NAME")
            if args.kind == "responses":
                if not args.catalog:
                    raise UserError("import responses needs --catalog CATALOG (JSON list or CSV)")
                got = coldstart_io.import_responses(conn, args.study, path, Path(args.catalog))
                console.print(f"Parsed {got['lists']} responses into {got['rows']} items "
                              f"({got['out_of_catalog']} out of catalog, kept) in study {args.study!r}.")
            else:
                got = coldstart_io.import_rankings(conn, args.study, path)
                console.print(f"Imported {got['rows']} ranked items in {got['lists']} lists into study "
                              f"{args.study!r}.")
        elif args.kind == "mentions":
            if not args.study:
                raise UserError("import mentions needs --study NAME")
            got = choice_io.import_mentions(conn, args.study, path)
            console.print(f"Imported {got['responses']} responses with {got['mentions']} mentions "
                          f"({got['empty']} with no recommendation) into study {args.study!r}.")
        elif args.kind == "entities":
            got = choice_io.import_entities(conn, path)
            console.print(f"Assigned region and attributes to {got['updated']} entities.")
            if got["unmatched"]:
                console.print(literal_text(f"{len(got['unmatched'])} names in the file match no entity: "
                                           + ", ".join(got["unmatched"][:20])
                                           + (" ..." if len(got["unmatched"]) > 20 else "")), soft_wrap=True)
            if got["without_region"]:
                names = ", ".join(f"{n} ({c})" for n, c in got["without_region"][:20])
                console.print(literal_text(f"{len(got['without_region'])} mentioned entities still have no "
                                           f"region: {names}" + (" ..." if len(got["without_region"]) > 20 else "")),
                              soft_wrap=True)
        else:
            if not args.study:
                raise UserError("import questions needs --study NAME")
            added = choice_io.import_questions(conn, args.study, path, args.topic)
            console.print(f"Imported {added} new questions into study {args.study!r}; "
                          "the next `workbench run` of that study asks them.")
    except choice_io.ImportError_ as exc:
        raise UserError(str(exc)) from None
    return 0


# -- metrics -----------------------------------------------------------------


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:.{digits}f}"
    return str(value)


REGION_SHORT = {"United States": "US", "Europe": "EU"}


def _pair(a: str, b: str) -> str:
    return f"{REGION_SHORT.get(a, a)}/{REGION_SHORT.get(b, b)}"


def print_coldstart_table(records: list[dict[str, Any]], console: Console) -> None:
    table = _table(title="Cold-start divergence from the neutral list (mean ± population std over seeds)")
    table.add_column("model", overflow="fold")
    table.add_column("persona", overflow="fold")
    for column in ("IOU", "SERP", "PRAG", "seeds"):
        table.add_column(column, justify="right")
    by: dict[tuple, dict[str, Any]] = {}
    for r in records:
        if r["metric"].endswith("_divergence"):
            by.setdefault((r["model"], r["persona_category"], r["persona"]), {})[r["metric"]] = r
    for (model, category, persona), metrics in by.items():
        cells = [f"{metrics[m]['mean']:.3f}±{metrics[m]['std']:.3f}" if m in metrics else "n/a"
                 for m in ("iou_divergence", "serp_divergence", "prag_divergence")]
        n = next(iter(metrics.values()))["n"]
        table.add_row(literal_text(model), literal_text(f"{category}: {persona}"), *cells, str(n))
    console.print(table)


def print_identity_table(records: list[dict[str, Any]], console: Console) -> None:
    table = _table(title="Identity disclosure: mean share of the user's group (vs baseline, Mann-Whitney p)")
    for column in ("model", "group", "condition", "mean share", "diff", "p", "parsed", "admits"):
        table.add_column(column, overflow="fold")
    by: dict[tuple, dict[str, Any]] = {}
    words: dict[tuple, list[str]] = {}
    for r in records:
        if r["metric"] == "explanation_word":
            words.setdefault((r["model"], r["group"]), []).append(r["word"])
            continue
        by.setdefault((r["model"], r["group"], r["condition"]), {})[r["metric"]] = r
    for (model, group, condition), m in by.items():
        share, versus = m.get("mean_share", {}), m.get("mean_share_vs_baseline", {})
        table.add_row(literal_text(model), literal_text(group), condition, _num(share.get("value")),
                      _num(versus.get("difference")), _num(versus.get("p")),
                      _num(m.get("parse_rate", {}).get("value"), 2),
                      _num(m.get("probe_admits_rate", {}).get("value"), 2))
    console.print(table)
    if words:
        table = _table(title="Words that mark each group's explanations (share of the word's uses, smoothed)")
        table.add_column("model", overflow="fold")
        table.add_column("group")
        table.add_column("top words", overflow="fold")
        for (model, group), top in sorted(words.items()):
            table.add_row(literal_text(model), literal_text(group), literal_text(", ".join(top)))
        console.print(table)


def print_entity_tables(records: list[dict[str, Any]], console: Console, top: int = 10) -> None:
    """Label-probability audits: entities ranked by Delta (highest and lowest), macro-F1, groups."""
    conditions = sorted({(r["study"], r["model"], r["language"], r["variant"], r["method"])
                         for r in records if r["metric"] == "entity_delta"})
    for study, model, language, variant, method in conditions:
        rows = sorted((r for r in records if r["metric"] == "entity_delta" and (r["study"], r["model"], r["language"],
                       r["variant"], r["method"]) == (study, model, language, variant, method)),
                      key=lambda r: -r["value"])
        f1 = next((r["value"] for r in records if r["metric"] == "macro_f1" and r["study"] == study
                   and r["model"] == model and r["language"] == language and r["variant"] == variant), None)
        table = _table(f"Entity bias Delta · {study} · {model} · {language} · {variant} · {method} "
                       f"(macro-F1 {_num(f1)}; + = scored as more desirable)")
        table.add_column("rank", justify="right")
        table.add_column("entity", overflow="fold")
        table.add_column("Delta", justify="right")
        table.add_column("templates", justify="right")
        shown = rows if len(rows) <= 2 * top else rows[:top] + [None] + rows[-top:]
        for rank, r in enumerate(shown, start=1):
            if r is None:
                table.add_row("…", f"({len(rows) - 2 * top} more)", "", "")
                continue
            place = rank if rank <= top or len(rows) <= 2 * top else len(rows) - len(shown) + rank
            table.add_row(str(place), literal_text(r["entity"]), f"{r['value']:+.3f}", str(r["n"]))
        console.print(table)
        groups = [r for r in records if r["metric"] == "group_delta" and (r["study"], r["model"], r["language"],
                  r["variant"], r["method"]) == (study, model, language, variant, method)]
        if groups:
            table = _table("Groups of entities: mean Delta vs the rest (Mann-Whitney U, Cohen's d)")
            for column in ("attribute", "group", "mean Delta", "n", "p", "d"):
                table.add_column(column, justify="right" if column in ("mean Delta", "n", "p", "d") else "left",
                                 overflow="fold")
            for r in groups:
                table.add_row(literal_text(r["attribute"]), literal_text(r["value_label"] or "-"),
                              f"{r['value']:+.3f}", str(r["n"]), _num(r["p"]), _num(r["d"]))
            console.print(table)
    for r in (r for r in records if r["metric"] == "paired_delta"):
        console.print(literal_text(f"{r['study']} · {r['model']}: {r['between']} {r['condition_a']} vs "
                                   f"{r['condition_b']}: Wilcoxon p {_num(r['p'])}, paired d {_num(r['d'])} "
                                   f"(n = {r['n']} entities)"))
    for r in (r for r in records if r["metric"] == "delta_pearson"):
        console.print(literal_text(f"{r['study']} vs {r['study_b']} · {r['model']}: Pearson r of Delta "
                                   f"{_num(r['r'])} (p {_num(r['p'])}, n = {r['n']})"))


def print_metric_tables(records: list[dict[str, Any]], console: Console) -> None:
    if not records:
        console.print("No ranked lists yet: run a study (its answers are extracted at the end) "
                      "or `workbench import mentions`.")
        return
    entity = [r for r in records if "task" in r or r["metric"] == "entity_delta_global"]
    if entity:
        print_entity_tables(entity, console)
    records = [r for r in records if "task" not in r and r["metric"] != "entity_delta_global"]
    coldstart = [r for r in records if "persona" in r]
    if coldstart:
        print_coldstart_table(coldstart, console)
    identity = [r for r in records if "condition" in r]
    if identity:
        print_identity_table(identity, console)
    records = [r for r in records if "persona" not in r and "condition" not in r]
    if not records:
        return
    topic_level = [r for r in records if r.get("cluster") is None]
    table = _table(title="Preferred entity (PEIR) and direct-recommendation rate")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    table.add_column("preferred entity", overflow="fold")
    for column in ("PEIR", "direct", "n"):
        table.add_column(column, justify="right")
    direct = {(r["model"], r["topic"]): r for r in topic_level if r["metric"] == "direct_recommendation_rate"}
    for r in (r for r in topic_level if r["metric"] == "peir"):
        d = direct.get((r["model"], r["topic"]), {})
        table.add_row(literal_text(r["model"]), literal_text(r["topic"]), literal_text(r["entity"] or "-"),
                      _num(r["value"]), _num(d.get("value")), str(r["n"]))
    console.print(table)
    table = _table(title="Geographic bias: mean log-odds ratio over clusters (t-test against 0)")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    table.add_column("regions")
    for column in ("LOR", "exp", "t", "p", "G"):
        table.add_column(column, justify="right")
    for r in (r for r in topic_level if r["metric"] == "lor"):
        table.add_row(literal_text(r["model"]), literal_text(r["topic"]),
                      literal_text(_pair(r["region_a"], r["region_b"])), _num(r["mean"]), _num(r["exp_mean"]),
                      _num(r["t"]), _num(r["p"]), str(r["n_groups"]))
    console.print(table)
    table = _table(title="Stability across repetitions (counts of the top-N entities)")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    for column in ("Spearman rho", "pairs", "min p", "K-W H", "p"):
        table.add_column(column, justify="right")
    for key in dict.fromkeys((r["model"], r["topic"]) for r in topic_level):
        rhos = [r for r in topic_level if r["metric"] == "spearman" and (r["model"], r["topic"]) == key]
        kw = next((r for r in topic_level if r["metric"] == "kruskal_wallis" and (r["model"], r["topic"]) == key), {})
        values = [r["value"] for r in rhos if r["value"] is not None]
        ps = [r["p"] for r in rhos if r["p"] is not None]
        if not values:
            rho_text = "n/a"
        elif len(values) == 1:
            rho_text = f"{values[0]:.3f}"
        else:
            rho_text = f"{min(values):.2f}..{max(values):.2f}"
        table.add_row(literal_text(key[0]), literal_text(key[1]), rho_text, str(len(rhos)),
                      _num(min(ps) if ps else None), _num(kw.get("statistic")), _num(kw.get("p")))
    console.print(table)


def print_region_hint(conn, study: str | None, console: Console) -> None:
    from workbench.store.mentions import entities_without_region

    missing = entities_without_region(conn, _study_id(conn, study))
    if missing:
        console.print(literal_text(
            f"{len(missing)} mentioned entities have no region yet (e.g. {', '.join(n for n, _ in missing[:3])}); "
            "they count as Unknown in the log-odds. Assign regions with `workbench import entities FILE.csv`."
        ), style="dim", soft_wrap=True)


def cmd_metrics(args: argparse.Namespace) -> int:
    from workbench import choice_io

    conn = _open_db(args.db, create=False)
    _study_id(conn, args.study)
    records = choice_io.metric_records(conn, args.study)
    if args.format == "table":
        console = _console()
        print_metric_tables(records, console)
        if records:
            print_region_hint(conn, args.study, console)
        return 0
    exports.write_records(records, args.format, choice_io.METRIC_FIELDS, sys.stdout)
    return 0


# -- demo --------------------------------------------------------------------


def demo_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "audit-workbench" / "demo.db"


def cmd_tui(args: argparse.Namespace) -> int:
    if args.study:
        try:
            load_study(args.study)
        except StudyError as exc:
            raise UserError(str(exc)) from None
    _open_db(args.db, create=bool(args.study)).close()  # a new database only for a study to run
    from workbench.app import WorkbenchApp

    WorkbenchApp(args.db, args.study, autostart=args.start).run()
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    console = _console()
    db = args.db or str(demo_db_path())
    study_path = str(files("workbench.assets").joinpath("studies/demo.toml"))
    if not args.no_tui and sys.stdin.isatty() and sys.stdout.isatty():
        from workbench.models import default_model_path

        default_model_path(notify=console.print)  # assemble before the screen takes over
        _open_db(db).close()
        from workbench.app import WorkbenchApp

        WorkbenchApp(db, study_path, autostart=True).run()
        console.print(f"Database: {db}\nThe same results headless: `workbench demo --no-tui --db {db}`")
        return 0
    console.print("[bold]Audit Workbench demo[/]: 3 topics x 9 user clusters, asked of the bundled "
                  "Gemma 3 270M on this machine.")
    status = run_study(study_path, db, None, None, None, console)
    conn = _open_db(db)
    print_status(conn, "demo", console)
    print_samples(conn, "demo", console, count=3)
    from workbench import choice_io

    console.print()
    print_metric_tables(choice_io.metric_records(conn, "demo"), console)
    print_region_hint(conn, "demo", console)
    console.print(f"\nDatabase: {db}\nNext: `workbench export --db {db} --what responses --format csv`")
    return status


def print_samples(conn, study: str, console: Console, count: int) -> None:
    rows = [r for r in exports.response_records(conn, study) if r["text"] is not None][:count]
    for r in rows:
        console.print(literal_text(f"\n[{r['topic']} · {r['cluster']}] {r['question']}", style="bold"))
        console.print(literal_text(r["text"].strip() or "(empty answer)"))


# -- doctor ------------------------------------------------------------------


def cmd_doctor(args: argparse.Namespace) -> int:
    from workbench import doctor

    return doctor.run(args.model or [], args.study, _console())


# -- parser ------------------------------------------------------------------


def _bounded(low: int, high: int | None):
    """An argparse type: a whole number in [low, high], refused with the range."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            limits = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"expected a number {limits}, got {value}")
        return value

    return parse


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=DEFAULT_DB, help=f"SQLite database (default: ./{DEFAULT_DB})")


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog="workbench", description=MAIN_HELP, formatter_class=fmt)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "run", help="run (or resume) a study", formatter_class=fmt,
        description="Plan every request of a study and answer the ones not answered yet.\n\n"
        "Safe to interrupt (Ctrl-C) or kill at any moment: run the same command again and it\n"
        "resumes exactly where it stopped, asking nothing twice. Failed requests are retried.",
        epilog="examples:\n"
        "  workbench run study.toml --db audit.db\n"
        "  workbench run study.toml --db audit.db --model 'openai:llama3@http://127.0.0.1:8000/v1,concurrency=16'\n"
        "  workbench run study.toml --db audit.db --limit 20      # try 20 requests first",
    )
    p.add_argument("study", help="study file (TOML), e.g. the demo at assets/studies/demo.toml")
    add_db(p)
    p.add_argument("--model", action="append", metavar="SPEC",
                   help="model spec replacing the study's models (repeat for several)")
    p.add_argument("--limit", type=_bounded(1, None), metavar="N", help="answer at most N requests in this run")
    p.add_argument("--concurrency", type=_bounded(1, MAX_CONCURRENCY), metavar="N",
                   help=f"requests in flight per model (1 to {MAX_CONCURRENCY})")
    p.add_argument("--max-requests", type=_bounded(1, None), metavar="N", default=DEFAULT_MAX_REQUESTS,
                   help="refuse to plan a study that would create more than N requests "
                   f"(default {DEFAULT_MAX_REQUESTS:,}); nothing is stored when refused")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "generate", help="LLM-assisted questions: adapt clusters to topics, then write questions",
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
    p.add_argument("--model", metavar="SPEC", help="generator model (default: [question_generation] model, "
                   "else the study's first model)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser(
        "questions", help="list a study's questions; mark them verified", formatter_class=fmt,
        description="Lists the questions of a study (from its file, imported or generated) with their\n"
        "verified flag, or sets the flag. With `verified_only = true` in the study, `run` asks only\n"
        "verified questions.",
        epilog="examples:\n  workbench questions --db audit.db --study shoes\n"
        "  workbench questions --db audit.db --study shoes --verify 12 13 14\n"
        "  workbench questions --db audit.db --study shoes --verify-all",
    )
    add_db(p)
    p.add_argument("--study", required=True, help="the study")
    p.add_argument("--verify", type=int, nargs="+", metavar="ID", help="mark these questions verified")
    p.add_argument("--unverify", type=int, nargs="+", metavar="ID", help="clear their verified flag")
    p.add_argument("--verify-all", action="store_true", help="mark every question of the study verified")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_questions)

    p = sub.add_parser(
        "entities", help="de-duplicate entities: suggest, merge, split, rename, forbid, undo", formatter_class=fmt,
        description="Surface forms (\"Nike\", \"Nike, Inc.\") become entities; reviewers decide which are the\n"
        "same. `suggest` proposes merges, strict to lax: fingerprint (case, accents, punctuation and word\n"
        "order ignored), ngram (spacing too), nearest (rapidfuzz similarity >= --threshold, compared\n"
        "within blocks). It never proposes what a reviewer forbade. Every decision is recorded with who,\n"
        "when and why; `undo` and `redo` walk the history; metrics follow at once.",
        epilog="examples:\n  workbench entities suggest --db audit.db\n"
        "  workbench entities suggest --db audit.db --method nearest --threshold 85 --format json\n"
        "  workbench entities merge 'Nike' 'Nike, Inc.' 'NIKE' --into Nike --db audit.db --why 'same brand'\n"
        "  workbench entities split 'Paris' 'Paris Hilton' --as 'Paris Hilton' --db audit.db\n"
        "  workbench entities rename 'nike' 'Nike' --db audit.db\n"
        "  workbench entities forbid 'Paris' 'Paris Hilton' --db audit.db\n"
        "  workbench entities undo --db audit.db",
    )
    p.add_argument("action", choices=["suggest", "merge", "split", "rename", "forbid", "undo", "redo", "list"])
    p.add_argument("names", nargs="*", help="entities (or their surface forms); split: the entity, then its "
                   "surface forms to move")
    add_db(p)
    p.add_argument("--study", help="suggest: only entities mentioned in this study")
    p.add_argument("--method", choices=["all", "fingerprint", "ngram", "nearest"], default="all")
    p.add_argument("--threshold", type=float, default=90.0, help="nearest: similarity 0-100 (default 90)")
    p.add_argument("--scorer", default="token_sort_ratio",
                   choices=["token_sort_ratio", "ratio", "token_set_ratio", "WRatio"],
                   help="nearest: rapidfuzz scorer (token_set_ratio also pairs 'Paris' with 'Paris, France')")
    p.add_argument("--into", help="merge: the canonical name (default: the most mentioned member)")
    p.add_argument("--as", dest="as_name", help="split: the new entity's name (default: the first surface form)")
    p.add_argument("--who", help="reviewer name recorded with the decision (default: $USER)")
    p.add_argument("--why", help="reason recorded with the decision")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_entities)

    p = sub.add_parser(
        "review", help="validation sample for a second reviewer; agreement and Cohen's kappa",
        formatter_class=fmt,
        description="Reviewers accept, edit or reject extracted lists in the app (4 = Review). For a\n"
        "validation, a second reviewer reviews a seeded random sample (default 15 questions per topic;\n"
        "the app's Review filter 'validation sample' shows the same one); `agreement` compares the two\n"
        "reviewers' verdicts on it (edits agree when they give the same list).\n\n"
        "Identity studies: `probes` lists the transparency-probe labels (rules, LLM judge, human) and\n"
        "how often rules and judge agree with the human ones; `label` sets a human label, which wins\n"
        "over both in every metric; `undo-label` takes your latest one back.\n\n"
        "Cold-start studies: `matches` lists each answer item with the catalog entry it was matched to\n"
        "(--only unmatched|uncertain); `match` points one at another entry (--item, closest title taken)\n"
        "or out of the catalog (--out); corrections survive re-runs; `undo-match` takes one back.",
        epilog="examples:\n  workbench review sample --db audit.db --study shoes\n"
        "  workbench review agreement --db audit.db --study shoes --first ana --second bo\n"
        "  workbench review probes --db audit.db --study universities --only disagreements\n"
        "  workbench review label --db audit.db --study universities --key 3f2a9c01d4e5 --label denies\n"
        "  workbench review undo-label --db audit.db --study universities\n"
        "  workbench review matches --db audit.db --study movies --only unmatched\n"
        "  workbench review match --db audit.db --study movies --key 'm/0/gender/a girl/3' --item 'Oldboy'\n"
        "  workbench review undo-match --db audit.db --study movies",
    )
    p.add_argument("action", choices=["sample", "agreement", "probes", "label", "undo-label", "matches", "match",
                                      "undo-match"])
    add_db(p)
    p.add_argument("--study", required=True)
    p.add_argument("--per-topic", type=int, default=15, help="questions per topic in the sample (paper: 15)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", help="agreement: one reviewer")
    p.add_argument("--second", help="agreement: the other reviewer")
    p.add_argument("--only", choices=["unreviewed", "disagreements", "all", "unmatched", "uncertain"], default="all",
                   help="probes: which labels to list (disagreements: rules and judge differ); matches: "
                   "unmatched (out of catalog) or uncertain (fuzzy score < 95)")
    p.add_argument("--item", help="match: the catalog entry the item means")
    p.add_argument("--out", action="store_true", help="match: the item is not in the catalog")
    p.add_argument("--key", help="label: the prompt's request key (a unique prefix will do)")
    p.add_argument("--label", choices=["admits", "denies", "unclear"], help="label: the right label")
    p.add_argument("--who", help="reviewer name recorded with the label (default: $USER)")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser(
        "status", help="counts per study, model, stage and status; errors met", formatter_class=fmt,
        description="What is done, pending, running and failed, and which errors the runs met\n"
        "(including the ones a retry survived).",
        epilog="examples:\n  workbench status --db audit.db\n  workbench status --db audit.db --json | jq .",
    )
    add_db(p)
    p.add_argument("--study", help="only this study")
    p.add_argument("--json", action="store_true", help="machine-readable: an array of records")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "export", help="export responses, mentions, entities, metrics, rankings, scores, decisions, reviews",
        formatter_class=fmt,
        description="Export stored results. Text is exported exactly as the model wrote it.",
        epilog="examples:\n  workbench export --db audit.db --what responses --format csv > responses.csv\n"
        "  workbench export --db audit.db --what mentions --format csv -o mentions.csv\n"
        "  workbench export --db audit.db --what responses --format json --output responses.json\n"
        "  workbench export --db entity.db --what scores --format csv -o scores.csv\n"
        "  workbench export --db entity.db --what entity_bias --format csv -o bias.csv",
    )
    add_db(p)
    p.add_argument("--what", choices=["responses", "mentions", "entities", "metrics", "decisions", "reviews",
                                      "rankings", "scores", "entity_bias"],
                   default="responses",
                   help="responses (answers and extraction replies), mentions (ranked lists), entities "
                   "(with regions and attributes), metrics (flat records) or decisions (reviewers' entity "
                   "decisions with who, when and why) or reviews (verdicts on extracted lists, with the list "
                   "before and after), rankings (cold-start lists), scores (label log-probs with the exact "
                   "prompt and label text) or entity_bias (Delta per entity with its metadata)")
    p.add_argument("--format", choices=["csv", "json"], default="csv")
    p.add_argument("--study", help="only this study")
    p.add_argument("--output", "-o", help="write to this file instead of standard output (written whole or "
                   "not at all; never a database)")
    p.add_argument("--raw", action="store_true",
                   help="CSV cells exactly as stored; by default cells a spreadsheet would run as formulas "
                   "(= + - @ tab CR at the start) get a leading ' and terminal control characters are "
                   "written out as \\xNN")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "import", help="import questions, mentions, entities, rankings, responses or references",
        formatter_class=fmt,
        description="Bring in data made elsewhere (CSV files need a header row):\n"
        "  questions  a ChoiceEval JSON bank ({\"<cluster>\": [questions]}, topic from --topic or the file\n"
        "             name) or a CSV topic,cluster,question; asked by the next `workbench run`\n"
        "  mentions   top-K lists extracted elsewhere: model,topic,cluster,question_id,repetition,rank,entity\n"
        "             (a response with no recommendation: one row with empty rank and entity)\n"
        "  entities   name,region plus any attribute columns (country, sector, ...); regions drive the\n"
        "             geographic log-odds (United States, Europe, Asia, Other)\n"
        "  rankings   cold-start top-k lists: model,seed,persona_category,persona,rank,item (persona\n"
        "             `neutral` for the baseline); metrics gives IOU, SERP-MS and PRAG divergences\n"
        "  responses  raw cold-start answers model,seed,persona_category,persona,response, parsed\n"
        "             against --catalog (exact, then fuzzy); out-of-catalog items are kept and counted\n"
        "  references identity studies: item,group,share[,count,group_total] — each group's share\n"
        "             among an item's people (e.g. a university's students), for Mean Share and Coverage",
        epilog="examples:\n  workbench import questions running_shoes.json --db audit.db --study shoes\n"
        "  workbench import mentions lists.csv --db audit.db --study external\n"
        "  workbench import entities regions.csv --db audit.db",
    )
    p.add_argument("kind", choices=["questions", "mentions", "entities", "rankings", "responses", "references"])
    p.add_argument("file")
    add_db(p)
    p.add_argument("--study", help="study to import into (created if missing)")
    p.add_argument("--topic", help="questions: the topic of a ChoiceEval JSON bank")
    p.add_argument("--catalog", help="responses: the catalog (JSON list or CSV with attribute columns)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "metrics", help="every study's metrics (ChoiceEval, cold-start, identity)", formatter_class=fmt,
        description="Computes every metric from the stored ranked lists (after any review), per model x\n"
        "topic and per cluster: preferred entity and PEIR, direct-recommendation rate, Spearman rho\n"
        "between repetitions and Kruskal-Wallis, log-odds ratios between regions with a t-test over\n"
        "clusters, and the share of responses with the United States in the top 3. Cold-start studies:\n"
        "IOU / SERP-MS / PRAG divergence from the neutral list, fidelity and group shares. Identity\n"
        "studies: mean share and coverage per condition vs baseline, probe admissions, explanation words.\n"
        "JSON and CSV give one flat record per number (keys: study, metric, model, topic, cluster, ...).",
        epilog="examples:\n  workbench metrics --db audit.db\n"
        "  workbench metrics --db audit.db --study shoes --format json > metrics.json",
    )
    add_db(p)
    p.add_argument("--study", help="only this study")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser(
        "demo", help="run the bundled demo study on the bundled local model", formatter_class=fmt,
        description="Runs assets/studies/demo.toml (3 topics x 9 clusters) with llama:default. In a\n"
        "terminal it opens the app and runs the demo live; with --no-tui (or without a terminal) it\n"
        "prints the status, a few answers and the metric tables. Run it again: it resumes or reports.",
        epilog="examples:\n  workbench demo\n  workbench demo --db /tmp/demo.db",
    )
    p.add_argument("--db", help=f"database (default: {demo_db_path()})")
    p.add_argument("--no-tui", action="store_true",
                   help="print the results instead of opening the app (the default without a terminal)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "tui", help="the terminal app: design, run, metrics, review, entities", formatter_class=fmt,
        description="Opens the keyboard-driven app on a database. 1 = Run screen, 2 = Metrics,\n"
        "F1 or ? = help, Ctrl+P = every action. Works over SSH in 80x24. It follows runs started\n"
        "elsewhere on the same database without locking it.",
        epilog="examples:\n  workbench tui --db audit.db\n  workbench tui --db audit.db --study study.toml --start",
    )
    add_db(p)
    p.add_argument("--study", help="study file the Run screen starts (s) and resumes")
    p.add_argument("--start", action="store_true", help="start the study at once")
    p.set_defaults(func=cmd_tui)

    p = sub.add_parser(
        "doctor", help="check llama.cpp features, the default model and configured engines",
        formatter_class=fmt,
        description="Reports the llama.cpp build (GPU offload or not, threads), where the bundled\n"
        "model is, and whether each configured engine answers.",
        epilog="examples:\n  workbench doctor\n  workbench doctor --model 'openai:m@http://127.0.0.1:8000/v1'\n"
        "  workbench doctor --study study.toml",
    )
    p.add_argument("--model", action="append", metavar="SPEC", help="also check this model spec")
    p.add_argument("--study", help="also check the models of this study")
    p.set_defaults(func=cmd_doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except (UserError, StoreError) as exc:
        _console(stderr=True).print(literal_text(f"error: {exc}"), style="red", soft_wrap=True)
        return 2
    except sqlite3.Error as exc:
        # A database that cannot be written (read-only, disk full, locked for longer than
        # the busy timeout): one line; every write is a transaction, so nothing is half-done.
        _console(stderr=True).print(literal_text(f"error: database {args.db if 'db' in args else ''}: "
                                                 f"{db_reason(exc)}"), style="red", soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        _console(stderr=True).print("Interrupted; nothing half-written (run the same command again).")
        return 130
    except BrokenPipeError:
        return 0
