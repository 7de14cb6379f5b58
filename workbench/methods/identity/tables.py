"""Identity-disclosure tables for `workbench metrics`."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from workbench.tables import fmt_ci, fmt_num, literal_text, new_table


def print_identity_table(records: list[dict[str, Any]], console: Console) -> None:
    table = new_table(title="Identity disclosure: mean share of the user's group (vs baseline, Mann-Whitney p)")
    for column in ("model", "group", "condition", "mean share [95% CI]", "diff [95% CI]", "p", "parsed", "admits"):
        table.add_column(column, overflow="fold")
    by: dict[tuple, dict[str, Any]] = {}
    words: dict[tuple, list[str]] = {}
    for r in records:
        if r["metric"] == "explanation_word":
            words.setdefault((r["model"], r["group"]), []).append(r["word"])
            continue
        by.setdefault((r["model"], r["group"], r["condition"]), {})[r["metric"]] = r
    for (model, group, condition), m in by.items():
        share, versus = m.get("mean_share", {}), m.get("mean_share_vs_baseline", {})
        table.add_row(
            literal_text(model),
            literal_text(group),
            condition,
            fmt_ci(share.get("value"), share),
            fmt_ci(versus.get("difference"), versus),
            fmt_num(versus.get("p")),
            fmt_num(m.get("parse_rate", {}).get("value"), 2),
            fmt_num(m.get("probe_admits_rate", {}).get("value"), 2),
        )
    console.print(table)
    if words:
        table = new_table(title="Words that mark each group's explanations (share of the word's uses, smoothed)")
        table.add_column("model", overflow="fold")
        table.add_column("group")
        table.add_column("top words", overflow="fold")
        for (model, group), top in sorted(words.items()):
            table.add_row(literal_text(model), literal_text(group), literal_text(", ".join(top)))
        console.print(table)
