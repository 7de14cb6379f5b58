"""`workbench entities`: suggestions and reviewers' decisions on entities."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext

from workbench.cli.common import (
    UserError,
    add_db,
    make_console,
    new_table,
    open_store,
    study_id_of,
)
from workbench.host.locations import default_reviewer
from workbench.pipeline import run_records as exports
from workbench.store.db import snapshot
from workbench.store.review.reviewer_names import MAX_REVIEWER, clean_reviewer  # noqa: F401  (where callers find it)
from workbench.text.literal import literal_line, literal_text
from workbench.text.words import plural


def reviewer_name(args: argparse.Namespace) -> str:
    """The reviewer a decision is recorded under (and whose decisions undo takes back): --who,
    or the login name (`locations.default_reviewer`), each by the one rule a name meets
    (store/review/reviewer_names.py: no control characters, at most 100 characters, invisible ones
    taken out). A --who that is empty or only spaces is refused, never replaced by $USER."""
    if args.who is not None:
        return clean_reviewer(args.who, "--who")
    return clean_reviewer(default_reviewer(), "$USER")


def percent(text: str) -> float:
    """A similarity on rapidfuzz's scale, 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (expected 0-100)") from None
    if not 0 <= value <= 100:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is outside 0-100")
    return value


def _region(conn, args: argparse.Namespace) -> str | None:
    """The region as the vocabulary knows it (None: clear); a new one only with --new-region."""
    from workbench.store.entities import regions

    try:
        return regions.canonical_region(args.region, regions.known_regions(conn), allow_new=args.new_region)
    except regions.RegionError as exc:
        raise UserError(f"{exc}; --new-region adds it") from None


def _suggest(conn, args: argparse.Namespace, console) -> int:
    from workbench.entities import dedup

    if args.study:
        study_id_of(conn, args.study)
    index = dedup.load_entities(conn, args.study)
    methods = dedup.METHODS if args.method == "all" else (args.method,)
    found = dedup.suggest(
        index.names,
        index.counts,
        methods=methods,
        threshold=args.threshold,
        scorer=args.scorer,
        forbidden=index.forbidden,
    )
    if args.format == "json":
        print(json.dumps([s.as_record() for s in found], ensure_ascii=False, indent=1))
    elif args.format == "csv":
        _suggestions_csv(found)
    elif not found:
        console.print(f"No suggestions among {plural(len(index.names), 'entity', 'entities')}.")
    else:
        among = plural(len(index.names), "entity", "entities")
        table = new_table(title=f"{plural(len(found), 'suggested merge')} among {among} (strict first)")
        for column in ("method", "score", "canonical", "members (mentions, how each joined)"):
            table.add_column(column, overflow="fold")
        for s in found:
            members = ", ".join(f"{m} ({c}, {r})" for m, c, r in zip(s.members, s.counts, s.reasons))
            table.add_row(s.method, f"{s.score:.0f}", literal_line(s.canonical), literal_line(members))
        console.print(table)
        console.print("Accept one: `workbench entities merge NAME NAME ... --into CANONICAL --db DB`", style="dim")
    return 0


def _suggestions_csv(found) -> None:
    """One row per member of each suggested cluster."""
    rows = (
        {
            "cluster": n,
            "method": s.method,
            "score": round(s.score, 2),
            "canonical": s.canonical,
            "member": m,
            "mentions": c,
            "joined_by": r,
        }
        for n, s in enumerate(found, start=1)
        for m, c, r in zip(s.members, s.counts, s.reasons)
    )
    fields = ["cluster", "method", "score", "canonical", "member", "mentions", "joined_by"]
    exports.write_records(rows, "csv", fields, sys.stdout)


def _list(conn, args: argparse.Namespace, console) -> int:
    from workbench.transfer.dispatch import export_records

    records, fields = export_records(conn, "entities")  # the same rows as `export --what entities`
    exports.write_records(records, args.format if args.format != "table" else "csv", fields, sys.stdout)
    return 0


def _undo_or_redo(conn, args: argparse.Namespace, console) -> int:
    from workbench.store.entities import decisions as registry

    who = reviewer_name(args)
    done = registry.undo(conn, who) if args.action == "undo" else registry.redo(conn, who)
    console.print(
        literal_text(
            f"{args.action.title()}: {done['summary']} (decision {done['id']}, by {who})"
            if done
            else f"Nothing of {who}'s to {args.action}."
        )
    )
    return 0


def _decide(conn, args: argparse.Namespace, who: str) -> int:
    """One recorded decision on entities; its id."""
    from workbench.store.entities import decisions as registry

    names, why = args.names, args.why
    if args.action == "merge":
        return registry.merge(conn, names, args.into, who=who, why=why)
    if args.action == "split":
        return registry.split(conn, names[0], names[1:], args.as_name, who=who, why=why)
    if args.action == "rename":
        if len(names) != 2:
            raise UserError("rename takes the entity and its new name")
        from workbench.store.entities import merges as entity_merges

        return entity_merges.rename(conn, names[0], names[1], who=who, why=why, reuse_merged=args.reuse_merged)
    if args.action == "region":
        if not names or args.region is None:
            raise UserError("region takes the entities and --region NAME ('' clears it)")
        return registry.set_region(conn, names, _region(conn, args), who=who, why=why)
    if len(names) != 2:
        raise UserError("forbid takes two entities")
    return registry.forbid(conn, names[0], names[1], who=who, why=why)


