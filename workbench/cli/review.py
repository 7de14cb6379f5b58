"""`workbench review`: validation samples, probe labels and catalog-match corrections."""

from __future__ import annotations

import argparse
import json
import sys

from workbench import exports
from workbench.cli.common import (
    UserError,
    add_db,
    make_console,
    new_table,
    open_store,
    study_id_of,
)
from workbench.cli.entities import reviewer_name
from workbench.literal import literal_text


def cmd_review(args: argparse.Namespace) -> int:
    from workbench.store import reviews

    conn = open_store(args.db, create=False)
    study_id_of(conn, args.study)
    if args.action in ("probes", "label", "undo-label"):
        return _review_probes(conn, args)
    if args.action in ("matches", "match", "undo-match"):
        return _review_matches(conn, args)
    ids = reviews.sample_list_ids(conn, args.study, args.per_topic, args.seed)
    if args.action == "sample":
        records = [dict(r) for r in reviews.review_items(conn, args.study, list_ids=ids)]
        exports.write_records(
            records, args.format, ["id", "model", "topic", "cluster", "question", "repetition", "verdict"], sys.stdout
        )
        return 0
    if not (args.first and args.second):
        raise UserError("agreement needs --first REVIEWER and --second REVIEWER")
    result = reviews.agreement(conn, ids, args.first, args.second)
    if args.format == "json":
        print(json.dumps(result))
        return 0
    rate = f"{result['agreement']:.1%}" if result["agreement"] is not None else "n/a"
    kappa = f"{result['kappa']:.3f}" if result["kappa"] is not None else "n/a (too few or identical labels)"
    make_console().print(
        f"Validation sample: {result['items']} lists ({args.per_topic} questions per topic, seed "
        f"{args.seed}); both reviewed {result['both_reviewed']}. Agreement {rate}; Cohen's kappa "
        f"{kappa}.",
        soft_wrap=True,
    )
    return 0


def _review_matches(conn, args: argparse.Namespace) -> int:
    from workbench.store import match_reviews

    study_id = study_id_of(conn, args.study)
    console = make_console()
    if args.action == "match":
        if not args.key or not (args.item or args.out):
            raise UserError(
                "match needs --key MODEL/SEED/CATEGORY/PERSONA/RANK (from `workbench review matches`) "
                "and --item TITLE or --out"
            )
        done = match_reviews.correct(conn, study_id, args.key, None if args.out else args.item, reviewer_name(args))
        console.print(
            literal_text(
                f"{done['key']}: {done['before'] or 'not in catalog'} -> "
                f"{done['after'] or 'not in catalog'} (by {reviewer_name(args)}); "
                "`workbench review undo-match` takes it back."
            )
        )
        return 0
    if args.action == "undo-match":
        undone = match_reviews.undo(conn, study_id, reviewer_name(args))
        console.print(
            "Nothing to undo."
            if undone is None
            else literal_text(f"{undone['key']}: back to {undone['restored'] or 'not in catalog'}.")
        )
        return 0
    records = match_reviews.rows(conn, study_id, args.only if args.only in ("unmatched", "uncertain") else "all")
    if args.format != "table":
        exports.write_records(records, args.format, match_reviews.ROW_FIELDS, sys.stdout)
        return 0
    table = new_table(f"Catalog matches ({args.only}): {len(records)}")
    for name in ("key", "the answer said", "catalog entry", "score", "by"):
        table.add_column(name, overflow="fold")
    for r in records:
        table.add_row(
            literal_text(r["key"]),
            literal_text(r["surface"] or "-"),
            literal_text(r["item"] or "-"),
            "" if r["match_score"] is None else f"{r['match_score']:.0f}",
            literal_text(r["corrected_by"] or ""),
        )
    console.print(table)
    return 0


def _review_probes(conn, args: argparse.Namespace) -> int:
    from workbench.store import probe_reviews

    console = make_console()
    if args.action == "label":
        if not (args.key and args.label):
            raise UserError(
                "label needs --key REQUEST_KEY (from `workbench review probes`) and --label admits|denies|unclear"
            )
        probe_reviews.label(conn, args.key, reviewer_name(args), args.label)
        console.print(
            literal_text(
                f"Labelled {args.key[:12]} {args.label} (by {reviewer_name(args)}); "
                "`workbench review undo-label` takes it back."
            )
        )
        return 0
    if args.action == "undo-label":
        undone = probe_reviews.undo(conn, reviewer_name(args))
        if undone is None:
            console.print("Nothing to undo.")
            return 0
        console.print(
            literal_text(
                f"Took back {undone['label']} on {undone['request_key'][:12]}; the label is now "
                f"{undone['restored']} ({undone['source']})."
            )
        )
        return 0
    records = probe_reviews.items(conn, args.only, args.study)
    if args.format != "table":
        exports.write_records(records, args.format, probe_reviews.ITEM_FIELDS, sys.stdout)
        return 0
    table = new_table(f"Probe labels ({args.only}): {len(records)}")
    for name in ("key", "model", "group", "condition", "rules", "judge", "label", "source"):
        table.add_column(name)
    for r in records:
        table.add_row(
            *(
                literal_text(str(v or "-"))
                for v in (
                    r["request_key"][:12],
                    r["model"],
                    r["group"],
                    r["condition"],
                    r["rule_label"],
                    r["judge_label"],
                    r["label"],
                    r["source"],
                )
            )
        )
    console.print(table)
    result = probe_reviews.agreement(conn, args.study)
    for name in ("rule", "judge"):
        part = result[name]
        if part["n"]:
            kappa = f"{part['kappa']:.3f}" if part["kappa"] is not None else "n/a"
            console.print(f"{name} labels vs human: {part['agree']}/{part['n']} agree, Cohen's kappa {kappa}")
    return 0


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "review",
        help="validation sample for a second reviewer; agreement and Cohen's kappa",
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
    p.add_argument(
        "action", choices=["sample", "agreement", "probes", "label", "undo-label", "matches", "match", "undo-match"]
    )
    add_db(p)
    p.add_argument("--study", required=True)
    p.add_argument("--per-topic", type=int, default=15, help="questions per topic in the sample (paper: 15)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", help="agreement: one reviewer")
    p.add_argument("--second", help="agreement: the other reviewer")
    p.add_argument(
        "--only",
        choices=["unreviewed", "disagreements", "all", "unmatched", "uncertain"],
        default="all",
        help="probes: which labels to list (disagreements: rules and judge differ); matches: "
        "unmatched (out of catalog) or uncertain (fuzzy score < 95)",
    )
    p.add_argument("--item", help="match: the catalog entry the item means")
    p.add_argument("--out", action="store_true", help="match: the item is not in the catalog")
    p.add_argument("--key", help="label: the prompt's request key (a unique prefix will do)")
    p.add_argument("--label", choices=["admits", "denies", "unclear"], help="label: the right label")
    p.add_argument("--who", help="reviewer name recorded with the label (default: $USER)")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_review)
