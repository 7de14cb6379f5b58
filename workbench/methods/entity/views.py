"""Label probabilities on the Metrics screen: entities ranked by Delta, group tests."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from workbench.display.metric_views import (
    Forest,
    Panel,
    adjusted_p,
    diverging_bars,
    diverging_chart,
    drop_constant_columns,
    estimate,
    units_note,
)
from workbench.methods.entity.records import (
    ConditionRecord,
    DeltaPearson,
    EntityDelta,
    EntityDeltaGlobal,
    EntityRecord,
    GroupDelta,
    MacroF1,
    PairedDelta,
)
from workbench.metrics.records import has, value_of
from workbench.text.numbers import fmt_num

FILTERS = ()


def _deltas(records: list[EntityRecord]) -> list[EntityDelta]:
    return [r for r in records if isinstance(r, EntityDelta)]


def _condition_of(records: list[EntityRecord]) -> Callable[[ConditionRecord], str]:
    """How a record's condition reads: model · variant, the language when not English,
    the scoring method when not exact (first-token scores approximate), and the study
    first when the records hold more than one (two studies must not share a column)."""
    several = len({r.study for r in _deltas(records)}) > 1

    def condition(r: ConditionRecord) -> str:
        parts = [r.study] if several else []
        parts += [r.model, r.variant]
        parts += [r.language] if r.language != "english" else []
        parts += [r.method] if r.method != "exact" else []
        return " · ".join(parts)

    return condition


def entity_table(records: list[EntityRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: entities ranked by Delta in the first condition; columns: one per model x variant."""
    deltas = _deltas(records)
    condition = _condition_of(records)
    conditions = sorted({condition(r) for r in deltas})
    if not conditions:
        return ["entity"], []
    by = {(r.entity, condition(r)): r.value for r in deltas}
    record = {(r.entity, condition(r)): r for r in deltas}

    def rank_key(entity: str) -> tuple[float, str]:
        # highest Delta first, n/a last; tied entities by name, so that a table (and the
        # report drawing it) reads the same in every process, whatever the hash seed
        value = by.get((entity, conditions[0]))
        return (-value if value is not None else float("inf"), entity)

    order = sorted({r.entity for r in deltas}, key=rank_key)
    rows = [
        [str(rank), entity] + [_delta_cell(record[entity, c]) if (entity, c) in by else "-" for c in conditions]
        for rank, entity in enumerate(order, start=1)
    ]
    return ["#", "entity"] + [f"Delta {c}" for c in conditions], rows


def _delta_cell(r: EntityDelta) -> str:
    """Delta with its interval and the templates it averages ("n 10, 2 flat": a flat template
    adds 0, its entities' scores being equal up to float rounding)."""
    flat = r.flat_templates or 0
    return f"{estimate(r.value, r, 3, signed=True)} (n {r.n}" + (f", {flat} flat)" if flat else ")")


def _flat_note(records: list[EntityRecord]) -> list[Panel]:
    """Where templates are flat, say how many and what it means, under the table."""
    condition, worst = _condition_of(records), {}
    for r in _deltas(records):
        if r.flat_templates:
            flat, n = worst.get(condition(r), (0, 0))
            worst[condition(r)] = (max(flat, r.flat_templates), max(n, r.n))
    if not worst:
        return []
    lines = [
        f"⚠ {name}: {flat} of {n} templates flat (the entities' label scores differ by float rounding "
        "only, or one entity): they add Delta = 0"
        for name, (flat, n) in sorted(worst.items())
    ]
    return [Panel("entity-flat-note", "", chart=Text("\n".join(lines), style="yellow"), export=False)]


def entity_bars(records: list[EntityRecord], width: int = 30) -> list[tuple[str, float, str]]:
    """Diverging bars of Delta per entity (first condition), centred on 0."""
    deltas = _deltas(records)
    if not deltas:
        return []
    condition = _condition_of(records)
    first = sorted({condition(r) for r in deltas})[0]
    values = sorted(((r.entity, r.value) for r in deltas if condition(r) == first), key=lambda x: -x[1])
    return diverging_bars(values, width)


