"""`workbench review`: extracted lists (verdicts, undo, adjudication, the blind validation
sample and agreement), probe labels and catalog-match corrections. The verbs' parsers are
in review_args.py; probes and matches in review_labels.py."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext

from workbench.cli import review_args
from workbench.cli.common import UserError, make_console, new_table, open_store, study_id_of, the_study
from workbench.cli.entities import reviewer_name
from workbench.host.locations import DEFAULT_DB
from workbench.pipeline import run_records as exports
from workbench.store.db import snapshot
from workbench.store.entities.gazetteer_flags import flag_line
from workbench.store.review.reviewer_names import clean_reviewer, same_reviewer
from workbench.text.literal import literal_text
from workbench.text.words import plural, plural_word

ANSWER_CHARS = 400  # of an answer in a table cell: the rest is in --format json
LIST_FIELDS = ["list_id", "version", "model", "topic", "cluster", "question", "repetition", "extracted", "current"]


def cmd_review(args: argparse.Namespace) -> int:
    args.db = args.db or args.db_before or DEFAULT_DB
    args.study = args.study or args.study_before
    if getattr(args, "per_topic", None) is not None:
        raise UserError(
            "--per-topic is gone: the validation sample is a stable share of each study's questions, "
            f"--rate {review_args.SAMPLE_RATE} by default (a question in it stays in it as the study grows)"
        )
    conn = open_store(args.db, create=False)
    with snapshot(conn) if args.action in review_args.READ_VERBS else nullcontext():
        args.study = the_study(conn, args.study)
        return HANDLERS[args.action](conn, args)


def _lists(conn, args: argparse.Namespace) -> int:
    """Headless review of extracted lists: what scripts, notebooks and a blind reviewer need."""
    from workbench.store.reads import answer_search
    from workbench.store.review import validation as review_validation
    from workbench.store.review import verdicts as reviews

    who = reviewer_name(args)
    only = review_args.LIST_FILTERS[args.only]
    limit = args.limit
    if limit is None and args.search is not None and args.format == "table":
        limit = review_args.SEARCH_TABLE_PAGE
    found = None
    sample = None
    if args.only == "sample":  # the validation sample, open: the first reviewer finds it here, not by hand
        if args.search is not None or args.blind:
            raise UserError(
                "--only sample lists the validation sample open; not with --search or --blind "
                "(`workbench review sample` is the blind one)"
            )
        sample = review_validation.sample_list_ids(conn, args.study)
    if args.search is not None:  # a query the index cannot read: one line, exit status 2
        found = answer_search.search_lists(
            conn, args.search, only, study=args.study, reviewer=who, blind=args.blind, offset=args.offset, limit=limit
        )
        ids, more = found.ids, found.more
    else:
        ids = [
            item["id"]
            for item in reviews.review_items(
                conn, args.study, only=only, reviewer=who, blind=args.blind, list_ids=sample
            )
        ]
        more = limit is not None and len(ids) > args.offset + limit
        ids = ids[args.offset : None if limit is None else args.offset + limit]
    order = {list_id: n for n, list_id in enumerate(ids)}  # a search's: the order of the answers
    records = reviews.list_records(conn, args.study, only=only, reviewer=who, blind=args.blind, list_ids=ids)
    records.sort(key=lambda r: order[r["list_id"]])
    if args.format == "json" and args.limit is not None:
        paged = {"lists": records, "offset": args.offset, "limit": args.limit, "more": more}
        if found is not None:
            paged["answers_matching"] = found.answers
        print(json.dumps(paged, ensure_ascii=False, indent=1))
        return 0
    with_answer = args.only in ("disagreements", "reviewer-disagreements")  # what an adjudicator judges by
    page = _page_note(args.offset, len(records), more, found)
    return _print_lists(records, args, page, with_answer, "the validation sample" if sample is not None else "")


def _print_lists(records: list[dict], args: argparse.Namespace, page: str | None, with_answer: bool, what: str) -> int:
    """`lists` and `sample` print lists in one shape: JSON records (list_id, version, the
    answer, ...), CSV rows, or a table."""
    if args.format == "json":
        print(json.dumps(records, ensure_ascii=False, indent=1))
        return 0
    if args.format == "csv":
        # Lists as JSON arrays in their cells: a name may hold any separator.
        flat = [
            {
                **{k: r[k] for k in LIST_FIELDS},
                "extracted": json.dumps(r["extracted"], ensure_ascii=False),
                "current": json.dumps(r["current"], ensure_ascii=False),
                "verdicts": json.dumps(r["verdicts"], ensure_ascii=False),
                "adjudicated_by": (r["adjudication"] or {}).get("by"),
            }
            for r in records
        ]
        exports.write_records(flat, "csv", [*LIST_FIELDS, "verdicts", "adjudicated_by"], sys.stdout)
        return 0
    _lists_table(records, args.study, getattr(args, "search", None), page, with_answer, what)
    return 0


def _page_note(offset: int, shown: int, more: bool, found) -> str | None:
    """What a page of lists says beyond its title: which lists these are, how to read the
    next ones, how many answers match (the index's count: lists are counted as they are read)."""
    if not (offset or more):
        return None
    where = f"lists {offset + 1}-{offset + shown}" if shown else f"no list past {offset}"
    nxt = f"; more: --offset {offset + shown}" if more else ""
    answers = (
        f"; {found.answers:,} {plural_word(found.answers, 'answer')} in the store match" if found is not None else ""
    )
    return where + nxt + answers


def _lists_table(
    records: list[dict],
    study: str,
    search: str | None = None,
    page: str | None = None,
    with_answer: bool = False,
    what: str = "",
) -> None:
    """Lists as a table that reads at 80 columns: the question keeps most of the width and
    every name is on a line of its own. `page`: which lists of more these are. `with_answer`:
    the answer under the question (its start; JSON has it whole), for judging a disagreement."""
    matching = f" whose answer matches {search}" if search is not None else ""
    counted = f"{plural(len(records), 'list')} of {study}" if page is None else f"lists of {study}"
    counted += f" in {what}" if what else ""
    table = new_table(title=literal_text(f"{counted}{matching}" + (f" ({page})" if page else "")))
    table.add_column("list / version", no_wrap=True)
    table.add_column("question", ratio=3, min_width=20, overflow="fold")
    table.add_column("list now", ratio=2, min_width=12, overflow="fold")
    table.add_column("verdicts", ratio=2, min_width=10, overflow="fold")
    for r in records:
        names = "\n".join(r["current"]) or "(nothing)"
        if r["current"] != r["extracted"]:
            names += "\n(extracted:)\n" + ("\n".join(r["extracted"]) or "(nothing)")
        names += "".join(f"\n⚑ {flag_line(f)}" for f in r.get("flagged") or [] if f["name"] in r["extracted"])
        verdicts = [f"{who}: {v['decision']}{' (blind)' if v['blind'] else ''}" for who, v in r["verdicts"].items()]
        if r["adjudication"]:
            verdicts.append(f"resolved by {r['adjudication']['by']}")
        asked = f"{r['model']} · {r['topic']} · rep {r['repetition']}\n{r['question']}"
        if with_answer:
            asked += "\nanswer: " + _shortened(r["answer"] or "(no answer held)")
        table.add_row(
            literal_text(f"{r['list_id']}\n{r['version']}"),
            literal_text(asked),
            literal_text(names),
            literal_text("\n".join(verdicts)),
        )
    make_console().print(table)


def _shortened(answer: str) -> str:
    """An answer's start in a table cell (every list's whole answer would bury the table)."""
    flat = " ".join(answer.split())
    if len(flat) <= ANSWER_CHARS:
        return flat
    cut = flat[:ANSWER_CHARS].rsplit(" ", 1)[0]
    return f"{cut} … ({len(flat) - len(cut):,} characters more: --format json has it whole)"


def _undo(conn, args: argparse.Namespace) -> int:
    from workbench.store.review import verdicts as reviews

    who = reviewer_name(args)
    done = reviews.undo_review(conn, who, args.study)  # a refusal is one line from main()
    if done is None:
        make_console().print(literal_text(f"Nothing of {who}'s to undo in {args.study}."))
    else:
        note = f" ({done['note']})" if done["note"] else ""
        make_console().print(literal_text(f"Undid {who}'s {done['decision']} (verdict {done['id']}){note}."))
    return 0


def _in_study(conn, args: argparse.Namespace) -> None:
    from workbench.store.review import verdicts as reviews

    if not reviews.list_in_study(conn, args.list, args.study):
        raise UserError(f"study {args.study!r} has no list {args.list} (`workbench review lists` shows them)")


def _verdict(conn, args: argparse.Namespace) -> int:
    from workbench.store.review import verdicts as reviews

    who = reviewer_name(args)
    chosen = [name for name in ("accept", "reject") if getattr(args, name)] + (["edit"] if args.edit else [])
    if len(chosen) != 1:
        raise UserError("a verdict is one of --accept, --reject or --edit NAME [--edit NAME ...]")
    _in_study(conn, args)
    try:
        verdict = reviews.review(
            conn, args.list, who, chosen[0], args.edit, blind=args.blind, why=args.why, if_version=args.if_version
        )
    except reviews.AlreadyRecorded as same:  # run again: not an error, and not a second verdict
        said = str(same)
        make_console().print(literal_text(f"{said[0].upper()}{said[1:]}."), soft_wrap=True)
        return 0
    shown = f" {json.dumps(reviews.checked_names(args.edit), ensure_ascii=False)}" if chosen[0] == "edit" else ""
    version = reviews.list_version(conn, args.list, blind=args.blind)
    make_console().print(
        literal_text(
            f"Verdict {verdict}: {who} {chosen[0]}{shown} on list {args.list}"
            f"{' (blind: compared, not applied)' if args.blind else ''}; the list is now version {version}."
        ),
        soft_wrap=True,
    )
    return 0


def _adjudicate(conn, args: argparse.Namespace) -> int:
    from workbench.store.review import adjudication
    from workbench.store.review import verdicts as reviews

    who = reviewer_name(args)
    own = bool(args.edit) or args.reject
    if args.edit and args.reject:
        raise UserError("your own list is --edit NAME [--edit NAME ...] or --reject, not both")
    if args.take not in (None, adjudication.OWN) and own:
        raise UserError(f"--take {args.take} takes {args.take}'s list; your own is --edit/--reject (with --take own)")
    if not own and args.take in (None, adjudication.OWN):
        raise UserError(
            "adjudicate needs --take REVIEWER (that reviewer's list) or your own: --edit NAME ... | --reject"
        )
    _in_study(conn, args)
    try:
        verdict = adjudication.adjudicate(
            conn, args.list, who, args.take, [] if args.reject else args.edit, if_version=args.if_version, why=args.why
        )
    except reviews.AlreadyRecorded as same:  # run again: not an error, and not a second adjudication
        said = str(same)
        make_console().print(literal_text(f"{said[0].upper()}{said[1:]}."), soft_wrap=True)
        return 0
    names = reviews.surfaces(conn, args.list)
    source = f"{args.take}'s list" if args.take not in (None, adjudication.OWN) else "your own list"
    make_console().print(
        literal_text(
            f"Verdict {verdict}: {who} adjudicated list {args.list}, taking {source}: "
            f"{json.dumps(names, ensure_ascii=False)} (it leaves the reviewer-disagreements queue)."
        ),
        soft_wrap=True,
    )
    return 0


def _sample(conn, args: argparse.Namespace) -> int:
    from workbench.store.review import validation as review_validation
    from workbench.store.review import verdicts as reviews

    ids = review_validation.sample_list_ids(conn, args.study, args.rate, args.seed)
    who = reviewer_name(args)
    # Blind: the reviewer's own verdicts only, never another reviewer's ("edit|ana" to bo). In
    # the shape of `review lists` (list_id, version for --if-version, the answer, ...).
    records = reviews.list_records(conn, args.study, reviewer=who, blind=True, list_ids=ids)
    return _print_lists(records, args, None, False, "the validation sample (blind)")


def _agreement(conn, args: argparse.Namespace) -> int:
    from workbench.store.review import adjudication
    from workbench.store.review import validation as review_validation

    first, second = clean_reviewer(args.first, "--first"), clean_reviewer(args.second, "--second")
    if same_reviewer(first, second):  # "Ann" and "ann" are one person
        raise UserError(f"agreement compares two reviewers: --first {first!r} and --second {second!r} are one")
    ids = review_validation.sample_list_ids(conn, args.study, args.rate, args.seed)
    result = review_validation.agreement(conn, ids, first, second)
    adjudicators = adjudication.adjudicator_counts(conn, study_id_of(conn, args.study))
    if args.format == "json":
        print(json.dumps({**result, "adjudicated": {a["reviewer"]: a["lists"] for a in adjudicators}}))
        return 0
    rate = (
        f"{result['agreement']:.1%} ({result['same_list']} of {result['both_reviewed']} final lists the same)"
        if result["agreement"] is not None
        else "n/a (no list reviewed by both)"
    )
    kappa = f"{result['kappa']:.3f}" if result["kappa"] is not None else "n/a (too few or identical lists)"
    settled = "; ".join(f"{a['reviewer']} {a['lists']}" for a in adjudicators)
    make_console().print(
        literal_text(
            f"Validation sample: {result['items']} lists ({args.rate:g} of the questions, seed {args.seed}"
            f"{'; none drawn: --rate 1 takes every list' if not result['items'] else ''}); "
            f"both reviewed {result['both_reviewed']}. Agreement {rate}; Cohen's kappa {kappa} (each final "
            f"list a category)." + (f" Adjudicated (lists): {settled}." if settled else "")
        ),
        soft_wrap=True,
    )
    return 0


def _labels(conn, args: argparse.Namespace) -> int:
    from workbench.cli import review_labels

    if args.action in ("probes", "label", "undo-label"):
        return review_labels.review_probes(conn, args)
    return review_labels.review_matches(conn, args)


HANDLERS = {
    "lists": _lists,
    "verdict": _verdict,
    "undo": _undo,
    "adjudicate": _adjudicate,
    "sample": _sample,
    "agreement": _agreement,
    **{verb: _labels for verb in ("probes", "label", "undo-label", "matches", "match", "undo-match")},
}


def add_parsers(sub, fmt) -> None:
    review_args.add_parsers(sub, fmt, cmd_review)
