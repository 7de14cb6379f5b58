"""`workbench review`: validation samples, probe labels and catalog-match corrections."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext

from workbench import exports
from workbench.cli.common import (
    UserError,
    add_db,
    bounded_int,
    make_console,
    new_table,
    open_store,
    study_id_of,
)
from workbench.cli.entities import reviewer_name
from workbench.literal import literal_text
from workbench.store.db import snapshot
from workbench.words import plural

# The actions that only read: each reads its lists, verdicts and labels as one commit left them.
READ_ACTIONS = ("lists", "sample", "agreement", "probes", "matches")


def cmd_review(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    with snapshot(conn) if args.action in READ_ACTIONS else nullcontext():
        return _review(conn, args)


def _review(conn, args: argparse.Namespace) -> int:
    from workbench.store import review_validation, reviews

    study_id_of(conn, args.study)
    if args.action in ("probes", "label", "undo-label"):
        return _review_probes(conn, args)
    if args.action in ("matches", "match", "undo-match"):
        return _review_matches(conn, args)
    if args.action in ("lists", "verdict", "undo"):
        return _review_lists(conn, args)
    ids = review_validation.sample_list_ids(conn, args.study, args.per_topic, args.seed)
    if args.action == "sample":
        records = [dict(r) for r in reviews.review_items(conn, args.study, list_ids=ids)]
        exports.write_records(
            records, args.format, ["id", "model", "topic", "cluster", "question", "repetition", "verdict"], sys.stdout
        )
        return 0
    first, second = (args.first or "").strip(), (args.second or "").strip()
    if not (first and second):
        raise UserError("agreement needs --first REVIEWER and --second REVIEWER")
    if first == second:
        raise UserError(f"agreement compares two reviewers: --first and --second are both {first!r}")
    result = review_validation.agreement(conn, ids, first, second)
    if args.format == "json":
        print(json.dumps(result))
        return 0
    rate = (
        f"{result['agreement']:.1%} ({result['same_list']} of {result['both_reviewed']} final lists the same)"
        if result["agreement"] is not None
        else "n/a (no list reviewed by both)"
    )
    kappa = f"{result['kappa']:.3f}" if result["kappa"] is not None else "n/a (too few or identical lists)"
    make_console().print(
        literal_text(
            f"Validation sample: {result['items']} lists ({args.per_topic} questions per topic, seed "
            f"{args.seed}); both reviewed {result['both_reviewed']}. Agreement {rate}; Cohen's kappa "
            f"{kappa} (each final list a category)."
        ),
        soft_wrap=True,
    )
    return 0


def _review_lists(conn, args: argparse.Namespace) -> int:
    """Headless review of extracted lists: what scripts and notebooks need."""
    from workbench.store import reviews

    who = reviewer_name(args)
    console = make_console()
    if args.action == "lists":
        only = "reviewer disagreements" if args.only == "reviewer-disagreements" else args.only
        records = reviews.list_records(conn, args.study, only=only, reviewer=who, blind=args.blind)
        if args.format == "json":
            print(json.dumps(records, ensure_ascii=False, indent=1))
            return 0
        flat = [
            {
                **{k: r[k] for k in ("list_id", "model", "topic", "question", "repetition")},
                "extracted": "; ".join(r["extracted"]),
                "current": "; ".join(r["current"]),
                "verdicts": "; ".join(f"{w}: {v['decision']}" for w, v in r["verdicts"].items()),
            }
            for r in records
        ]
        fields = ["list_id", "model", "topic", "question", "repetition", "extracted", "current", "verdicts"]
        if args.format == "csv":
            exports.write_records(flat, "csv", fields, sys.stdout)
            return 0
        table = new_table(title=f"{plural(len(records), 'list')} of {args.study}")
        for field in fields:
            table.add_column(field, overflow="fold")
        for r in flat:
            table.add_row(*(literal_text(str(r[f])) for f in fields))
        console.print(table)
        return 0
    if args.action == "undo":
        try:
            done = reviews.undo_review(conn, who, args.study)
        except reviews.ReviewRefused as exc:
            raise UserError(str(exc)) from None
        if done is None:
            console.print(literal_text(f"Nothing of {who}'s to undo in {args.study}."))
        else:
            note = f" ({done['note']})" if done["note"] else ""
            console.print(literal_text(f"Undid {who}'s {done['decision']} (verdict {done['id']}){note}."))
        return 0
    chosen = [name for name in ("accept", "reject") if getattr(args, name)] + (["edit"] if args.edit else [])
    if len(chosen) != 1:
        raise UserError("a verdict is one of --accept, --reject or --edit NAME [--edit NAME ...]")
    if args.list is None:
        raise UserError("verdict needs --list ID (from `workbench review lists`)")
    if not reviews.list_in_study(conn, args.list, args.study):
        raise UserError(f"study {args.study!r} has no list {args.list} (`workbench review lists` shows them)")
    try:
        verdict = reviews.review(conn, args.list, who, chosen[0], args.edit, blind=args.blind, why=args.why)
    except reviews.ReviewRefused as exc:
        raise UserError(str(exc)) from None
    console.print(
        literal_text(
            f"Verdict {verdict}: {who} {chosen[0]}"
            + (f" [{', '.join(reviews.clean(args.edit))}]" if args.edit else "")
            + f" on list {args.list}{' (blind: compared, not applied)' if args.blind else ''}."
        )
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


DESCRIPTION = (
    "Reviewers accept, edit or reject extracted lists in the app (4 = Review). For a\n"
    "validation, a second reviewer reviews a seeded random sample blind (default 15 questions per\n"
    "topic; the app's Review filter 'validation sample (blind)' shows the same one, with the machine's\n"
    "extraction and never another reviewer's list); `agreement` compares the two reviewers' final\n"
    "lists on it (an accept's list is the one accepted) and gives Cohen's kappa.\n\n"
    "Headless: `lists` prints every list (extracted, current, each reviewer's verdict; --format json\n"
    "for scripts); `verdict` records one (--list ID --accept | --reject | --edit NAME ...; --blind for\n"
    "a second reviewer: compared, never applied); `undo` takes back your latest verdict in the study,\n"
    "refused while someone's later verdict changed that list. Verdicts are kept by question, model\n"
    "and repetition: re-extraction and re-imports keep them, and `lists` shows the ones whose answer\n"
    "was asked again (they no longer apply). --who names the reviewer (default $USER).\n\n"
    "Identity studies: `probes` lists the transparency-probe labels (rules, LLM judge, human) and\n"
    "how often rules and judge agree with the human ones; `label` sets a human label, which wins\n"
    "over both in every metric; `undo-label` takes your latest one back.\n\n"
    "Cold-start studies: `matches` lists each answer item with the catalog entry it was matched to\n"
    "(--only unmatched|uncertain); `match` points one at another entry (--item, closest title taken)\n"
    "or out of the catalog (--out); corrections survive re-runs; `undo-match` takes one back."
)
EXAMPLES = (
    "examples:\n  workbench review sample --db audit.db --study shoes\n"
    "  workbench review lists --db audit.db --study shoes --format json\n"
    "  workbench review verdict --db audit.db --study shoes --list 12 --who ana --edit Nike --edit Puma\n"
    "  workbench review verdict --db audit.db --study shoes --list 12 --who bo --blind --accept\n"
    "  workbench review undo --db audit.db --study shoes --who ana\n"
    "  workbench review agreement --db audit.db --study shoes --first ana --second bo\n"
    "  workbench review probes --db audit.db --study universities --only disagreements\n"
    "  workbench review label --db audit.db --study universities --key 3f2a9c01d4e5 --label denies\n"
    "  workbench review undo-label --db audit.db --study universities\n"
    "  workbench review matches --db audit.db --study movies --only unmatched\n"
    "  workbench review match --db audit.db --study movies --key 'm/0/gender/a girl/3' --item 'Oldboy'\n"
    "  workbench review undo-match --db audit.db --study movies"
)


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "review",
        help="validation sample for a second reviewer; agreement and Cohen's kappa",
        formatter_class=fmt,
        description=DESCRIPTION,
        epilog=EXAMPLES,
    )
    p.add_argument(
        "action",
        choices=[
            "lists",
            "verdict",
            "undo",
            "sample",
            "agreement",
            "probes",
            "label",
            "undo-label",
            "matches",
            "match",
            "undo-match",
        ],
    )
    add_db(p)
    p.add_argument("--study", required=True)
    add_options(p)
    p.set_defaults(func=cmd_review)


def add_options(p) -> None:
    """What each action reads (each help says which)."""
    p.add_argument(
        "--per-topic", type=bounded_int(1, None), default=15, help="questions per topic in the sample (paper: 15)"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", help="agreement: one reviewer")
    p.add_argument("--second", help="agreement: the other reviewer")
    p.add_argument(
        "--only",
        choices=["unreviewed", "disagreements", "reviewer-disagreements", "all", "unmatched", "uncertain"],
        default="all",
        help="lists: unreviewed, disagreements (between experts), reviewer-disagreements (two reviewers' "
        "final lists differ: adjudicate them); probes: which labels to list (disagreements: rules and judge differ); matches: "
        "unmatched (out of catalog) or uncertain (fuzzy score < 95)",
    )
    p.add_argument("--list", type=bounded_int(1, 2**63 - 1), help="verdict: the list's id (from `lists`)")
    p.add_argument("--accept", action="store_true", help="verdict: the extracted list is right")
    p.add_argument("--reject", action="store_true", help="verdict: the answer recommends nothing")
    p.add_argument(
        "--edit", action="append", metavar="NAME", help="verdict: the right list, best first (repeat the option)"
    )
    p.add_argument("--blind", action="store_true", help="verdict/lists: a second reviewer's (compared, never applied)")
    p.add_argument("--why", help="verdict: reason recorded with it")
    p.add_argument("--item", help="match: the catalog entry the item means")
    p.add_argument("--out", action="store_true", help="match: the item is not in the catalog")
    p.add_argument("--key", help="label: the prompt's request key (a unique prefix will do)")
    p.add_argument("--label", choices=["admits", "denies", "unclear"], help="label: the right label")
    p.add_argument(
        "--who", help="reviewer name recorded with a verdict or label; undo takes back theirs (default: $USER)"
    )
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