def _decision(conn, args: argparse.Namespace, console) -> int:
    from workbench.store.entities import decisions as registry

    who = reviewer_name(args)
    decision = _decide(conn, args, who)
    summary = registry.decision_summary(conn, decision)
    console.print(
        literal_text(f"Decision {decision}: {summary} (by {who}). `workbench entities undo --who {who}` reverts it.")
    )
    return 0


ACTIONS = {"suggest": _suggest, "list": _list, "undo": _undo_or_redo, "redo": _undo_or_redo}


def cmd_entities(args: argparse.Namespace) -> int:
    conn = open_store(args.db, create=False)
    reads_only = args.action in ("suggest", "list")  # one commit's entities, mentions and decisions
    with snapshot(conn) if reads_only else nullcontext():
        return ACTIONS.get(args.action, _decision)(conn, args, make_console())


def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "entities",
        help="de-duplicate entities: suggest, merge, split, rename, forbid, undo",
        formatter_class=fmt,
        description='Surface forms ("Nike", "Nike, Inc.") become entities; reviewers decide which are the\n'
        "same. `suggest` proposes merges, strict to lax, on the words that name the brand (case, accents,\n"
        'punctuation, legal forms like S.p.A. or Co.,Ltd., a trailing country like "(Japan)", a leading\n'
        '"The" ignored): fingerprint (same words, any order), ngram (same letters: spacing too), nearest\n'
        "(similarity >= --threshold within blocks; a name seen rarely also joins a common one a letter or\n"
        "two away). Methods chain: what a strict one joins, a lax one extends, and each cluster is shown\n"
        "once with the laxest method, the weakest link and how each member joined. Names differing in a\n"
        'number ("Terminator 2" / "3") are never paired; neither is what a reviewer forbade. Every\n'
        "decision is recorded with who, when and why; `region` assigns a region to entities as one\n"
        "decision; `undo` takes back your own latest decision (--who, default $USER) while nothing\n"
        "later changed what it changed, and `redo` makes it again; metrics follow at once. A merged-away\n"
        "entity keeps its row (entities.merged_into says where it went; the live_entities view holds one\n"
        "row per entity) and its name: a rename takes that name only with --reuse-merged.\n"
        "Measured quality: docs/entities.md.",
        epilog="examples:\n  workbench entities suggest --db audit.db\n"
        "  workbench entities suggest --db audit.db --method nearest --threshold 85 --format json\n"
        "  workbench entities merge 'Nike' 'Nike, Inc.' 'NIKE' --into Nike --db audit.db --why 'same brand'\n"
        "  workbench entities split 'Paris' 'Paris Hilton' --as 'Paris Hilton' --db audit.db\n"
        "  workbench entities rename 'nike' 'Nike' --db audit.db\n"
        "  workbench entities rename Adidas Puma --reuse-merged --db audit.db  # Puma was merged into Nike\n"
        "  workbench entities forbid 'Paris' 'Paris Hilton' --db audit.db\n"
        "  workbench entities region Nike Asics --region 'United States' --db audit.db\n"
        "  workbench entities undo --db audit.db --who ana",
    )
    p.add_argument(
        "action", choices=["suggest", "merge", "split", "rename", "forbid", "region", "undo", "redo", "list"]
    )
    p.add_argument(
        "names", nargs="*", help="entities (or their surface forms); split: the entity, then its surface forms to move"
    )
    add_db(p)
    p.add_argument("--study", help="suggest: only entities mentioned in this study")
    p.add_argument("--method", choices=["all", "fingerprint", "ngram", "nearest"], default="all")
    p.add_argument(
        "--threshold",
        type=percent,
        default=90.0,
        help="nearest: similarity 0-100 (default 90); a rarely seen name a letter or two from a common "
        "one joins below it, marked 'misspelling'",
    )
    p.add_argument(
        "--scorer",
        default="token_sort_ratio",
        choices=["token_sort_ratio", "ratio", "token_set_ratio", "WRatio"],
        help="nearest: rapidfuzz scorer (token_set_ratio also pairs 'Paris' with 'Paris, France')",
    )
    p.add_argument("--into", help="merge: the canonical name (default: the most mentioned member)")
    p.add_argument("--as", dest="as_name", help="split: the new entity's name (default: the first surface form)")
    p.add_argument("--region", help="region: the region to assign (United States, Europe, Asia, Other, ...)")
    p.add_argument("--new-region", action="store_true", help="region: accept a region not known yet")
    p.add_argument(
        "--reuse-merged",
        action="store_true",
        help="rename: take the name of an entity a merge emptied (logged; undo gives it back)",
    )
    p.add_argument(
        "--who", help="reviewer name recorded with the decision; undo/redo take back this reviewer's (default: $USER)"
    )
    p.add_argument("--why", help="reason recorded with the decision")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_entities)
