"""`workbench evidence`: the answers behind one number of `workbench metrics`, with the count
that makes it ("Nike named in 36 of 36 answers") and the counted names marked."""

from __future__ import annotations

import argparse
import json
import sys

from workbench.cli.common import add_db, bounded_int, make_console, open_store, the_study
from workbench.text.literal import literal_text, visible_line

DESCRIPTION = """\
The answers a number of `workbench metrics` is made of, and the count that makes it.

  peir          the preferred entity: every answer of the topic (or --cluster), those naming
                it first; "Nike named in 36 of 36 answers (PEIR 1.00)"
  region_share  each region's recommendation slots (--region: one region's), entities
                without a region counted as Unknown
  lor           per cluster, the slots of the two regions compared after the 5% filter, and
                the log-odds of each (--pair A B: one of the study's region pairs)
  divergence    cold-start: each seed's answer for the persona (--topic "gender: a girl")
                beside its neutral list, the catalog items both hold counted
  mean_share    identity: each answer of a group x condition (--topic "Black · dialect"),
                the recommended items the reference table holds counted, each with its share
  delta         entity: each template's label scores of one entity (--entity), its score and
                its standing among the template's entities (--cluster: one condition)

Each answer is listed with where it was asked, its list as it counts now (after review,
merges and regions) and the names this number counts, marked [[like this]] in the answer's
text. The answers holding a counted name come first. The app shows the same with Enter on a
cell of the Metrics screen; the report's appendix quotes a few for each headline.
An unknown metric, topic, model, cluster, region, pair or entity is refused in one line naming
the known ones, and so is an option the metric does not take (--region is region_share's only).
Regions are matched as `workbench import entities` matches them: case and spacing aside, "US"
for United States."""

EXAMPLES = """\
examples:
  workbench evidence --db audit.db --study shoes --metric peir --topic "running shoes"
  workbench evidence --db audit.db --metric peir --topic "running shoes" --model gpt-4o --cluster Budget
  workbench evidence --db audit.db --metric lor --topic "running shoes" --pair "United States" Europe
  workbench evidence --db audit.db --metric region_share --topic "running shoes" --region Europe --format json
  workbench evidence --db audit.db --study urgency --metric delta --entity Bahrain --limit 3"""


def cmd_evidence(args: argparse.Namespace) -> int:
    from workbench.analysis.evidence import Query, as_record, find
    from workbench.store.db import snapshot

    conn = open_store(args.db, create=False)
    target = f"{args.pair[0]} vs {args.pair[1]}" if args.pair else args.region or args.entity
    given = tuple(o for o in ("cluster", "region", "pair", "entity") if getattr(args, o) is not None)
    with snapshot(conn):  # one commit's lists, while reviews go on
        study = the_study(conn, args.study)
        query = Query(args.metric, args.topic, args.model, args.cluster, target, given=given)
        found = find(conn, study, query)
    if args.format == "json":
        records = [as_record(e) for e in found]
        for record in records:
            record["answers"] = record["answers"][: args.limit] if args.limit else record["answers"]
        json.dump(records, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    console = make_console()
    for evidence in found:
        print_evidence(console, evidence, args.limit)
    return 0


def marked(answer) -> str:
    """The answer on one line per its own lines, the counted names between [[ ]]."""
    from workbench.analysis.evidence import answer_marks

    text, out, at = answer.text, [], 0
    for start, end in answer_marks(answer):
        out += [text[at:start], "[[", text[start:end], "]]"]
        at = end
    return "".join([*out, text[at:]])


def print_evidence(console, evidence, limit: int | None) -> None:
    scope = f"{evidence.topic}" + (f" · cluster {evidence.cluster}" if evidence.cluster else "")
    console.print(literal_text(f"{evidence.study} · {evidence.metric} · {evidence.model} · {scope}"), style="bold")
    console.print(literal_text(evidence.sentence), soft_wrap=True)
    for line in evidence.details:
        console.print(literal_text(f"  {line}"), soft_wrap=True)
    shown = evidence.answers[:limit] if limit else evidence.answers
    for n, answer in enumerate(shown, start=1):
        where = " · ".join(
            part
            for part in (
                answer.cluster,
                answer.question,
                f"repetition {answer.repetition}" if answer.repetition else "",
            )
            if part
        )
        counted = f"counted: {', '.join(answer.counted)}" if answer.counted else "counted: none"
        console.print(literal_text(f"\n{n}. {visible_line(where)}"), style="bold", soft_wrap=True)
        console.print(literal_text(f"   list: {', '.join(answer.names) or '(empty)'} · {counted}"), soft_wrap=True)
        if answer.note:
            console.print(literal_text(f"   {answer.note}"), soft_wrap=True)
        text = marked(answer) if answer.text else "(imported list: no answer text)"
        console.print(literal_text(text), soft_wrap=True)
    if limit and len(evidence.answers) > limit:
        console.print(literal_text(f"\n... and {len(evidence.answers) - limit} more (--limit 0: all)"), style="dim")
    console.print()


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "evidence",
        help="the answers behind a number, with the count that makes it",
        formatter_class=fmt,
        description=DESCRIPTION,
        epilog=EXAMPLES,
    )
    add_db(p)
    p.add_argument("--study", help="the study (default: the database's only study)")
    p.add_argument(
        "--metric", required=True, help="peir, region_share, lor (ChoiceEval); divergence; mean_share; delta"
    )
    p.add_argument("--topic", help="the topic (cold-start: persona; identity: group · condition; entity: task)")
    p.add_argument("--model", help="one model, as the study or the table names it (default: every model)")
    p.add_argument("--cluster", help="one cluster's answers (default: the topic's); entity: one condition")
    p.add_argument("--region", help="region_share: one region's slots (default: every region's)")
    p.add_argument("--pair", nargs=2, metavar=("A", "B"), help="lor: one region pair (default: the study's)")
    p.add_argument("--entity", help="delta: the entity whose Delta it is")
    p.add_argument(
        "--limit",
        type=bounded_int(0, None),
        default=0,
        metavar="N",
        help="list at most N answers per number (default 0: all)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_evidence)