def entity_group_table(records: list[EntityRecord]) -> tuple[list[str], list[list[str]]]:
    condition = _condition_of(records)
    rows = [
        [
            r.attribute,
            r.value_label or "-",
            fmt_num(r.value, 3, signed=True),
            str(r.n),
            fmt_num(r.p, 3) if r.p is not None or not has(r, "p_na_reason") else f"n/a ({r.p_na_reason})",
            fmt_num(value_of(r, "p_holm"), 3),  # the attribute's groups are one family
            fmt_num(r.d, 2),
            condition(r),  # last: the long text must not push the numbers off 80 columns
        ]
        for r in records
        if isinstance(r, GroupDelta)
    ]
    return ["attribute", "group", "mean Delta", "n", "p (MWU)", "Holm", "d", "condition"], rows


def entity_forest(records: list[EntityRecord]) -> Forest:
    """Delta per entity in the first condition, with its interval over templates."""
    deltas = _deltas(records)
    condition = _condition_of(records)
    first = sorted({condition(r) for r in deltas})[0] if deltas else None
    rows = sorted((r for r in deltas if condition(r) == first), key=lambda r: -r.value)
    return Forest(
        labels=[r.entity for r in rows],
        values=[r.value for r in rows],
        lows=[r.ci_low for r in rows],
        highs=[r.ci_high for r in rows],
        x_label=f"Delta ({first}); + = more desirable labels" if first else "",
    )


def tests_table(records: list[EntityRecord]) -> tuple[list[str], list[list[str]]]:
    """Per condition: how well the labels match the intended ones (macro-F1), and Delta
    compared between two conditions (Wilcoxon, paired d) or two studies (Pearson r)."""
    condition, rows = _condition_of(records), []
    for r in records:
        if isinstance(r, MacroF1):
            f1 = f"n/a ({r.na_reason})" if has(r, "na_reason") else fmt_num(r.value)
            rows.append([condition(r), "macro-F1", f"{f1} · {r.n} prompts"])
        elif isinstance(r, PairedDelta):
            test = f"{r.between} {r.condition_a} vs {r.condition_b} (Wilcoxon)"
            result = f"{adjusted_p(r)} · paired d {fmt_num(r.d)} · {r.n} entities"
            rows.append([condition(r), test, result])
        elif isinstance(r, DeltaPearson):
            test = f"Delta vs study {r.study_b} (Pearson)"
            r_cell = f"r n/a ({r.na_reason})" if has(r, "na_reason") else f"r {fmt_num(r.r)} · {adjusted_p(r)}"
            rows.append([condition(r), test, f"{r_cell} · {r.n} entities"])
    return ["condition", "test", "result"], rows


def panels(records: list[EntityRecord], choices: dict[str, str]) -> list[Panel]:
    records = [r for r in records if not isinstance(r, EntityDeltaGlobal)]
    forest = entity_forest(records)
    groups, constant = drop_constant_columns(*entity_group_table(records), {"condition"})
    return [
        Panel(
            "entity-table",
            "Label probabilities: entities ranked by Delta (standardised weighted label score; "
            f"+ = more desirable labels){units_note(records, (EntityDelta,))}",
            table=entity_table(records),
        ),
        *_flat_note(records),
        Panel(
            "entity-chart",
            "",
            chart=diverging_chart(entity_bars(records), 24),
            plot=forest if forest.supported().values else None,  # Deltas with an interval only
            export=False,
        ),
        Panel(
            "entity-groups",
            "Groups of entities: mean Delta vs the rest" + (f" ({constant})" if constant else ""),
            table=groups,
        ),
        Panel(
            "entity-tests",
            "Label probabilities: macro-F1 per condition; Delta compared between conditions and studies",
            table=tests_table(records),
        ),
    ]
