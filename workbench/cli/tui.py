"""`workbench tui` and `demo`: the app, and the bundled demo end to end."""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from pathlib import Path

from rich.console import Console

from workbench.cli.common import (
    UserError,
    add_db,
    make_console,
    open_store,
)
from workbench.cli.data import print_status
from workbench.cli.metrics import print_metric_tables
from workbench.cli.run import run_study
from workbench.host.locations import default_reviewer, demo_db_path
from workbench.methods.study_files import load_study
from workbench.pipeline import run_records as exports
from workbench.store.review.reviewer_names import clean_reviewer
from workbench.text.literal import literal_text
from workbench.transfer.dispatch import kinds as transfer_kinds


def in_a_terminal() -> bool:
    """Whether the app can be drawn and read keys: standard input and output are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_tui(args: argparse.Namespace) -> int:
    if args.study:
        load_study(args.study)  # a bad study file: one line from main(), before the screen opens
    open_store(args.db, create=bool(args.study)).close()  # a new database only for a study to run
    from workbench.app import WorkbenchApp

    # One rule for every way a name enters (store/review/reviewer_names.py): refused here, in one line,
    # before the screen opens.
    if args.reviewer is not None and args.reviewer.strip():
        reviewer = clean_reviewer(args.reviewer, "--reviewer")
    else:
        reviewer = clean_reviewer(default_reviewer(), "$USER")
    if not in_a_terminal():
        # Without a terminal the app would draw into a pipe or a file and wait for keys forever.
        raise UserError(
            "the app needs a terminal (standard input and output); without one, `workbench status`, "
            "`metrics`, `review lists` and `report` give the same results"
        )
    WorkbenchApp(args.db, args.study, autostart=args.start, reviewer=reviewer).run()
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    console = make_console()
    db = args.db or str(demo_db_path())
    study_path = str(files("workbench.assets").joinpath("studies/demo.toml"))
    seed_demo_regions(db)
    if not args.no_tui and in_a_terminal():
        from workbench.engines.resolve import default_model_path

        default_model_path(notify=console.print)  # assemble before the screen takes over
        open_store(db).close()
        from workbench.app import WorkbenchApp

        WorkbenchApp(db, study_path, autostart=True).run()
        if _left(db):  # quit before the run ended: it was stopped, nothing lost
            console.print(f"The demo's run stopped when the app closed; `workbench demo --db {db}` resumes it.")
            return 0
        console.print(f"Database: {db}\nThe same results headless: `workbench demo --no-tui --db {db}`")
        return 0
    console.print(
        "[bold]Audit Workbench demo[/]: 3 topics x 9 user clusters x 2 questions, asked twice of the bundled "
        "Gemma 3 270M on this machine; the brands of assets/studies/demo_brands.csv found in each answer."
    )
    status = run_study(study_path, db, None, None, None, console)
    if status == 130:  # interrupted: what resumes it, on this database; no tables of a part-run
        console.print(f"`workbench demo --db {db}` resumes the demo where it stopped.")
        return status
    conn = open_store(db)
    print_status(conn, "demo", console)
    print_samples(conn, "demo", console, count=3)

    console.print()
    print_metric_tables(conn, "demo", console, db=db)
    console.print(literal_text(DEMO_LIMITS), style="dim", soft_wrap=True)
    console.print(f"\nDatabase: {db}\nNext: `workbench export --db {db} --what responses --format csv`")
    return status


# Said after the demo's tables: what they can be read for.
DEMO_LIMITS = (
    "\nWhat this demo can and cannot show. The 270M model answers in seconds on a CPU and names real "
    "brands, so every stage runs and every table fills: the preferred brand per topic, the log-odds of "
    "US against other brands with intervals, stability between the two repetitions. It cannot show "
    "what a large model prefers: it is 270M parameters, it was shown two example answers (the demo's "
    "system prompt) whose form and brands it copies, its brands are those of a list (a brand not "
    "in it is not counted) and a name is counted whether recommended or not. With 2 questions "
    "per cluster the intervals are wide. Read the numbers as a walkthrough, not a finding; for an "
    "audit, point a study at the models you care about and ask each question more often."
)


def _left(db: str) -> int:
    """The demo study's requests not answered yet."""
    from workbench.store.reads import shared as reads
    from workbench.store.requests import queue, studies

    conn = open_store(db)
    try:
        study_id = studies.study_id(conn, "demo")
        return 0 if study_id is None else sum(reads.unanswered(conn, study_id, queue.claim_owner()))
    finally:
        conn.close()


def seed_demo_regions(db: str) -> None:
    """The demo's brands with their home region (facts: where each brand is based), from
    the gazetteer its extraction reads, so its log-odds and region charts have values;
    names the model never mentions wait in the store and apply if it does. Applied each
    time the demo starts, on the demo's database."""

    conn = open_store(db)
    try:  # the same import as `workbench import entities` (the demo's method's import kind)
        entities = transfer_kinds().imports["entities"]
        entities.run(conn, Path(str(files("workbench.assets").joinpath("studies/demo_brands.csv"))), {})
    finally:
        conn.close()


def print_samples(conn, study: str, console: Console, count: int) -> None:
    rows = [r for r in exports.response_records(conn, study) if r["text"] is not None][:count]
    for r in rows:
        console.print(literal_text(f"\n[{r['topic']} · {r['cluster']}] {r['question']}", style="bold"))
        console.print(literal_text(r["text"].strip() or "(empty answer)"))


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "demo",
        help="run the bundled demo study on the bundled local model",
        formatter_class=fmt,
        description="Runs assets/studies/demo.toml (3 topics x 9 clusters x 2 questions) with llama:default. In a\n"
        "terminal it opens the app and runs the demo live; with --no-tui (or without a terminal) it\n"
        "prints the status, a few answers and the metric tables. Run it again: it resumes or reports.",
        epilog="examples:\n  workbench demo\n  workbench demo --db /tmp/demo.db",
    )
    p.add_argument("--db", help=f"database (default: {demo_db_path()})")
    p.add_argument(
        "--no-tui",
        action="store_true",
        help="print the results instead of opening the app (the default without a terminal)",
    )
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "tui",
        help="the terminal app: design, run, metrics, review, entities",
        formatter_class=fmt,
        description="Opens the keyboard-driven app on a database. 1 = Run screen, 2 = Metrics,\n"
        "F1 or ? = help, Ctrl+P = every action. Works over SSH in 80x24. It follows runs started\n"
        "elsewhere on the same database without locking it.",
        epilog="examples:\n  workbench tui --db audit.db\n  workbench tui --db audit.db --study study.toml --start\n"
        "  workbench tui --db audit.db --reviewer bo",
    )
    add_db(p)
    p.add_argument("--study", help="study file the Run screen starts (s) and resumes")
    p.add_argument(
        "--reviewer",
        "--who",
        dest="reviewer",
        help="your name on every verdict and decision, shown in the header; undo takes back only yours "
        "(default: $USER; two reviewers sharing one account name themselves here)",
    )
    p.add_argument("--start", action="store_true", help="start the study at once")
    p.set_defaults(func=cmd_tui)
