"""Cold-start on the Metrics screen: divergences per persona with the out-of-catalog rate."""

from __future__ import annotations

from rich.text import Text

from workbench.display.metric_views import MOSTLY_OUT, Filter, Forest, Panel, short_labels, value_bars
from workbench.methods.coldstart.records import ColdstartRecord, Divergence, Fidelity, GroupShare
from workbench.metrics.records import has
from workbench.text.literal import visible_line
from workbench.text.numbers import fmt_num

COLDSTART_METRICS = ("iou", "serp", "prag")

FILTERS = (Filter("divergence", "m", "Divergence", lambda records: list(COLDSTART_METRICS), show=False),)


def _out_rates(records: list[ColdstartRecord]) -> dict[tuple, float]:
    return {
        (r.persona_category, r.persona, r.model): r.mean
        for r in records
        if isinstance(r, Fidelity) and r.metric == "out_of_catalog_rate" and r.mean is not None
    }


def _out_note(rate: float | None) -> str:
    """'out 85% ⚠' beside a divergence: an all-out-of-catalog list diverges maximally
    whatever the persona, so the rate says whether the divergence means anything."""
    if rate is None:
        return ""
    return f" · out {rate:.0%}" + (" ⚠" if rate > MOSTLY_OUT else "")


def _out_of_catalog_note(records: list[ColdstartRecord]) -> list[Panel]:
    """Why a ⚠ matters, under the table, where any persona's items are mostly out of the catalog."""
    rates = [rate for (category, _p, _m), rate in _out_rates(records).items() if category != "neutral"]
    if not any(rate > MOSTLY_OUT for rate in rates):  # the baseline's own has its note
        return []
    note = Text(
        "⚠ most of these items are out of the catalog: the divergence there says little about "
        "the persona (`workbench review` c corrects matches).",
        style="yellow",
    )
    return [Panel("coldstart-note", "", chart=note, export=False)]


def _parse_note(records: list[ColdstartRecord]) -> list[Panel]:
    """Answers that repeat themselves or talk around the list: how much of each persona's
    lines were repeats or named no item, counted apart from the items outside the catalog."""
    rates: dict[tuple, dict[str, float]] = {}
    for r in records:
        if isinstance(r, Fidelity) and r.metric in ("repeat_rate", "not_an_item_rate") and r.mean:
            rates.setdefault((r.model, r.persona), {})[r.metric] = r.mean
    if not rates:
        return []
    parts = [
        f"{persona} · {model}: "
        + ", ".join(
            f"{label} {found[metric]:.0%}"
            for metric, label in (("repeat_rate", "repeats"), ("not_an_item_rate", "lines naming no item"))
            if metric in found
        )
        for (model, persona), found in sorted(rates.items())
    ]
    note = Text("Parsing (counted apart from items out of the catalog): " + "; ".join(parts), style="dim")
    return [Panel("coldstart-parsing", "", chart=note, export=False)]


def _no_neutral_note(records: list[ColdstartRecord]) -> list[Panel]:
    """Where a neutral list names no catalog item, the divergences against it are n/a (or
    left out for those seeds): say so under the table, with what to do."""
    missing = sorted(
        {
            (r.model, r.seeds_without_neutral, r.mean is None)
            for r in records
            if isinstance(r, Divergence) and r.is_divergence and r.seeds_without_neutral
        }
    )
    if not missing:
        return []
    lines = [
        f"⚠ {model}: the neutral list names no catalog item in "
        + ("every seed: its divergences are n/a" if all_seeds else f"{seeds} seed(s): those seeds are left out")
        for model, seeds, all_seeds in dict.fromkeys(missing)
    ]
    lines.append("  (a persona's list compared with no neutral item would read as fully divergent; ")
    lines[-1] += "`workbench review` c corrects catalog matches)"
    return [Panel("coldstart-neutral-note", "", chart=Text("\n".join(lines), style="yellow"), export=False)]


def _divergence_cell(cells: list[Divergence | None]) -> str:
    """'IOU / SERP / PRAG' divergence means and the seeds behind them, or why they are n/a."""
    present = [c for c in cells if c]
    if present and all(c.mean is None for c in present):
        return f"n/a ({present[0].na_reason})" if present[0].na_reason else "n/a"
    means = " / ".join(fmt_num(c.mean, 2) if c else "-" for c in cells)
    seeds = present[0].n if present else None
    return means if seeds is None else f"{means} · {seeds} seed" + ("" if seeds == 1 else "s")


