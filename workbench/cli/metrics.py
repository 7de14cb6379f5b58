"""`workbench metrics`: every method's tables, or flat records as JSON/CSV."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack

from rich.console import Console

from workbench import methods
from workbench.cli.common import (
    add_db,
    make_console,
    open_store,
    study_id_of,
)
from workbench.methods.hooks import title
from workbench.metrics.records import as_rows
from workbench.metrics.threads import in_processes
from workbench.pipeline import run_records as exports
from workbench.store.db import snapshot


def print_metric_tables(
    conn, study: str | None, console: Console, convention: str = "paper", db: str | None = None
) -> int:
    """Every method's tables for one study (or all); returns how many methods had numbers."""
    shown = 0
    for name in methods.names():
        method = methods.get(name)
        records = method.metric_records(conn, study, convention)
        if records:
            methods.print_tables_of(method, conn, study, records, console)
            shown += 1
    if not shown:  # why, per study, and what to do: never one method's guess for all
        from workbench.methods.hooks import no_numbers_lines
        from workbench.text.literal import literal_text

        for line in no_numbers_lines(conn, study, db):
            console.print(literal_text(line), soft_wrap=True)
    return shown


def cmd_metrics(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    # Every table as one commit left it, while imports and reviews go on; a command that computes
    # once and exits: the model x topics read and computed on forked processes (metrics/threads.py)
    with snapshot(conn), in_processes(split_load=True):
        study_id_of(conn, args.study)
        if args.format == "table":
            print_metric_tables(conn, args.study, make_console(), args.convention, args.db)
            return 0
        rows = as_rows(methods.metric_records(conn, args.study, args.convention))  # flat only here, as written
        exports.write_records(rows, args.format, methods.metric_fields(rows), sys.stdout)
    return 0


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "metrics",
        help=f"every study's metrics ({', '.join(title(methods.get(n)) for n in methods.names())})",
        formatter_class=fmt,
        description="Computes every metric from the stored results (after any review), per method\n"
        "(docs/methods.md says what each number means):\n"
        + "".join(f"  {name}: {methods.get(name).summary}\n" for name in methods.names())
        + "Headline numbers carry a seeded 95% bootstrap interval (--boot: how many resamples, 1000 by\n"
        "default, recorded as n_boot) over the unit each record names (ci_unit): questions, all\n"
        "repetitions of each together, for shares of answers (--ci-unit answer: these questions only),\n"
        "with the effective n (n_eff) beside n; test families Holm and BH p-values.\n"
        "JSON and CSV give one flat record per number (keys: study, metric, convention, model, ...).",
        epilog="examples:\n  workbench metrics --db audit.db\n"
        "  workbench metrics --db audit.db --study shoes --format json > metrics.json\n"
        "  workbench metrics --db movies.db --convention original   # the cold-start benchmark's own tables\n"
        "  workbench metrics --db audit.db --format json --boot 200   # rougher intervals, sooner\n"
        "  workbench metrics --db audit.db --ci-unit answer   # intervals about these questions only",
    )
    add_db(p)
    p.add_argument("--study", help="only this study")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    add_convention(p)
    p.set_defaults(func=cmd_metrics)


MAX_RESAMPLES = 1_000_000  # beyond it an interval's ends move by nothing a reader sees; memory and time do


def resamples(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 10 <= value <= MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"a number of resamples, at least 10 and at most {MAX_RESAMPLES:,}: not {text[:40]!r}"
        )
    return value


def resampled(args: argparse.Namespace):
    """The context a command runs in: its `--boot` number of resamples for every interval,
    and its `--ci-unit` (what an interval of a share of answers resamples)."""
    stack = ExitStack()
    if getattr(args, "boot", None) is not None:
        from workbench.metrics.intervals import resampling

        stack.enter_context(resampling(args.boot))
    if getattr(args, "ci_unit", None) is not None:
        from workbench.metrics.clustered import resampling_unit

        stack.enter_context(resampling_unit(args.ci_unit))
    return stack


def add_convention(p) -> None:
    p.add_argument(
        "--boot",
        type=resamples,
        metavar="N",
        help="resamples per bootstrap interval, 10 to 1,000,000 (default 1000; every record's n_boot says which): the "
        "cost grows with N and not with the data, and the interval ends move by about 4%% of the "
        "interval's half-width between two sets of 1000 resamples, about 10%% at 200",
    )
    p.add_argument(
        "--ci-unit",
        choices=["question", "answer"],
        default=None,
        help="what an interval of a share of answers (PEIR, direct rate, US top-3 share, log-odds) resamples: question "
        "(default: all repetitions of a question together, within its cluster; the interval speaks about "
        "questions of the kind asked) or answer (each answer on its own: these questions only, narrower "
        "when answers to one question resemble each other). Every record names it (ci_unit)",
    )
    p.add_argument(
        "--convention",
        choices=list(methods.CONVENTIONS),
        default="paper",
        help="paper: the published definitions (default); original: the original research "
        "code's where it differs (cold-start SERP-MS and PRAG ranked by the neutral list), to "
        "reproduce its published tables. Every record names the one it follows.",
    )
