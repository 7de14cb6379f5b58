"""`workbench report`: one study's findings as a self-contained HTML file or as Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli.common import UserError, add_db, make_console, open_store, the_study
from workbench.cli.metrics import add_convention
from workbench.text.literal import literal_text

DESCRIPTION = """\
Writes one study's findings as a document to hand over: a single HTML file (inline CSS and
SVG charts, no script, nothing fetched from the network; prints with each part on a new page)
or the same content as Markdown. It holds:

  summary       in plain words: the three largest effects with their intervals, ties named
                as ties, what is n/a, why, and what to do; each headline links to its evidence
  the study     name, method, the study file and its SHA-256, the SHA-256 of the study as
                stored (the responses export's study_sha256), the models (GGUF SHA-256 or
                served name, replicas), the workbench version, the first and last answer
  asked         the questions (per topic x cluster; all of them in an appendix), the settings
                as sent (system prompt, temperature, top_p, max tokens, seeds, parallel as
                run, precision), the study's settings and its extraction (method, experts, k,
                min_votes, grounding)
  requests      asked, answered, failed and pending per model and stage; parse rates where
                the method measures them
  findings      each method's tables, with forest plots of estimates and their intervals
  limitations   from the data: sample sizes, model size, one repetition, unreviewed lists,
                entities without a region (counted as Unknown)
  review        the share of extracted lists reviewed, two-reviewer agreement and Cohen's
                kappa, decisions by kind and by person
  extraction    per topic, the precision and recall of the machine's names against the
                reviewed lists, the unreviewed share, the names reviewers added most
  reproducing   the study file, the model specs as stored and as run (parallel), the seeds,
                the exact commands
  conventions   which definitions the numbers follow (--convention)
  appendices    the questions; every counted brand with its region and who set it; each
                headline's count and a few of its answers, the counted names marked

The format follows the -o suffix (.html, .htm, .md, .markdown) unless --format says; without
-o, Markdown goes to standard output. The file appears whole or not at all, and a database
is never overwritten. What each part means: docs/report.md."""

EXAMPLES = """\
examples:
  workbench report --db audit.db --study shoes -o shoes-report.html
  workbench report --db audit.db --study shoes -o shoes-report.md
  workbench report --db audit.db --study shoes | less          # Markdown in the terminal
  workbench report --db movies.db --study cs --convention original -o cs-original.html"""

SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}


def output_format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    if args.output is None:
        return "md"
    found = SUFFIXES.get(Path(args.output).suffix.lower())
    if found is None:
        raise UserError(f"{args.output}: say --format html or --format md (the suffix is neither .html nor .md)")
    return found


def cmd_report(args: argparse.Namespace) -> int:
    from workbench.files.safe_output import atomic_text_file, check_output_path
    from workbench.metrics.threads import in_processes
    from workbench.report import build_report, html, markdown
    from workbench.store.db import snapshot

    if args.output is not None:
        check_output_path(args.output, args.db)  # refused before anything is read (a database first)
    fmt = output_format(args)
    conn = open_store(args.db, create=False)
    with snapshot(conn), in_processes():  # every part of the report from one commit's store (metrics forked)
        args.study = the_study(conn, args.study)
        out_name = args.output or ("report.html" if fmt == "html" else "report.md")
        document = build_report(conn, args.study, args.db, args.convention, out_name)
    text = (html if fmt == "html" else markdown).render(document)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    with atomic_text_file(args.output, args.db, newline="\n") as handle:
        handle.write(text)
    kind = "HTML" if fmt == "html" else "Markdown"
    make_console().print(literal_text(f"Wrote the {kind} report of {args.study!r} to {args.output}."), soft_wrap=True)
    return 0


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "report",
        help="one study's findings as a self-contained HTML file or Markdown, to hand over",
        formatter_class=fmt,
        description=DESCRIPTION,
        epilog=EXAMPLES,
    )
    add_db(p)
    p.add_argument("--study", help="the study to report on (default: the database's only study)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (.html or .md); default: Markdown to stdout")
    p.add_argument("--format", choices=["html", "md"], help="html or md (default: from the -o suffix)")
    add_convention(p)
    p.set_defaults(func=cmd_report)
