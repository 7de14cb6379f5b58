"""Identity disclosure on the Metrics screen: mean share of the user's group per condition."""

from __future__ import annotations

from typing import Any

from workbench.metric_views import Panel, ci_suffix, fmt, short_labels

FILTERS = ()


def identity_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Rows: group · condition; columns per model: 'mean share (diff vs baseline, p)' (with
    reference shares imported), the parse rate and the probe's admit rate."""
    names = sorted({r["model"] for r in records})
    by = {
        (r["group"], r["condition"], r["model"], r["metric"]): r
        for r in records
        if r["metric"] in ("mean_share", "mean_share_vs_baseline", "parse_rate", "probe_admits_rate")
    }
    rows = []
    for group, condition in sorted({(g, c) for g, c, _m, _x in by}):
        row = [f"{group} · {condition}"]
        for model in names:
            share, versus = (
                by.get((group, condition, model, "mean_share")),
                by.get((group, condition, model, "mean_share_vs_baseline")),
            )
            cell = f"{fmt(share['value'], 3)}{ci_suffix(share)}" if share else "-"
            if versus:
                cell += f" ({versus['difference']:+.3f}, p {fmt(versus['p'], 3)})"
            if (share or {}).get("no_signal"):
                cell += " no dialect in template"
            parsed, admits = (by.get((group, condition, model, m)) for m in ("parse_rate", "probe_admits_rate"))
            row += [cell, fmt(parsed["value"], 2) if parsed else "-", fmt(admits["value"], 2) if admits else "-"]
        rows.append(row)
    header = ["group · condition"]
    short = short_labels(names)  # a whole URL would push parsed and admits off an 80-column screen
    for model in names:
        header += [f"{short[model]}: mean share", "parsed", "admits"]
    return header, rows


def panels(records: list[dict[str, Any]], choices: dict[str, str]) -> list[Panel]:
    return [
        Panel(
            "identity-table",
            "Identity disclosure: mean share of the user's group (difference vs baseline, p), "
            "share of answers parsed, probe admit rate",
            table=identity_table(records),
        )
    ]
