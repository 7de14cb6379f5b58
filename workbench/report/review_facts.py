"""The review part of a report: how much of the extracted lists people judged, how well two
reviewers agree (Cohen's kappa), how the probe labels' rules and judge compare with the
human ones, and every decision made, by kind and by whom (the decision log)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from itertools import combinations

from workbench.report.document import Block, Facts, Paragraph, Section, TableBlock
from workbench.store.decisions import log as decision_log
from workbench.store.reads import report as report_reads
from workbench.store.review import adjudication
from workbench.store.review import validation as review_validation
from workbench.store.review import verdicts as reviews
from workbench.text.numbers import fmt_num
from workbench.text.words import plural_word

# Pairs of reviewers compared at most: a study with many reviewers gets the first ones by name.
MAX_REVIEWERS = 6


def review_section(conn: sqlite3.Connection, study: str, study_id: int) -> Section:
    blocks = _list_blocks(conn, study, study_id) + _probe_blocks(conn, study) + _decision_blocks(conn, study)
    return Section("review", "Review", blocks)


def _list_blocks(conn: sqlite3.Connection, study: str, study_id: int) -> list[Block]:
    counts = report_reads.list_review_counts(conn, study_id)
    if not counts["lists"]:
        return [Paragraph("This study has no extracted lists to review.")]
    share = counts["reviewed"] / counts["lists"]
    rows = [
        ("Extracted lists", fmt_num(counts["lists"])),
        (
            "Reviewed (a standing verdict the metrics follow)",
            f"{fmt_num(counts['reviewed'])} of {fmt_num(counts['lists'])} ({fmt_num(share)})",
        ),
    ]
    rows += [
        (
            f"Reviewer {r['reviewer']}",
            f"{fmt_num(r['open'])} {plural_word(r['open'], 'verdict')}, {fmt_num(r['blind'])} blind",
        )
        for r in counts["reviewers"]
    ]
    # An adjudicator settles the two validators' disagreements: counted apart, never paired.
    rows += [
        (f"Adjudicated by {a['reviewer']}", f"{fmt_num(a['lists'])} {plural_word(a['lists'], 'list')}")
        for a in adjudication.adjudicator_counts(conn, study_id)
    ]
    blocks: list[Block] = [Facts(rows)]
    names = adjudication.validator_names(conn, study_id)[:MAX_REVIEWERS]
    if len(names) < 2:
        blocks.append(Paragraph("Two-reviewer agreement: needs a second reviewer (a blind validation review)."))
        return blocks
    list_ids = [item["id"] for item in reviews.review_items(conn, study)]
    table = []
    for first, second in combinations(names, 2):
        result = review_validation.agreement(conn, list_ids, first, second)
        table.append(
            [
                first,
                second,
                fmt_num(result["both_reviewed"]),
                fmt_num(result["same_list"]),
                fmt_num(result["agreement"]),
                fmt_num(result["kappa"]),
            ]
        )
    header = ["first", "second", "lists both reviewed", "same final list", "agreement", "Cohen's kappa"]
    title = "Two-reviewer agreement between validators (each final list one category; adjudications apart)"
    blocks.append(TableBlock(title, header, table))
    return blocks


def _probe_blocks(conn: sqlite3.Connection, study: str) -> list[Block]:
    from workbench.methods.hooks import offered

    probe_reviews = offered("probe labels")
    if probe_reviews is None:  # no installed method reviews probe labels
        return []
    result = probe_reviews.agreement(conn, study)
    if not result["human_labels"]:
        return []
    rows = [
        [name, fmt_num(result[name]["n"]), fmt_num(result[name]["agree"]), fmt_num(result[name]["kappa"])]
        for name in ("rule", "judge")
        if result[name]["n"]
    ]
    title = f"Probe labels: machine labels vs {fmt_num(result['human_labels'])} human ones"
    return [TableBlock(title, ["labelled by", "compared", "agree", "Cohen's kappa"], rows)]


def _decision_blocks(conn: sqlite3.Connection, study: str) -> list[Block]:
    log = decision_log.decision_log(conn, study)
    if not log:
        return [Paragraph("No decisions recorded (no verdicts, entity decisions, match corrections or labels).")]
    counted = Counter((r["kind"], r["state"]) for r in log)  # a decision's kind: verdict, entity, ...
    by_kind = [
        [kind, fmt_num(counted[(kind, "active")]), fmt_num(counted[(kind, "undone")])]
        for kind in dict.fromkeys(r["kind"] for r in log)
    ]
    people = Counter((r["who"] or "unknown", r["kind"]) for r in log if r["state"] == "active")
    by_who = [[who, kind, fmt_num(n)] for (who, kind), n in sorted(people.items())]
    note = Paragraph(
        "Entity decisions (merges, renames, regions) belong to no one study: they are counted in every "
        "study's report. `workbench export --what decisions` lists each with who, when, why, before and after."
    )
    return [
        TableBlock("Decisions by kind", ["kind", "standing", "undone"], by_kind),
        TableBlock("Standing decisions by person", ["who", "kind", "decisions"], by_who),
        note,
    ]
