"""The report's paired model comparisons: a ChoiceEval study with two or more models gets
one table per model against the first (in name order), as `workbench compare` computes it.

One quantity may then read two values in one report: the Findings take a model's number over
all of its own questions, a comparison over the questions both models answered (a log-odds
over the clusters where both give both regions slots). Where the two differ as printed, a table
after the comparison gives both, each with what it is taken over, so no reader meets "0.31" in
one part and "0.268" in another unexplained."""

from __future__ import annotations

import sqlite3
from typing import Any

from workbench.report.document import Paragraph, Section, TableBlock
from workbench.text.numbers import fmt_num

# compare's metric -> (the metrics' record kind, its field, the keys both carry beside model and topic)
SAME_QUANTITY = {
    "log_odds": ("lor", "mean", ("region_a", "region_b")),
    "peir": ("peir", "value", ("entity",)),
    "direct_recommendation_rate": ("direct_recommendation_rate", "value", ()),
    "region_share": ("region_share", "value", ("region",)),
}
METRIC_NAMES = {"log_odds": "log-odds", "peir": "PEIR", "direct_recommendation_rate": "direct rate"}
METRIC_NAMES["region_share"] = "region share"


def comparison_sections(conn: sqlite3.Connection, study: str, records: list[Any] = ()) -> list[Section]:
    """No section for a study without ranked lists of two models or more. `records`: the
    metrics the Findings show, to say where a comparison's own numbers read otherwise."""
    from workbench.analysis.compare import compare_study
    from workbench.analysis.compare_table import comparison_note, comparison_table
    from workbench.metrics.records import as_rows
    from workbench.store.requests.plan_reads import listed_models

    models = listed_models(conn, study)  # ranked lists: a ChoiceEval study's
    if len(models) < 2:
        return []
    findings = as_rows(list(records))
    first, others = models[0], models[1:]
    blocks: list = [
        Paragraph(
            "Each other model (B) against the first in name order (A), over the questions both answered. "
            "A's and B's columns are each model's number over those questions only (a log-odds over the "
            "clusters where both models give both regions slots; B's PEIR is B's share of A's favourite), "
            "so they may differ from the Findings, which take each model's numbers over all of its own "
            "questions: where they do, a table after the comparison gives both, and over what each is taken. "
            "Run `workbench compare` for any other pair."
        )
    ]
    note = ""
    for other in others:
        compared = compare_study(conn, study, first, other)
        header, rows = comparison_table(compared)
        blocks.append(TableBlock(f"{other} (B) - {first} (A)", header, rows))
        two = two_values(compared, findings)
        if two:
            title = f"{other} (B) - {first} (A): the same number in the Findings and here, over other questions"
            blocks.append(TableBlock(title, ["topic", "number", "of", "model", "in the Findings", "here"], two))
        note = comparison_note(compared)
    blocks.append(Paragraph(note))
    return [Section("model-comparisons", "Paired model comparisons", blocks, level=3)]


def two_values(compared: list[dict[str, Any]], findings: list[dict[str, Any]]) -> list[list[str]]:
    """A row per model and quantity whose value in a comparison differs, at two decimals, from
    the Findings' value of that model: both values, each with what it is taken over."""
    rows = []
    for r in compared:
        kind = SAME_QUANTITY.get(r.get("metric"))
        if kind is None or r.get("na_reason"):
            continue
        metric, field, keys = kind
        for side in ("a", "b"):
            here, model = r.get(f"value_{side}"), r.get(f"model_{side}")
            found = _finding(findings, metric, model, r, keys)
            if here is None or found is None or found.get(field) is None:
                continue  # B's PEIR of A's favourite is another entity's share than B's own: not found
            if round(found[field], 2) == round(here, 2):
                continue
            rows.append(
                [
                    str(r.get("topic") or ""),
                    METRIC_NAMES.get(r["metric"], r["metric"]),
                    _of(r),
                    f"{model} ({side.upper()})",
                    f"{fmt_num(found[field], 2)} {_findings_over(r, side, found)}",
                    f"{fmt_num(here)} {_here_over(r)}",
                ]
            )
    return rows


def _finding(findings: list[dict[str, Any]], metric: str, model: Any, r: dict[str, Any], keys: tuple[str, ...]):
    """The Findings' topic-level record of the same quantity of one model (None: there is none)."""
    return next(
        (
            f
            for f in findings
            if f.get("metric") == metric
            and f.get("model") == model
            and f.get("topic") == r.get("topic")
            and not f.get("cluster")
            and all(f.get(k) == r.get(k) for k in keys)
        ),
        None,
    )


def _of(r: dict[str, Any]) -> str:
    if r["metric"] == "log_odds":
        return f"{r.get('region_a')} vs {r.get('region_b')}"
    return str(r.get("entity") or r.get("region") or "")


def _findings_over(r: dict[str, Any], side: str, found: dict[str, Any]) -> str:
    """ "over all 20 of its questions (9 of 9 clusters)": what the Findings' value is taken over."""
    both, only = r.get("n_questions"), r.get(f"questions_only_{side}")
    total = (
        f"all {both + only} of its questions"
        if isinstance(both, int) and isinstance(only, int)
        else "all its questions"
    )
    clusters = (
        f" ({found['n_clusters']} of {found['n_total']} clusters)"
        if found.get("n_clusters") is not None and found.get("n_total") is not None
        else ""
    )
    return f"over {total}{clusters}"


def _here_over(r: dict[str, Any]) -> str:
    both = r.get("n_questions")
    said = (
        f"over the {both} questions both models answered"
        if isinstance(both, int)
        else "over the questions both answered"
    )
    return said + (" (the clusters where both give both regions slots)" if r["metric"] == "log_odds" else "")