def coldstart_table(records: list[ColdstartRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: the neutral baseline, then category: persona; columns: one per model, 'IOU /
    SERP / PRAG' divergence means, the seeds they rest on and the share of the persona's
    items that are out of the catalog (⚠ above half)."""
    names = sorted({r.model for r in records})
    divergences = [r for r in records if isinstance(r, Divergence) and r.is_divergence]
    by = {(r.persona_category, r.persona, r.model, r.metric): r for r in divergences}
    out = _out_rates(records)
    personas = sorted({(r.persona_category, r.persona) for r in divergences})
    rows = []
    if any(category == "neutral" for category, _persona, _model in out):
        # The baseline every divergence is taken against: its own out-of-catalog share shows
        # a neutral answer that names nothing of the catalog.
        row = ["neutral (baseline)"]
        for model in names:
            rate = out.get(("neutral", "neutral", model))
            row.append(("baseline" + _out_note(rate)) if rate is not None else "-")
        rows.append(row)
    for category, persona in personas:
        row = [f"{category}: {persona}"]
        for model in names:
            cells = [by.get((category, persona, model, f"{m}_divergence")) for m in ("iou", "serp", "prag")]
            row.append(_divergence_cell(cells) + _out_note(out.get((category, persona, model))))
        rows.append(row)
    return ["persona"] + names, rows


def group_share_table(records: list[ColdstartRecord]) -> tuple[list[str], list[list[str]]]:
    """Rows: catalog attribute = value, then persona (the neutral user first); columns: one per
    model, the share of its recommended items carrying that value, mean ± std over seeds (n)."""
    shares = [r for r in records if isinstance(r, GroupShare)]
    names = sorted({r.model for r in shares})
    by = {(r.attribute, r.value_label, r.persona_category, r.persona, r.model): r for r in shares}
    keys = sorted(
        {(r.attribute, r.value_label, r.persona_category, r.persona) for r in shares},
        key=lambda k: (k[0], k[1], k[2] != "neutral", k[2], k[3]),
    )
    rows = []
    for attribute, value, category, persona in keys:
        row = [f"{attribute} = {value}", "neutral" if category == "neutral" else f"{category}: {persona}"]
        for model in names:
            r = by.get((attribute, value, category, persona, model))
            row.append(_share_cell(r) if r else "-")
        rows.append(row)
    return ["catalog value", "persona"] + names, rows


def _share_cell(r: GroupShare) -> str:
    """ "0.50 ± 0.10 (n 5)"; with one seed the std is n/a, and says why: "0.50 · std n/a (1 seed)"."""
    if has(r, "std_na_reason"):
        return f"{fmt_num(r.mean, 2)} · std n/a ({r.std_na_reason})"
    spread = f" ± {fmt_num(r.std, 2)}" if r.std is not None else ""
    return f"{fmt_num(r.mean, 2)}{spread} (n {r.n})"


def _divergences_of(records: list[ColdstartRecord], similarity: str) -> list[Divergence]:
    """One similarity's divergences that have a mean, by model and persona."""
    return [
        r
        for r in sorted(records, key=lambda r: (r.model, r.persona_category, r.persona))
        if isinstance(r, Divergence) and r.metric == f"{similarity}_divergence" and r.mean is not None
    ]


def coldstart_bars(records: list[ColdstartRecord], metric: str = "iou") -> list[tuple[str, str, str]]:
    """Divergence from the neutral list per attribute x model, on the 0-1 scale (the
    attribute first: a narrow terminal cuts the label's end), with the out-of-catalog
    share beside each (⚠ when most items are out of the catalog)."""
    out = _out_rates(records)
    chosen = _divergences_of(records, metric)
    short = short_labels([r.model for r in chosen])
    bars = value_bars([(f"{r.persona} · {short[r.model]}", r.mean, r.std) for r in chosen], scale=1.0)
    return [
        (label, bar, figures + _out_note(out.get((r.persona_category, r.persona, r.model))))
        for (label, bar, figures), r in zip(bars, chosen)
    ]


def _group_share_panel(records: list[ColdstartRecord]) -> list[Panel]:
    if not any(isinstance(r, GroupShare) for r in records):
        return []  # a catalog without attributes
    return [
        Panel(
            "coldstart-group-shares",
            "Cold-start: share of recommended items per catalog value (mean ± std over seeds, n seeds)",
            table=group_share_table(records),
        )
    ]


def _interval_note(records: list[ColdstartRecord]) -> str:
    """ " · their 95% intervals (JSON, CSV): seeds resampled": the table shows the means only."""
    from workbench.metrics.clustered import unit_label

    units = sorted({r.ci_unit for r in records if isinstance(r, Divergence) and isinstance(r.ci_unit, str)})
    return f" · their 95% intervals (JSON, CSV): {'; '.join(unit_label(u) for u in units)}" if units else ""


def panels(records: list[ColdstartRecord], choices: dict[str, str]) -> list[Panel]:
    divergence = choices.get("divergence", COLDSTART_METRICS[0])
    chosen = _divergences_of(records, divergence)
    # The plot draws mean ± std, and only where the std has support (2 seeds or more): a row
    # of one seed has no interval (workbench/metrics/support.py); a plot draws it only where no
    # row has one, as a dot with no whisker (the report's; the app's keeps its text chart).
    drawn = [r for r in chosen if r.mean is not None]
    short = short_labels([r.model for r in drawn])
    forest = Forest(
        labels=[f"{r.persona} · {short[r.model]}" for r in drawn],
        values=[r.mean for r in drawn],
        lows=[None if r.std is None else max(0.0, r.mean - r.std) for r in drawn],
        highs=[None if r.std is None else min(1.0, r.mean + r.std) for r in drawn],
        x_label=f"{divergence.upper()} divergence, mean ± std over seeds (0 = the neutral list)",
        reference=None,
    )
    chart = Text()
    for label, bar, figures in coldstart_bars(records, divergence):
        chart.append(f"{visible_line(label)[:30]:<30} ")
        chart.append(bar, style="cyan")
        chart.append(f" {figures}\n")
    if not chosen and any(r.metric == f"{divergence}_divergence" for r in records):
        chart.append("(every divergence is n/a: see the table)")
    return [
        Panel(
            "coldstart-table",
            "Cold-start: divergence from the neutral list (IOU / SERP / PRAG, mean over seeds)"
            + _interval_note(records),
            table=coldstart_table(records),
        ),
        *_no_neutral_note(records),
        *_group_share_panel(records),
        *_out_of_catalog_note(records),
        *_parse_note(records),
        Panel(
            "coldstart-chart",
            f"Cold-start: {divergence.upper()} divergence per attribute (0 = the neutral list, 1 = nothing "
            "shared; mean ± population std over seeds; m: IOU / SERP / PRAG)",
            chart=chart,
            plot=forest if drawn else None,
            export=False,
        ),
    ]
