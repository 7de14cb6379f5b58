"""`workbench status`, `export` and `import`: what is stored, out and in."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from workbench import exports, methods
from workbench.cli.common import (
    UserError,
    add_db,
    make_console,
    new_table,
    open_store,
    study_id_of,
)
from workbench.cli.metrics import add_convention
from workbench.csv_input import ImportError_
from workbench.literal import literal_text
from workbench.numbers import fmt_num
from workbench.safe_output import OutputRefused, atomic_text_file, check_output_path
from workbench.store import endpoints, queue


def print_status(conn, study: str | None, console: Console) -> None:
    replicas = endpoints.endpoint_records(conn, study_id_of(conn, study))
    records = exports.status_records(conn, study_id_of(conn, study), replicas)
    if not records:
        console.print("No requests in this database yet. Start with `workbench run STUDY.toml --db DB`.")
        return
    table = new_table(title="Requests (retried: errors met and retried)")
    table.add_column("study", overflow="fold")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("stage")
    for column in ("done", "pending", "running", "failed", "retried"):
        table.add_column(column, justify="right")
    for r in records:
        table.add_row(
            literal_text(r["study"]),
            literal_text(r["model"]),
            r["stage"],
            str(r["done"]),
            str(r["pending"]),
            str(r["running"]),
            str(r["failed"]),
            str(r["errors_survived"]),
        )
    console.print(table)
    print_replicas(replicas, console)
    errors = queue.error_summary(conn, study_id_of(conn, study))
    if errors:
        table = new_table(title="Errors met (survived: retried; final: the request failed)")
        for column in ("model", "kind", "survived", "final", "example"):
            table.add_column(column, overflow="fold")
        for e in errors:
            table.add_row(
                literal_text(e["model"]),
                e["kind"],
                str(e["survived"]),
                str(e["final"]),
                literal_text(e["example"][:120]),
            )
        console.print(table)


def print_replicas(replicas: list[dict], console: Console) -> None:
    """A pool's replicas: what each answered and its health when the coordinator last wrote it."""
    for model in dict.fromkeys(r["model"] for r in replicas):
        mine = [r for r in replicas if r["model"] == model]
        name = model.split("@")[0]  # the spec lists the URLs the rows name
        as_of = max(r["as_of"] for r in mine)[11:19]
        table = new_table(title=f"Replicas of {name} (as a run last saw them, at {as_of} UTC)")
        table.add_column("endpoint", overflow="fold")
        for column in ("answered", "failed", "in flight", "mean s", "state"):
            table.add_column(column, justify="right")
        for r in mine:
            table.add_row(
                literal_text(r["url"]),
                str(r["answered"]),
                str(r["failed"]),
                str(r["in_flight"]),
                fmt_num(r["mean_latency_s"]),
                r["state"],
            )
        console.print(table)


