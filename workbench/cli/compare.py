"""`workbench compare`: two models of a study, paired over what both answered (ChoiceEval: the
questions; identity: the sampled prompts; entity: the templates)."""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import UserError, add_db, make_console, open_store, the_study
from workbench.text.literal import literal_text

DESCRIPTION = """\
Model B's number minus model A's, paired over what both answered, for each method:

  ChoiceEval  per topic, over the questions both answered: the share of answers naming A's
              preferred entity (PEIR of A's e*), the direct-recommendation rate, each
              region's share of recommendation slots and each region pair's log-odds (the
              study's region_pairs). Unit: question (all repetitions of a question together,
              within its cluster).
  identity    each group x condition's Mean Share, paired by prompt (both models are asked
              the same sampled prompts). Unit: prompt.
  entity      each entity's Delta per task, language, variant and scoring, paired by
              template (both models score the same entity x template prompts). Unit: template.

Each difference has a 95% paired interval (ci_unit names the unit: ChoiceEval's questions
resampled the same for both models; identity's prompts and entity's templates with a number
from both) and the p of the same Student's t test, so p < 0.05 exactly when the interval leaves
out 0; a difference of two shares with no spread, or with a share at 0 or 1, takes Newcombe's
interval and the p that inverts it. Holm and Benjamini-Hochberg p-values adjust over every
difference with a p. A tie for A's favourite gives each tied entity its PEIR row (tied_with).
A number that cannot be computed is n/a with its reason (no question both answered, one
question in a cluster, no region imported), and so is its p. Questions only one model answered
are left out, counted (questions_only_a, questions_only_b) and warned of.
Other methods (cold-start) are not compared.

JSON and CSV give one record per difference: study, metric, topic (entity: the task), entity
(PEIR, Delta), region (region share), region_a / region_b (log-odds), group (identity),
condition (identity; entity: language/variant/scoring),
model_a, model_b, value_a, value_b, difference, ci_low, ci_high, ci_level, n_boot, ci_unit, p,
p_holm, p_bh, n_questions, questions_only_a, questions_only_b and tied_with (ChoiceEval) or
n_units (identity, entity), and na_reason / ci_na_reason / p_na_reason where a number is
missing. The app shows the same on the Metrics screen (c).
Methods: docs/methods.md."""

EXAMPLES = """\
examples:
  workbench compare --db audit.db          (the only study's two models)
  workbench compare --db audit.db --study shoes --models gpt-4o llama3
  workbench compare --db audit.db --study shoes --models gpt-4o llama3 --format json > diff.json
  workbench compare --db audit.db --study shoes --models gpt-4o llama3 --format csv --boot 200"""


WIDE = 110  # columns from which the table also gives A's and B's numbers


def cmd_compare(args: argparse.Namespace) -> int:
    from workbench.analysis.compare import COMPARE_FIELDS, compare_study
    from workbench.analysis.compare_table import comparison_note, missing_questions, narrow_table
    from workbench.pipeline import run_records as exports
    from workbench.store.db import snapshot
    from workbench.text.literal import visible_line

    conn = open_store(args.db, create=False)
    with snapshot(conn):  # one commit's lists, while imports and reviews go on
        args.study = the_study(conn, args.study)
        args.models = args.models or _the_two_models(conn, args.study)
        records = compare_study(conn, args.study, *args.models)
    if args.format != "table":
        exports.write_records(records, args.format, COMPARE_FIELDS, sys.stdout)
        warning = missing_questions(records)  # the table's note says it; a file's reader hears it here
        if warning:
            print(visible_line(warning), file=sys.stderr)
        return 0
    console = make_console()
    console.print(literal_text(f"{args.study}: {args.models[1]} (B) - {args.models[0]} (A)"), soft_wrap=False)
    # A's and B's own numbers where there is room for them beside the difference (JSON has them always).
    console.print(narrow_table(records, values=console.width >= WIDE))
    console.print(literal_text(comparison_note(records)), soft_wrap=False)
    return 0


def _the_two_models(conn, study: str) -> list[str]:
    """A study's two models when it has just two (else name them): A the one its file lists
    first (imported data, with no file: name order)."""
    from workbench.analysis.compare import comparable_models
    from workbench.store.requests.studies import study_spec

    models = comparable_models(conn).get(study, [])
    if len(models) != 2:
        listed = f": {', '.join(models)}" if models else ""
        raise UserError(f"study {study!r} has {len(models)} models to compare{listed}; name two with --models A B")
    written = [str(m) for m in study_spec(conn, study).get("models", [])]

    def place(model: str) -> int:  # a spec as written may add transport options: "m@url,concurrency=4"
        return next((i for i, w in enumerate(written) if w == model or w.startswith(model + ",")), len(written))

    return sorted(models, key=place)


def add_parsers(sub, fmt) -> None:
    from workbench.cli.metrics import resamples

    p = sub.add_parser(
        "compare",
        help="two models of a study: differences paired by question, prompt or template",
        formatter_class=fmt,
        description=DESCRIPTION,
        epilog=EXAMPLES,
    )
    add_db(p)
    p.add_argument("--study", help="the study whose models are compared (default: the database's only study)")
    p.add_argument(
        "--models",
        nargs=2,
        metavar=("A", "B"),
        help="the two models, as the study names them (default: a study's two, when it has two)",
    )
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.add_argument(
        "--boot",
        type=resamples,
        metavar="N",
        help="resamples per interval and swaps per test, 10 to 1,000,000 (default 1000; records say n_boot)",
    )
    p.set_defaults(func=cmd_compare)
