"""`workbench review probes|label|undo-label` (identity studies' probe labels) and
`workbench review matches|match|undo-match` (cold-start catalog-match corrections)."""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import UserError, make_console, new_table, study_id_of
from workbench.cli.entities import reviewer_name
from workbench.pipeline import run_records as exports
from workbench.text.literal import literal_text


def offered(name: str):
    """The part named `name` of whichever installed method offers it; refused in one line when
    none does."""
    from workbench.methods.hooks import offered as found

    part = found(name)
    if part is None:
        raise UserError(f"no installed method reviews {name}")
    return part


def review_matches(conn, args: argparse.Namespace) -> int:
    match_reviews = offered("catalog matches")
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


def review_probes(conn, args: argparse.Namespace) -> int:
    probe_reviews = offered("probe labels")

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
