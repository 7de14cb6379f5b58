"""`workbench plan`: questions x repetitions for a target interval width or power."""

from __future__ import annotations

import argparse
import json
import math
import sys

from workbench.cli.common import UserError, make_console, new_table, open_store
from workbench.text.literal import literal_text

DESCRIPTION = """\
How many questions and repetitions a ChoiceEval study needs, before running it. Answers to
one question resemble each other (intra-question correlation ICC), so a repetition adds less
than a question: the variance of a share p over Q questions x R repetitions is
p(1-p)(1+(R-1)ICC)/(QR), and that of a paired difference between two models
(s2_b,diff + s2_w/R)/Q. From these (normal approximation) the planner gives, for each number
of repetitions, the questions per topic needed (a) for a 95% interval of half-width
--half-width on a share and (b) with --difference, for --power (80%) to detect that
difference between two models, paired over the same questions; with the requests and the
time at each model's throughput (measured in --db from the answers' timestamps, or --rate),
and what the study file as written gives.

The components come from stated assumptions (--p, --icc; default p 0.5, the widest, and ICC
0.33) or from a pilot study in --db (--pilot): the between- and within-question variance of
whether an answer names the model's preferred entity (--outcome peir) or any entity
(--outcome direct), estimated from its stored lists. Formulas: docs/methods.md, "Planning a
study"."""

EXAMPLES = """\
examples:
  workbench plan study.toml --icc 0.3 --p 0.3 --half-width 0.05
  workbench plan study.toml --icc 0.3 --p 0.3 --difference 0.1 --rate 2
  workbench plan study.toml --db pilot.db --pilot pilot --difference 0.1
  workbench plan study.toml --db pilot.db --pilot pilot --format json > plan.json"""


def share(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"a number between 0 and 1 (exclusive), not {text[:40]!r}")
    return value


