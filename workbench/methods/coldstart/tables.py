"""Cold-start tables for `workbench metrics`."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from workbench.tables import literal_text, new_table


def print_coldstart_table(records: list[dict[str, Any]], console: Console) -> None:
    table = new_table(title="Cold-start divergence from the neutral list (mean ± population std over seeds)")
    table.add_column("model", overflow="fold")
    table.add_column("persona", overflow="fold")
    for column in ("IOU", "SERP", "PRAG", "seeds", "out of catalog"):
        table.add_column(column, justify="right")
    by: dict[tuple, dict[str, Any]] = {}
    out: dict[tuple, float] = {}
    for r in records:
        if r["metric"].endswith("_divergence"):
            by.setdefault((r["model"], r["persona_category"], r["persona"]), {})[r["metric"]] = r
        elif r["metric"] == "out_of_catalog_rate" and r.get("mean") is not None:
            out[(r["model"], r["persona_category"], r["persona"])] = r["mean"]
    for (model, category, persona), metrics in by.items():
        cells = [
            f"{metrics[m]['mean']:.3f}±{metrics[m]['std']:.3f}" if m in metrics else "n/a"
            for m in ("iou_divergence", "serp_divergence", "prag_divergence")
        ]
        n = next(iter(metrics.values()))["n"]
        rate = out.get((model, category, persona))
        # Mostly out of the catalog: the divergence is the catalog's, not the persona's.
        shown = "n/a" if rate is None else f"{rate:.0%}" + (" ⚠" if rate > 0.5 else "")
        table.add_row(literal_text(model), literal_text(f"{category}: {persona}"), *cells, str(n), shown)
    console.print(table)
    if any(rate > 0.5 for rate in out.values()):
        console.print(
            "⚠ most of these items are out of the catalog: the divergence there says little about "
            "the persona (`workbench review` c corrects matches).",
            style="yellow",
            soft_wrap=True,
        )
