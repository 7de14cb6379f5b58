"""`workbench status`, `export` and `import`: what is stored, out and in."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from workbench.cli.common import (
    add_db,
    make_console,
    new_table,
    open_store,
    study_id_of,
)
from workbench.cli.metrics import add_convention
from workbench.files.safe_output import check_output_path
from workbench.metrics.threads import in_processes
from workbench.pipeline import run_records as exports
from workbench.store.db import snapshot
from workbench.store.entities import grounding
from workbench.store.reads import shared as reads
from workbench.store.requests import endpoints, served
from workbench.text.literal import literal_line, literal_text
from workbench.text.numbers import fmt_num
from workbench.text.words import plural
from workbench.transfer import dispatch as transfer
from workbench.transfer.dispatch import kinds as transfer_kinds
from workbench.transfer.export_kinds import export_kinds


def print_status(conn, study: str | None, console: Console) -> None:
    replicas = endpoints.endpoint_records(conn, study_id_of(conn, study))
    records = exports.status_records(conn, study_id_of(conn, study), replicas)
    if not records:
        console.print(literal_text(nothing_asked(conn, study_id_of(conn, study))), soft_wrap=True)
        return
    table = new_table(title="Requests (recovered: errors of requests a later attempt answered)", pad_edge=False)
    table.add_column("study", overflow="fold")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("stage")
    for column in ("done", "pending", "running", "failed", "recovered"):  # whole words: the names fold instead
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
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
    abandoned = sum(r["abandoned"] for r in records)
    if abandoned:
        console.print(
            f"{plural(abandoned, 'pending request was', 'pending requests were')} claimed by a run that is no "
            "longer running (killed): nobody is answering them; the next `workbench run` releases and asks them.",
            soft_wrap=True,
        )
    print_replicas(replicas, console)
    print_other_models(served.served_names(conn, study_id_of(conn, study)), console)
    print_ungrounded(grounding.ungrounded_counts(conn, study_id_of(conn, study)), console)
    errors = reads.error_summary(conn, study_id_of(conn, study))
    if errors:
        table = new_table(title="Errors met (survived: a later attempt answered; final: the request failed on it)")
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


def nothing_asked(conn, study_id: int | None) -> str:
    """What status says of a store with no requests: the lists it holds, imported, if any."""
    from workbench import methods
    from workbench.methods.hooks import hook
    from workbench.store.requests.holdings import imported_lists

    held = imported_lists(conn, study_id)
    for name in methods.names():  # a method's own imported lists (cold-start's rankings)
        own = hook(methods.get(name), "held_lists")
        held += own(conn, study_id) if own is not None else []
    held = sorted(held)
    if not held:
        return "No requests in this database yet. Start with `workbench run STUDY.toml --db DB`."
    parts = "; ".join(f"{plural(n, kind)} in study {name!r}" for name, kind, n in held)
    return f"Imported data only: {parts}; nothing was asked here (`workbench run STUDY.toml --db DB` asks)."


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


def print_other_models(names: list[dict], console: Console) -> None:
    """Replies that named another model than the one asked for, per replica: mixed into
    the study, they would read as the asked model's answers."""
    others = [n for n in names if n["differs"]]
    if not others:
        return
    table = new_table(title="Replies naming another model than the one asked (see served_model in the export)")
    for column in ("model", "replica", "asked", "served as", "replies"):
        table.add_column(column, overflow="fold", justify="right" if column == "replies" else "left")
    for n in others:
        table.add_row(
            literal_text(n["model"]),
            literal_text(n["endpoint"] or ""),
            literal_text(n["asked"] or ""),
            literal_text(n["served"]),
            str(n["replies"]),
        )
    console.print(table)


def print_ungrounded(counts: list[dict], console: Console) -> None:
    """Per model, the voted entities the answers do not contain (dropped, or kept and flagged)."""
    counts = [c for c in counts if c["names"]]
    if not counts:
        return
    table = new_table(title="Voted entities not found in the answer's text (grounding: dropped or flagged)")
    for column in ("study", "model", "voted lists", "lists with some", "names"):
        table.add_column(column, overflow="fold", justify="left" if column in ("study", "model") else "right")
    for c in counts:
        table.add_row(
            literal_text(c["study"]), literal_text(c["model"]), str(c["lists"]), str(c["lists_with"]), str(c["names"])
        )
    console.print(table)


