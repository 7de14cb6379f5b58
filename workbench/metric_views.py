"""Shaping metric records for display: side-by-side tables, filters, bar charts, Markdown.

Pure functions over the flat records of `methods.metric_records`, shared by the
TUI's Metrics screen and its exports (no Textual here).
"""

from __future__ import annotations

from typing import Any

from workbench.tables import fmt_interval

ALL = "all"


def filter_options(records: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    topics = sorted({r["topic"] for r in records if r.get("topic")})
    clusters = sorted({r["cluster"] for r in records if r.get("cluster")})
    return [ALL] + topics, [ALL] + clusters


def select(records: list[dict[str, Any]], topic: str, cluster: str) -> list[dict[str, Any]]:
    """Records of one topic (or all) at one cluster (or topic level)."""
    wanted_cluster = None if cluster == ALL else cluster
    return [r for r in records if (topic == ALL or r.get("topic") == topic) and r.get("cluster") == wanted_cluster]


def models(records: list[dict[str, Any]]) -> list[str]:
    return sorted({r["model"] for r in records})


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _ci(record: dict[str, Any]) -> str:
    """ " [low, high]": the bootstrap interval, when the record has one."""
    interval = fmt_interval(record)
    return f" {interval}" if interval else ""


def peir_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Rows: topic; columns: one per model with 'entity (PEIR)', models side by side."""
    names = models(records)
    by = {(r["topic"], r["model"]): r for r in records if r["metric"] == "peir"}
    direct = {(r["topic"], r["model"]): r for r in records if r["metric"] == "direct_recommendation_rate"}
    rows = []
    for topic in sorted({t for t, _ in by}):
        row = [topic]
        for model in names:
            r, d = by.get((topic, model)), direct.get((topic, model))
            row.append(
                f"{r['entity'] or '-'} {fmt(r['value'], 2)}{_ci(r)} · direct {fmt(d['value'] if d else None, 2)}"
                if r
                else ""
            )
        rows.append(row)
    return ["topic"] + names, rows


def lor_cell(r: dict[str, Any]) -> str:
    """A topic's mean LOR, or why there is none: "0.00 (p n/a)" must not read like "no bias"."""
    if r.get("slots_a") == 0 and r.get("slots_b") == 0:
        return "n/a: no regions yet"  # the screen and the CLI say how to assign them
    if r.get("p") is None:
        why = "one cluster" if r.get("n_groups") == 1 else "no spread over clusters"
        return f"{fmt(r['mean'], 2)}{_ci(r)} (no test: {why})"
    return f"{fmt(r['mean'], 2)}{_ci(r)} (p {fmt(r['p'], 3)})"


def lor_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    names = models(records)
    by = {(r["topic"], r["region_a"], r["region_b"], r["model"]): r for r in records if r["metric"] == "lor"}
    rows = []
    for topic, a, b in sorted({k[:3] for k in by}):
        row = [topic, f"{a} vs {b}"]
        for model in names:
            r = by.get((topic, a, b, model))
            if r is None:
                row.append("")
            elif "mean" in r:  # topic level: mean over clusters, its interval and test
                row.append(lor_cell(r))
            else:  # one cluster
                row.append(fmt(r.get("value"), 2))
        rows.append(row)
    return ["topic", "regions"] + names, rows


def stability_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    names = models(records)
    rows = []
    for topic in sorted({r["topic"] for r in records if r["metric"] in ("spearman", "kruskal_wallis")}):
        row = [topic]
        for model in names:
            rhos = [
                r["value"]
                for r in records
                if r["metric"] == "spearman" and r["topic"] == topic and r["model"] == model and r["value"] is not None
            ]
            kw = next(
                (r for r in records if r["metric"] == "kruskal_wallis" and r["topic"] == topic and r["model"] == model),
                None,
            )
            rho = f"rho {min(rhos):.2f}..{max(rhos):.2f}" if rhos else "rho n/a"
            row.append(f"{rho} · KW p {fmt(kw['p'], 3) if kw else 'n/a'}")
        rows.append(row)
    return ["topic"] + names, rows


def lor_bars(records: list[dict[str, Any]], width: int = 30) -> list[tuple[str, float, str]]:
    """(label, value, bar) per model x cluster LOR (US vs Europe), bars centred on 0;
    over several topics, the mean of the topics' values."""
    grouped: dict[tuple[str, str], list[float]] = {}
    for r in records:
        if r["metric"] == "lor" and r.get("cluster") and r.get("value") is not None and r["region_b"] == "Europe":
            grouped.setdefault((r["model"], r["cluster"]), []).append(r["value"])
    if not grouped:
        return []
    values = {key: sum(v) / len(v) for key, v in grouped.items()}
    scale = max(abs(v) for v in values.values()) or 1.0
    half = width // 2
    out = []
    for (model, cluster), value in sorted(values.items()):
        n = round(abs(value) / scale * half)
        bar = (
            (" " * (half - n) + "█" * n + "│" + " " * half)
            if value < 0
            else (" " * half + "│" + "█" * n + " " * (half - n))
        )
        out.append((f"{model} · {cluster}", value, bar))
    return out


def region_share_bars(records: list[dict[str, Any]], width: int = 40) -> list[tuple[str, list[tuple[str, float]]]]:
    """Per model (pooled over the selected topics, weighted equally): region -> share, for a stacked bar."""
    per_model: dict[str, dict[str, list[float]]] = {}
    for r in records:
        if r["metric"] == "region_share" and r.get("cluster") is None:  # topic level (clusters have their own)
            per_model.setdefault(r["model"], {}).setdefault(r["region"], []).append(r["value"])
    out = []
    for model, regions in sorted(per_model.items()):
        topics = max(len(v) for v in regions.values())
        out.append((model, [(region, sum(v) / topics) for region, v in sorted(regions.items())]))
    return out


MOSTLY_OUT = 0.5  # above this out-of-catalog share a divergence says more about the catalog than the persona


def _out_rates(records: list[dict[str, Any]]) -> dict[tuple, float]:
    return {
        (r["persona_category"], r["persona"], r["model"]): r["mean"]
        for r in records
        if r["metric"] == "out_of_catalog_rate" and r.get("mean") is not None
    }


def _out_note(rate: float | None) -> str:
    """'out 85% ⚠' beside a divergence: an all-out-of-catalog list diverges maximally
    whatever the persona, so the rate says whether the divergence means anything."""
    if rate is None:
        return ""
    return f" · out {rate:.0%}" + (" ⚠" if rate > MOSTLY_OUT else "")


def coldstart_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Rows: category: persona; columns: one per model, 'IOU / SERP / PRAG' divergence means
    and the share of the persona's items that are out of the catalog (⚠ above half)."""
    names = sorted({r["model"] for r in records})
    by = {(r["persona_category"], r["persona"], r["model"], r["metric"]): r for r in records}
    out = _out_rates(records)
    personas = sorted({(r["persona_category"], r["persona"]) for r in records if r["metric"].endswith("_divergence")})
    rows = []
    for category, persona in personas:
        row = [f"{category}: {persona}"]
        for model in names:
            cells = [by.get((category, persona, model, f"{m}_divergence")) for m in ("iou", "serp", "prag")]
            row.append(
                " / ".join(fmt(c["mean"], 2) if c else "-" for c in cells)
                + _out_note(out.get((category, persona, model)))
            )
        rows.append(row)
    return ["persona"] + names, rows


def value_bars(
    rows: list[tuple[str, float, float | None]], width: int = 30, scale: float | None = None
) -> list[tuple[str, str, str]]:
    """(label, bar, figures) for non-negative values: the bar is the mean, the figures
    'mean ± std'. One scale for all rows so bars compare (default: the largest mean)."""
    if not rows:
        return []
    scale = scale or max((abs(v) for _, v, _ in rows), default=1.0) or 1.0
    out = []
    for label, value, std in rows:
        cells = round(min(abs(value), scale) / scale * width)
        figures = fmt(value, 3) + (f" ± {fmt(std, 3)}" if std is not None else "")
        out.append((label, "█" * cells + "·" * (width - cells), figures))
    return out


COLDSTART_METRICS = ("iou", "serp", "prag")


def coldstart_bars(records: list[dict[str, Any]], metric: str = "iou") -> list[tuple[str, str, str]]:
    """Divergence from the neutral list per attribute x model, on the 0-1 scale (the
    attribute first: a narrow terminal cuts the label's end), with the out-of-catalog
    share beside each (⚠ when most items are out of the catalog)."""
    out = _out_rates(records)
    chosen = [
        r
        for r in sorted(records, key=lambda r: (r["model"], r["persona_category"], r["persona"]))
        if r["metric"] == f"{metric}_divergence" and r.get("mean") is not None
    ]
    bars = value_bars([(f"{r['persona']} · {r['model']}", r["mean"], r.get("std")) for r in chosen], scale=1.0)
    return [
        (label, bar, figures + _out_note(out.get((r["persona_category"], r["persona"], r["model"]))))
        for (label, bar, figures), r in zip(bars, chosen)
    ]


def _entity_condition(r: dict[str, Any]) -> str:
    return f"{r['model']} · {r['variant']}" + (f" · {r['language']}" if r["language"] != "english" else "")


def entity_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Rows: entities ranked by Delta in the first condition; columns: one per model x variant."""
    deltas = [r for r in records if r["metric"] == "entity_delta"]
    conditions = sorted({_entity_condition(r) for r in deltas})
    if not conditions:
        return ["entity"], []
    by = {(r["entity"], _entity_condition(r)): r["value"] for r in deltas}
    record = {(r["entity"], _entity_condition(r)): r for r in deltas}
    order = sorted({r["entity"] for r in deltas}, key=lambda e: -by.get((e, conditions[0]), float("-inf")))
    rows = [
        [str(rank), entity]
        + [f"{by[entity, c]:+.3f}{_ci(record[entity, c])}" if (entity, c) in by else "-" for c in conditions]
        for rank, entity in enumerate(order, start=1)
    ]
    return ["#", "entity"] + [f"Delta {c}" for c in conditions], rows


def entity_bars(records: list[dict[str, Any]], width: int = 30) -> list[tuple[str, float, str]]:
    """Diverging bars of Delta per entity (first condition), centred on 0."""
    deltas = [r for r in records if r["metric"] == "entity_delta"]
    if not deltas:
        return []
    first = sorted({_entity_condition(r) for r in deltas})[0]
    values = sorted(((r["entity"], r["value"]) for r in deltas if _entity_condition(r) == first), key=lambda x: -x[1])
    scale = max(abs(v) for _, v in values) or 1.0
    half = width // 2
    out = []
    for entity, value in values:
        n = round(abs(value) / scale * half)
        bar = (
            (" " * (half - n) + "█" * n + "│" + " " * half)
            if value < 0
            else (" " * half + "│" + "█" * n + " " * (half - n))
        )
        out.append((entity, value, bar))
    return out


def entity_group_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    rows = [
        [
            r["attribute"],
            r["value_label"] or "-",
            _entity_condition(r),
            f"{r['value']:+.3f}",
            str(r["n"]),
            fmt(r["p"], 3),
            fmt(r["d"], 2),
        ]
        for r in records
        if r["metric"] == "group_delta"
    ]
    return ["attribute", "group", "condition", "mean Delta", "n", "p (MWU)", "d"], rows


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
            cell = f"{fmt(share['value'], 3)}{_ci(share)}" if share else "-"
            if versus:
                cell += f" ({versus['difference']:+.3f}, p {fmt(versus['p'], 3)})"
            if (share or {}).get("no_signal"):
                cell += " no dialect in template"
            parsed, admits = (by.get((group, condition, model, m)) for m in ("parse_rate", "probe_admits_rate"))
            row += [cell, fmt(parsed["value"], 2) if parsed else "-", fmt(admits["value"], 2) if admits else "-"]
        rows.append(row)
    header = ["group · condition"]
    for model in names:
        header += [f"{model}: mean share", "parsed", "admits"]
    return header, rows


def to_markdown(title: str, header: list[str], rows: list[list[str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [f"### {title}", "", "| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def legend_symbols(names: list[str]) -> dict[str, str]:
    """A distinct one-character symbol per name, for charts that must read without colour:
    the first letter not taken yet from the name ("United States" U, "Unknown" n), else a
    digit or a mark."""
    taken: set[str] = set()
    out: dict[str, str] = {}
    spare = iter("123456789#*+%&@$")
    for name in names:
        symbol = next((c for c in name if c.isalnum() and c.upper() not in taken and c.lower() not in taken), None)
        if symbol is None:
            symbol = next(c for c in spare if c not in taken)
        taken.add(symbol)
        out[name] = symbol
    return out
