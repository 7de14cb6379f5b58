"""Label probabilities on the Metrics screen: entities ranked by Delta, group tests."""

from __future__ import annotations

from typing import Any

from workbench.metric_views import Forest, Panel, ci_suffix, diverging_bars, diverging_chart, drop_constant_columns, fmt

FILTERS = ()


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
        + [f"{by[entity, c]:+.3f}{ci_suffix(record[entity, c])}" if (entity, c) in by else "-" for c in conditions]
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
    return diverging_bars(values, width)


def entity_group_table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    rows = [
        [
            r["attribute"],
            r["value_label"] or "-",
            f"{r['value']:+.3f}",
            str(r["n"]),
            fmt(r["p"], 3),
            fmt(r["d"], 2),
            _entity_condition(r),  # last: the long text must not push the numbers off 80 columns
        ]
        for r in records
        if r["metric"] == "group_delta"
    ]
    return ["attribute", "group", "mean Delta", "n", "p (MWU)", "d", "condition"], rows


def entity_forest(records: list[dict[str, Any]]) -> Forest:
    """Delta per entity in the first condition, with its interval over templates."""
    deltas = [r for r in records if r["metric"] == "entity_delta"]
    first = sorted({_entity_condition(r) for r in deltas})[0] if deltas else None
    rows = sorted((r for r in deltas if _entity_condition(r) == first), key=lambda r: -r["value"])
    return Forest(
        labels=[r["entity"] for r in rows],
        values=[r["value"] for r in rows],
        lows=[r.get("ci_low") for r in rows],
        highs=[r.get("ci_high") for r in rows],
        x_label=f"Delta ({first}); + = more desirable labels" if first else "",
    )


def panels(records: list[dict[str, Any]], choices: dict[str, str]) -> list[Panel]:
    records = [r for r in records if r["metric"] != "entity_delta_global"]
    forest = entity_forest(records)
    groups, constant = drop_constant_columns(*entity_group_table(records), {"condition"})
    return [
        Panel(
            "entity-table",
            "Label probabilities: entities ranked by Delta (standardised weighted label score; "
            "+ = more desirable labels)",
            table=entity_table(records),
        ),
        Panel(
            "entity-chart",
            "",
            chart=diverging_chart(entity_bars(records), 24),
            plot=forest if forest.values else None,
            export=False,
        ),
        Panel(
            "entity-groups",
            "Groups of entities: mean Delta vs the rest" + (f" ({constant})" if constant else ""),
            table=groups,
        ),
    ]