def cmd_status(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    with snapshot(conn):  # every table as one commit left it, while a run writes
        if args.json:
            print(json.dumps(exports.status_records(conn, study_id_of(conn, args.study)), indent=2))
            return 0
        print_status(conn, args.study, make_console())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    # a command that computes once and exits: metrics on forked processes (metrics/threads.py)
    with snapshot(conn), in_processes():  # every record from one commit's store, while imports and runs write
        return _export(conn, args)


def _export(conn, args: argparse.Namespace) -> int:
    study_id_of(conn, args.study)
    if args.output:
        check_output_path(args.output, args.db)  # refuse a database as the target before reading anything
        written, count = transfer.export_file(
            args.db,
            args.what,
            args.output,
            study=args.study,
            fmt=args.format,
            convention=args.convention,
            raw=args.raw,
            excel=args.excel,
            conn=conn,
        )
        make_console(stderr=True).print(literal_text(f"Wrote {plural(count, 'record')} to {written}"), soft_wrap=True)
        return 0
    if args.format == "md":
        sys.stdout.write(transfer.markdown_document(conn, args.what, args.study, args.convention)[0])
        return 0
    records, fields = transfer.export_records(conn, args.what, args.study, args.convention)
    if args.excel and args.format == "csv":
        sys.stdout.write(transfer.EXCEL_MARK)
    exports.write_records(records, args.format, fields, sys.stdout, raw=args.raw)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    console = make_console()
    with _import_progress(args.file) as progress:
        lines = transfer.import_file(args.db, args.kind, args.file, {**vars(args), "progress": progress})
    for line in lines:
        console.print(literal_text(line), soft_wrap=True)
    return 0


@contextlib.contextmanager
def _import_progress(file: str) -> Iterator[Callable[[str, int, int | None], None] | None]:
    """A progress bar on standard error while a long import reads and stores its file, when
    standard error is a terminal; nothing otherwise (a pipe, a log, a test). The bar goes
    once the import ends, leaving what the import says."""
    console = make_console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}", markup=False), BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def report(what: str, done: int, total: int | None) -> None:
            if what not in tasks:
                name = f"Reading {Path(file).name}" if what == "reading" else what.capitalize()
                tasks[what] = bar.add_task(literal_line(name).plain, total=total)
            bar.update(tasks[what], completed=done, total=total)

        yield report


def add_parsers(sub, fmt) -> None:
    add_status_parser(sub, fmt)
    add_export_parser(sub, fmt)
    add_import_parser(sub, fmt)


def add_status_parser(sub, fmt) -> None:
    p = sub.add_parser(
        "status",
        help="counts per study, model, stage and status; errors met",
        formatter_class=fmt,
        description="What is done, pending, running and failed, and which errors the runs met\n"
        "(including the ones a later attempt recovered from).",
        epilog="examples:\n  workbench status --db audit.db\n  workbench status --db audit.db --json | jq .",
    )
    add_db(p)
    p.add_argument("--study", help="only this study")
    p.add_argument("--json", action="store_true", help="machine-readable: an array of records")
    p.set_defaults(func=cmd_status)


def add_export_parser(sub, fmt) -> None:
    kinds = export_kinds()
    p = sub.add_parser(
        "export",
        help=f"export {', '.join(kinds)}",
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
        choices=list(kinds),
        default="responses",
        help="; ".join(kind.describe for kind in kinds.values()),
    )
    p.add_argument(
        "--format",
        choices=["csv", "json", "md"],
        default="csv",
        help="csv and json for programs; md for people: a header (study, models, date, records, filters, "
        "review status), then the metrics' sections or the records as a table",
    )
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
    p.add_argument(
        "--excel",
        action="store_true",
        help="CSV for a spreadsheet: starts with a UTF-8 byte-order mark so Excel reads accents right "
        "(without it, María opens as MarÃ­a); other programs may show the mark",
    )
    add_convention(p)
    p.set_defaults(func=cmd_export)


def _kinds_help(kinds) -> str:
    """Each import kind's lines, its name in a column of its own."""
    width = max(len(name) for name in kinds) + 2
    lines = []
    for name, kind in kinds.items():
        first, *rest = kind.describe.splitlines()
        lines.append(f"  {name:<{width}}{first}")
        lines += [f"  {'':<{width}}{line}" for line in rest]
    return "\n".join(lines)


def add_import_parser(sub, fmt) -> None:
    found = transfer_kinds()
    p = sub.add_parser(
        "import",
        help=f"import {', '.join(found.imports)}",
        formatter_class=fmt,
        description="Bring in data made elsewhere (CSV files need a header row). A response's list, a ranking or\n"
        "a scored prompt imported again replaces the stored one whole; a file that is refused changes nothing.\n"
        + _kinds_help(found.imports),
        epilog="examples:\n  workbench import questions running_shoes.json --db audit.db --study shoes\n"
        "  workbench import mentions lists.csv --db audit.db --study external\n"
        "  workbench import entities regions.csv --db audit.db\n"
        "  workbench import entities regions.csv --db audit.db --new-region   # adds e.g. Africa",
    )
    p.add_argument("kind", choices=list(found.imports))
    p.add_argument("file")
    add_db(p)
    p.add_argument("--study", help="study to import into (created if missing)")
    for option in found.options():
        if option.flag_only:
            p.add_argument(option.flag, action="store_true", help=option.help)
        else:
            action = "append" if option.repeat else "store"
            p.add_argument(option.flag, action=action, metavar=option.metavar, help=option.help)
    p.set_defaults(func=cmd_import)