def cmd_status(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    if args.json:
        print(json.dumps(exports.status_records(conn, study_id_of(conn, args.study)), indent=2))
        return 0
    print_status(conn, args.study, make_console())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    study_id_of(conn, args.study)
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
    make_console(stderr=True).print(
        literal_text(f"Wrote {count} records to {Path(args.output).resolve()}"), soft_wrap=True
    )
    return 0


def cmd_export_what(args: argparse.Namespace, conn) -> tuple[Any, list[str]]:
    from workbench.methods.choice import data as choice_io

    if args.what == "mentions":
        return choice_io.mention_records(conn, args.study), choice_io.MENTION_FIELDS
    if args.what == "entities":
        return choice_io.entity_records(conn), choice_io.ENTITY_FIELDS
    if args.what == "metrics":
        records = methods.metric_records(conn, args.study, args.convention)
        return records, methods.metric_fields(records)
    if args.what == "rankings":
        from workbench.methods.coldstart import data as coldstart_io

        return coldstart_io.ranking_records(conn, args.study), coldstart_io.RANKING_FIELDS
    if args.what == "scores":
        from workbench.methods.entity import data as entity_io

        return entity_io.score_records(conn, args.study), entity_io.SCORE_FIELDS
    if args.what == "entity_bias":
        from workbench.methods.entity import data as entity_io

        return entity_io.bias_records(conn, args.study)
    if args.what == "identity":
        from workbench.methods.identity import data as identity_io

        return identity_io.identity_records(conn, args.study), identity_io.IDENTITY_FIELDS
    if args.what == "reviews":
        from workbench.store.reviews import REVIEW_FIELDS, review_records

        return review_records(conn), REVIEW_FIELDS
    if args.what == "decisions":
        from workbench.store.decision_log import FIELDS, decision_log

        return decision_log(conn, args.study), FIELDS
    return exports.response_records(conn, args.study), exports.RESPONSE_FIELDS


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
    from workbench.methods.choice import data as choice_io

    conn = open_store(args.db)
    console = make_console()
    path = Path(args.file)
    try:
        if args.kind == "references":
            from workbench.methods.identity import data as identity_io

            if not args.study:
                raise UserError("import references needs --study NAME")
            count = identity_io.import_references(conn, args.study, path)
            console.print(f"Imported {count} reference shares into study {args.study!r}.")
        elif args.kind in ("rankings", "responses"):
            from workbench.methods.coldstart import data as coldstart_io

            if not args.study:
                raise UserError(f"import {args.kind} needs --study NAME")
            if args.kind == "responses":
                if not args.catalog:
                    raise UserError("import responses needs --catalog CATALOG (JSON list or CSV)")
                got = coldstart_io.import_responses(conn, args.study, path, Path(args.catalog))
                console.print(
                    f"Parsed {got['lists']} responses into {got['rows']} items "
                    f"({got['out_of_catalog']} out of catalog, kept) in study {args.study!r}."
                )
            else:
                catalog = None
                if args.catalog:  # read before anything is stored: a bad catalog leaves nothing
                    from workbench.methods.coldstart.catalog import load_catalog

                    try:
                        catalog = load_catalog(Path(args.catalog))
                    except (OSError, ValueError) as exc:
                        raise UserError(f"{args.catalog}: {exc}") from None
                got = coldstart_io.import_rankings(conn, args.study, path, catalog)  # one transaction
                console.print(
                    f"Imported {got['rows']} ranked items in {got['lists']} lists into study "
                    f"{args.study!r}" + (f" with its catalog of {len(catalog.items)} items." if catalog else ".")
                )
        elif args.kind == "scores":
            from workbench.methods.entity import data as entity_io

            if not (args.study and args.task):
                raise UserError("import scores needs --study NAME and --task TASK.task.json")
            got = entity_io.import_scores(conn, args.study, path, Path(args.task), args.entities, args.group_by)
            console.print(
                f"Imported {got['scores']} label scores of {got['prompts']} prompts "
                f"({got['entities']} entities) into study {args.study!r}."
            )
        elif args.kind == "mentions":
            if not args.study:
                raise UserError("import mentions needs --study NAME")
            got = choice_io.import_mentions(conn, args.study, path)
            console.print(
                f"Imported {got['responses']} responses with {got['mentions']} mentions "
                f"({got['empty']} with no recommendation) into study {args.study!r}."
            )
        elif args.kind == "entities":
            got = choice_io.import_entities(conn, path, new_regions=args.new_region)
            console.print(f"Assigned region and attributes to {got['updated']} entities.")
            if got["unmatched"]:
                console.print(
                    literal_text(
                        f"{len(got['unmatched'])} names match no entity yet; they are kept and "
                        "applied when mentions name them: "
                        + ", ".join(got["unmatched"][:20])
                        + (" ..." if len(got["unmatched"]) > 20 else "")
                    ),
                    soft_wrap=True,
                )
            if got["without_region"]:
                names = ", ".join(f"{n} ({c})" for n, c in got["without_region"][:20])
                console.print(
                    literal_text(
                        f"{len(got['without_region'])} mentioned entities still have no "
                        f"region: {names}" + (" ..." if len(got["without_region"]) > 20 else "")
                    ),
                    soft_wrap=True,
                )
        else:
            if not args.study:
                raise UserError("import questions needs --study NAME")
            added = choice_io.import_questions(conn, args.study, path, args.topic)
            console.print(
                f"Imported {added} new questions into study {args.study!r}; "
                "the next `workbench run` of that study asks them."
            )
    except ImportError_ as exc:
        raise UserError(str(exc)) from None
    return 0


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "status",
        help="counts per study, model, stage and status; errors met",
        formatter_class=fmt,
        description="What is done, pending, running and failed, and which errors the runs met\n"
        "(including the ones a retry survived).",
        epilog="examples:\n  workbench status --db audit.db\n  workbench status --db audit.db --json | jq .",
    )
    add_db(p)
    p.add_argument("--study", help="only this study")
    p.add_argument("--json", action="store_true", help="machine-readable: an array of records")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "export",
        help="export responses, mentions, entities, metrics, rankings, scores, decisions, reviews",
        formatter_class=fmt,
        description="Export stored results. Text is exported exactly as the model wrote it.",
        epilog="examples:\n  workbench export --db audit.db --what responses --format csv > responses.csv\n"
        "  workbench export --db audit.db --what mentions --format csv -o mentions.csv\n"
        "  workbench export --db audit.db --what responses --format json --output responses.json\n"
        "  workbench export --db entity.db --what scores --format csv -o scores.csv\n"
        "  workbench export --db entity.db --what entity_bias --format csv -o bias.csv",
    )
    add_db(p)
    p.add_argument(
        "--what",
        choices=[
            "responses",
            "mentions",
            "entities",
            "metrics",
            "decisions",
            "reviews",
            "rankings",
            "scores",
            "entity_bias",
            "identity",
        ],
        default="responses",
        help="responses (answers and extraction replies), mentions (ranked lists), entities "
        "(with regions and attributes), metrics (flat records) or decisions (every human decision: "
        "verdicts, entity merges, splits, renames, forbids and regions, catalog-match and probe "
        "corrections, with who, when, why, what it is about, before and after) or reviews (verdicts on extracted lists, with the list "
        "before and after), rankings (cold-start lists), scores (label log-probs with the exact "
        "prompt and label text), entity_bias (Delta per entity with its metadata) or identity (one "
        "row per recommended item: prompt, slot values, parse mode, reference share, probe and label)",
    )
    p.add_argument("--format", choices=["csv", "json"], default="csv")
    p.add_argument("--study", help="only this study")
    p.add_argument(
        "--output",
        "-o",
        help="write to this file instead of standard output (written whole or not at all; never a database)",
    )
    p.add_argument(
        "--raw",
        action="store_true",
        help="CSV cells exactly as stored; by default cells a spreadsheet would run as formulas "
        "(= + - @ tab CR at the start) get a leading ' and terminal control characters are "
        "written out as \\xNN",
    )
    add_convention(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "import",
        help="import questions, mentions, entities, rankings, responses or references",
        formatter_class=fmt,
        description="Bring in data made elsewhere (CSV files need a header row). A response's list, a ranking or\n"
        "a scored prompt imported again replaces the stored one whole; a file that is refused changes nothing.\n"
        '  questions  a ChoiceEval JSON bank ({"<cluster>": [questions]}, topic from --topic or the file\n'
        "             name) or a CSV topic,cluster,question; asked by the next `workbench run`\n"
        "  mentions   top-K lists extracted elsewhere: model,topic,cluster,question_id,repetition,rank,entity\n"
        "             (a response with no recommendation: one row with empty rank and entity); each row is a\n"
        "             slot: a name at two ranks of one list counts twice in the log-odds (once in PEIR)\n"
        "  entities   name,region plus any attribute columns (country, sector, ...); regions drive the\n"
        "             geographic log-odds: United States (also USA, US, U.S.), Europe, Asia, Other, or one\n"
        "             already in the database, in any case and spacing; a new one needs --new-region. One\n"
        "             row per entity (rows that agree are one); an empty cell keeps the stored value\n"
        "  rankings   cold-start top-k lists: model,seed,persona_category,persona,rank,item (persona\n"
        "             `neutral` for the baseline); metrics gives IOU, SERP-MS and PRAG divergences\n"
        "  responses  raw cold-start answers model,seed,persona_category,persona,response, parsed\n"
        "             against --catalog (exact, then fuzzy); out-of-catalog items are kept and counted\n"
        "  references identity studies: item,group,share[,count,group_total] — each group's share\n"
        "             among an item's people (e.g. a university's students), for Mean Share and Coverage\n"
        "  scores     label log-probs computed elsewhere (vLLM, another harness), as `export --what scores`:\n"
        "             entity,template_id,label,logprob[,model,language,variant,method,intended]; --task gives\n"
        "             the labels and weights, --entities the metadata, --group-by the columns to compare",
        epilog="examples:\n  workbench import questions running_shoes.json --db audit.db --study shoes\n"
        "  workbench import mentions lists.csv --db audit.db --study external\n"
        "  workbench import entities regions.csv --db audit.db\n"
        "  workbench import entities regions.csv --db audit.db --new-region   # adds e.g. Africa",
    )
    p.add_argument(
        "kind", choices=["questions", "mentions", "entities", "rankings", "responses", "references", "scores"]
    )
    p.add_argument("file")
    add_db(p)
    p.add_argument("--study", help="study to import into (created if missing)")
    p.add_argument("--topic", help="questions: the topic of a ChoiceEval JSON bank")
    p.add_argument(
        "--new-region",
        action="store_true",
        help="entities: accept regions that are not known yet (the defaults and those already in the "
        "database) as new regions; without it a region not known is refused, so a typo is not a region",
    )
    p.add_argument("--task", help="scores: the task file (*.task.json) with the labels and their weights")
    p.add_argument("--entities", help="scores: entity metadata, a CSV with `name` and any columns")
    p.add_argument(
        "--group-by",
        action="append",
        metavar="COLUMN",
        help="scores: compare the groups of this metadata column (repeat for several)",
    )
    p.add_argument(
        "--catalog",
        help="responses, rankings: the catalog (JSON list or CSV with attribute columns); "
        "with rankings it enables mean catalog rank and group shares",
    )
    p.set_defaults(func=cmd_import)
