"""A comparison as people read it: one row per difference with its interval or the reason it
is n/a, and the note saying what the intervals and p-values are (`workbench compare`, the
report's section and the Metrics screen's comparison all show these)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.metrics.intervals import resamples

METRIC_LABELS = {
    "peir": "PEIR (A's e*)",
    "direct_recommendation_rate": "direct rate",
    "region_share": "region share",
    "log_odds": "log-odds",
    "mean_share": "mean share",
    "entity_delta": "Delta",
}


def what_it_is(record: dict[str, Any]) -> str:
    """The entity, region or region pair a record's difference is of."""
    if record["metric"] == "log_odds":
        return f"{record['region_a']} vs {record['region_b']}"
    if record.get("tied_with"):  # one of A's favourites tied: never A's favourite alone
        return f"{record['entity']} (tied with {', '.join(record['tied_with'])})"
    if record.get("condition") is not None:
        return " · ".join(str(x) for x in (record.get("entity") or record.get("group"), record["condition"]))
    return str(record.get("entity") or record.get("region") or "")


def comparison_table(records: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """(header, rows): one row per difference, the reason where a number is n/a (the CLI's
    table, the report's section and the Metrics screen show this)."""
    from workbench.text.numbers import fmt_interval, fmt_num

    if not records:
        return [], []
    model_a, model_b = records[0]["model_a"], records[0]["model_b"]
    header = ["topic", "metric", "of", model_a, model_b, "B - A", "95% interval", "p", "p Holm", "p BH", "questions"]
    rows = []
    for r in records:
        interval = fmt_interval(r) or ("n/a: " + r["ci_na_reason"] if r.get("ci_na_reason") else "")
        if r.get("na_reason"):
            interval = "n/a: " + r["na_reason"]
        rows.append(
            [
                "" if r.get("topic") is None else str(r["topic"]),
                METRIC_LABELS.get(r["metric"], r["metric"]),
                what_it_is(r),
                fmt_num(r["value_a"]),
                fmt_num(r["value_b"]),
                fmt_num(r["difference"], signed=True),
                interval,
                fmt_num(r["p"]),
                fmt_num(r.get("p_holm")),
                fmt_num(r.get("p_bh")),
                str(r["n_questions"]) if "n_questions" in r else f"{r['n_units']} {r['ci_unit']}s",
            ]
        )
    return header, rows


NA_NOTE = "Why some numbers are n/a, and what to do"  # the heading the metrics' note has too


def narrow_rows(
    records: Sequence[dict[str, Any]], values: bool = False
) -> tuple[list[str], list[list[str]], list[str]]:
    """(header, rows, reasons) that fit 80 columns: what each difference is of, B - A, its
    interval (its header names the unit), p, Holm p, how many questions or units were paired,
    and with `values` A's and B's own numbers (a wide terminal); an n/a cell points to its
    reason, listed once under the table. The Metrics screen's comparison and `workbench
    compare` show this; `comparison_table` formats every number."""
    header, rows = comparison_table(records)
    if not rows:
        return [], [], []
    unit = records[0].get("ci_unit") or "question"
    at = {name: i for i, name in enumerate(header)}
    reasons: list[str] = []
    out = []
    for record, row in zip(records, rows):
        interval = row[at["95% interval"]]
        if interval.startswith("n/a: "):
            reason = interval.removeprefix("n/a: ")
            reasons += [reason] if reason not in reasons else []
            interval = f"n/a ({reasons.index(reason) + 1})"
        what = " · ".join(part for part in (row[at["metric"]], row[at["of"]]) if part)
        own = [row[at["B - A"] - 2], row[at["B - A"] - 1]] if values else []  # A's, B's
        n = record.get("n_questions", record.get("n_units"))
        bh = [row[at["p BH"]]] if values else []
        out.append(
            [row[at["topic"]], what, *own, row[at["B - A"]], interval, row[at["p"]], row[at["p Holm"]], *bh, str(n)]
        )
    named, adjusted = (["A", "B"], ["p BH"]) if values else ([], [])
    head = ["topic", "of", *named, "B - A", f"95% interval\nby {unit}", "p", "p Holm", *adjusted, f"{unit}s\npaired"]
    if not any(row[0] for row in out):  # identity and entity pair no topics: no empty column
        head, out = head[1:], [row[1:] for row in out]
    return head, out, reasons


def narrow_table(records: Sequence[dict[str, Any]], values: bool = False):
    """`narrow_rows` as a Rich table (what a difference is of wraps; numbers never do), each
    n/a reason under it with what to do about it where the catalog knows."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from workbench.display.na_reasons import remedy
    from workbench.text.literal import visible, visible_line

    header, rows, reasons = narrow_rows(records, values)
    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    what = header.index("of")
    for i, name in enumerate(header):
        table.add_column(
            Text(name),
            no_wrap=i != what,  # a long word (a condition, a region pair) folds rather than losing its end
            overflow="fold" if i == what else "ellipsis",
            justify="left" if i <= what or name.startswith("95%") else "right",
        )
    for row in rows:
        table.add_row(*(Text(visible_line(cell)) for cell in row))
    notes = [Text(NA_NOTE)] if reasons else []
    for i, reason in enumerate(reasons, 1):
        todo = remedy(reason)
        notes.append(Text(visible(f"({i}) n/a: {reason}" + (f": {todo}" if todo else ""))))
    return Group(table, *notes)


def missing_questions(records: Sequence[dict[str, Any]]) -> str | None:
    """One line where the models answered different questions of a topic: how many each lacks.
    Where the missing questions differ from the rest, the difference over the questions both
    answered is not the models' difference over all of them, and its interval says nothing of it."""
    topics = {}
    for r in records:
        if r.get("questions_only_a") or r.get("questions_only_b"):
            topics[r.get("topic")] = (r.get("questions_only_a", 0), r.get("questions_only_b", 0))
    if not topics:
        return None
    model_a, model_b = records[0]["model_a"], records[0]["model_b"]
    counts = "; ".join(f"{t}: {a} only by {model_a}, {b} only by {model_b}" for t, (a, b) in topics.items())
    return (
        f"warning: questions one model answered are left out ({counts}); where they differ from the rest "
        "the differences speak for the questions both answered only"
    )


def comparison_note(records: Sequence[dict[str, Any]]) -> str:
    """What the intervals and p-values are, in one paragraph under every table of them."""
    tested = sum(1 for r in records if r.get("p") is not None)
    n_boot = records[0]["n_boot"] if records else resamples()
    note = (
        (
            "B - A over the questions both models answered. Interval unit: question (the same questions "
            f"resampled for both models, all repetitions of each together, within its cluster; {n_boot} "
            "resamples): it speaks about questions of the kind asked; Student's t on questions less clusters "
            "times the resamples' standard deviation (a difference of shares at 0 or 1, or with no spread: "
            "Newcombe's interval). p: the same test, so p < 0.05 exactly when the interval leaves out 0; "
            f"Holm and BH adjust over the {tested} differences with a p (n/a ones are no finding)."
        )
        if not records or records[0].get("ci_unit", "question") == "question"
        else _unit_note(records[0]["ci_unit"], tested)
    )
    unit = records[0].get("ci_unit", "question") if records else "question"
    # A's and B's own numbers here are over the paired units only: the same quantity reads another
    # value in `workbench metrics`, the Metrics screen and the report's Findings (over all of them)
    note += (
        f" A's and B's own numbers are taken over those {unit}s too, so they may differ from each model's "
        f"in `workbench metrics` and the report's Findings, taken over all of its {unit}s."
    )
    warning = missing_questions(records)
    return note if warning is None else f"{note} {warning[0].upper()}{warning[1:]}."


def _unit_note(unit: str, tested: int) -> str:
    """The note of a comparison paired by prompt (identity) or template (entity)."""
    what = {"prompt": "prompts drawn from the template", "template": "templates of the kind"}.get(unit, f"{unit}s")
    return (
        f"B - A over the {unit}s both models answered with a number. Interval unit: {unit} (Student's t "
        f"on the paired differences, one degree of freedom fewer than the {unit}s): it speaks about {what}. "
        f"p: the same t test, so p < 0.05 exactly when the interval leaves out 0; Holm and BH adjust "
        f"over the {tested} differences with a p (n/a ones are no finding)."
    )