def fraction(text: str) -> float:
    """An argparse type: a number from 0 to 1 (an ICC, a correlation)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a number from 0 to 1, not {text[:40]!r}")
    return value


def rate(text: str) -> float:
    """--rate, checked when the command runs: a refusal is one line (argparse's adds its usage)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise UserError(f"--rate: expected requests per second, a finite number above 0, got {text[:40]!r}")
    return value


def components(args: argparse.Namespace, conn):
    """(share's components, the paired difference's or None, the pilot's rows)."""
    from workbench.analysis import sizing as plan

    if args.pilot is not None:
        if args.p is not None or args.icc is not None:
            raise UserError("give --pilot or --p/--icc, not both: the pilot's answers estimate p and the ICC")
        one, rows = plan.pilot_components(conn, args.pilot, args.outcome)
        pair = plan.pilot_paired(conn, args.pilot, args.outcome) or plan.assumed_paired(one, one, args.correlation)
        return one, pair, rows
    one = plan.assumed(0.5 if args.p is None else args.p, 0.33 if args.icc is None else args.icc)
    pair = None
    if args.difference is not None:
        other = one.p + args.difference
        if not 0 < other < 1:
            raise UserError(f"--p {one.p:g} plus --difference {args.difference:g} is {other:g}: not a share")
        pair = plan.assumed_paired(one, plan.assumed(other, one.icc), args.correlation)
    return one, pair, []


def cmd_plan(args: argparse.Namespace) -> int:
    from workbench.analysis import sizing as plan

    if args.pilot is not None and args.db is None:
        raise UserError("--pilot names a study in a store: give --db too")
    design = plan.study_design(args.study_file)
    if design.na_reason and not design.topics:  # its questions per topic would plan nothing it asks
        raise UserError(f"{args.study_file}: {design.na_reason}; nothing here to plan")
    conn = open_store(args.db, create=False) if args.db is not None else None
    one, pair, pilot_rows = components(args, conn)
    given = rate(args.rate) if args.rate is not None else None
    measured = plan.measured_rates(conn) if conn is not None else {}
    if given is not None or conn is None:
        rates, why = {m: given for m in design.models}, {m: "not measured in --db" for m in design.models}
    else:
        rates, why = plan.model_rates(conn, design.name, design.models, measured)
    goal = plan.Goal(args.half_width, args.difference, args.power)
    reps = sorted(set(plan.REPETITIONS) | {design.repetitions})
    rows = plan.trade_off(one, pair, goal, reps, design.strata)
    now = plan.current(one, pair, goal, design)
    for row in rows:
        for kind in ("half_width", "power"):
            if row.get(f"questions_for_{kind}") is not None:
                _costs(row, kind, int(row[f"questions_for_{kind}"]), design, rates)
    if now.get("questions"):
        _costs(now, "half_width", int(now["questions"]), design, rates)
    result = {
        "study": design.name,
        "topics": design.topics,
        "models": design.models,
        "rates": {m: rates[m] for m in design.models},
        "rates_na_reason": {m: why[m] for m in design.models if rates[m] is None},
        "measured": {i: {"model": label, "per_second": r, "answers": n} for i, (r, n, label) in measured.items()},
        "share": {"p": one.p, "between": one.between, "within": one.within, "icc": one.icc, "source": one.source},
        "paired": None if pair is None else {"between": pair.between, "within": pair.within, "source": pair.source},
        "goal": goal.__dict__,
        "trade_off": rows,
        "current": {**now, **({"na_reason": design.na_reason} if design.na_reason else {})},
        "pilot": pilot_rows,
    }
    if args.format == "json":
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        return 0
    print_plan(result)
    return 0


def _costs(row: dict, kind: str, questions: int, design, rates: dict) -> None:
    """The requests (every topic, every model) and the hours a row's design takes."""
    from workbench.analysis import sizing as plan

    per_model = questions * int(row["repetitions"]) * max(len(design.topics), 1)
    row[f"requests_{kind}"] = per_model * len(design.models)
    row[f"hours_{kind}"] = plan.hours(per_model, design.models, rates)


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "plan",
        help="questions x repetitions a study needs for an interval width or a power (before running it)",
        formatter_class=fmt,
        description=DESCRIPTION,
        epilog=EXAMPLES,
    )
    p.add_argument("study_file", metavar="STUDY.toml", help="the study file to plan (its topics, repetitions, models)")
    p.add_argument("--db", help="a store: the models' measured throughput, and the pilot study")
    p.add_argument("--pilot", metavar="STUDY", help="estimate the variance components from this study's answers")
    p.add_argument("--outcome", choices=["peir", "direct"], default="peir", help="the pilot's outcome per answer")
    p.add_argument("--p", type=share, help="assumed share (default 0.5: the widest interval)")
    p.add_argument("--icc", type=fraction, help="assumed intra-question correlation (default 0.33)")
    p.add_argument("--half-width", type=share, default=0.05, help="target half-width of a share's interval")
    p.add_argument("--difference", type=share, help="the difference between two models to detect, paired")
    p.add_argument("--power", type=share, default=0.8, help="the power to detect it (default 0.8)")
    p.add_argument(
        "--correlation",
        type=fraction,
        default=0.0,
        help="assumed correlation of the two models' question chances (default 0: unrelated, the cautious case)",
    )
    p.add_argument("--rate", help="requests per second per model (default: measured in --db)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_plan)


def _hours(value) -> str:
    if value is None:
        return "n/a"
    return f"{value * 60:.1f} min" if value < 1 else f"{value:.1f} h"


def print_plan(result: dict) -> None:
    from workbench.text.numbers import fmt_num

    console = make_console()
    s, goal = result["share"], result["goal"]
    lines = [
        f"Study {result['study']!r}: {len(result['topics'])} topic(s), {len(result['models'])} model(s).",
        f"Share: p {fmt_num(s['p'])}, between-question variance {fmt_num(s['between'], 4)}, within "
        f"{fmt_num(s['within'], 4)}, ICC {fmt_num(s['icc'], 2)} ({s['source']}).",
    ]
    if result["paired"]:
        d = result["paired"]
        lines.append(
            f"Paired difference: between-question variance {fmt_num(d['between'], 4)}, within "
            f"{fmt_num(d['within'], 4)} ({d['source']})."
        )
    for model, per_second in result["rates"].items():
        reason = result["rates_na_reason"].get(model)
        said = f"n/a: {reason}; give --rate" if per_second is None else f"{per_second:.3g} requests/s"
        lines.append(f"Throughput of {model}: {said}.")
    for line in lines:
        console.print(literal_text(line), soft_wrap=True)
    table = new_table(
        literal_text(
            f"Questions per topic needed: for +/-{goal['half_width']:g} (95%)"
            + (f"; for {goal['power']:.0%} power to detect {goal['difference']:g}" if goal["difference"] else "")
        )
    )
    columns = ["repetitions", "questions (width)", "requests", "time"]
    if goal["difference"]:
        columns += ["questions (power)", "requests", "time"]
    for name in columns:
        table.add_column(name, justify="right")
    for row in result["trade_off"]:
        cells = [str(row["repetitions"]), str(row["questions_for_half_width"]), f"{row['requests_half_width']:,}"]
        cells.append(_hours(row["hours_half_width"]))
        if goal["difference"]:
            cells += [str(row["questions_for_power"]), f"{row['requests_power']:,}", _hours(row["hours_power"])]
        table.add_row(*cells)
    console.print(table)
    console.print(literal_text(_current_line(result)), soft_wrap=True)


def _current_line(result: dict) -> str:
    from workbench.text.numbers import fmt_num

    now, goal = result["current"], result["goal"]
    if now.get("na_reason"):
        return f"The study file gives: n/a ({now['na_reason']})."
    if now.get("questions") is None or "half_width" not in now:
        return f"The study file gives: n/a ({now.get('questions') or 0} question(s) in its smallest topic)."
    text = (
        f"The study file gives: {now['questions']} questions (smallest topic) x {now['repetitions']} repetitions, "
        f"{now['requests_half_width']:,} requests ({_hours(now['hours_half_width'])}): a share's 95% interval "
        f"+/-{fmt_num(now['half_width'])} (target +/-{goal['half_width']:g})"
    )
    if "power" in now:
        text += f", power {now['power']:.0%} to detect {goal['difference']:g} (target {goal['power']:.0%})"
    return text + "."
