"""Each method's findings in a report: its own `report_sections` hook, or by default the
panels `workbench metrics` draws in a terminal, turned into report blocks.

The optional hook is `report_sections(conn, study, records)` returning a list of
`metric_views.Panel` (as `metric_panels` does): a method whose report should differ from
its terminal tables (fewer tables, a chart only the report has) gives its own. A panel's
table becomes a table, its `plot` (a `Forest`) an SVG forest plot, and a chart without a
plot the characters the terminal draws."""

from __future__ import annotations

import math
import sqlite3
from typing import Any

from workbench.display.metric_views import Forest, Panel, terminal_panels
from workbench.methods.registry import Method, filters_of, panels_of
from workbench.report.document import BarsBlock, Block, Paragraph, PlotBlock, Preformatted, Section, TableBlock


def default_report_sections(method: Method, records: list[Any]) -> list[Panel]:
    """The method's panels as the terminal draws them: every filter that offers "all" at
    "all", the others run through each option (so nothing a screen would cycle is left out)."""
    return terminal_panels(filters_of(method), records, lambda choices: panels_of(method, records, choices))


def report_panels(method: Method, conn: sqlite3.Connection, study: str, records: list[Any]) -> list[Panel]:
    own = getattr(method, "report_sections", None)
    if own is not None:
        return list(own(conn, study, records))
    return default_report_sections(method, records)


def panel_blocks(panel: Panel) -> list[Block]:
    """A panel as report blocks: a plot or bars win over its character chart (the same numbers);
    a panel of text alone (no title: a method's note under a table) is sentences."""
    blocks: list[Block] = []
    if panel.table is not None:
        header, rows = panel.table
        blocks.append(TableBlock(panel.title, list(header), [list(row) for row in rows]))
    drawn = _drawn(panel.plot) if panel.plot is not None else None
    if drawn is not None and drawn.values:
        blocks.append(PlotBlock(panel.title or drawn.x_label or "Estimates with their intervals", drawn))
    elif panel.bars is not None and panel.bars.labels:
        blocks.append(BarsBlock(panel.title, panel.bars.labels, panel.bars.parts))
    elif panel.chart is not None and panel.chart.plain.strip() and not panel.title and panel.table is None:
        blocks += [Paragraph(line.strip()) for line in panel.chart.plain.splitlines() if line.strip()]
    elif panel.chart is not None and panel.chart.plain.strip():
        blocks.append(Preformatted(panel.title, panel.chart.plain.rstrip("\n")))
    return blocks


def _drawn(plot: Forest) -> Forest:
    """The rows with an interval; where no row has one (a cluster's log-odds, one seed), every
    estimate as a dot with no whisker: the figures beside it say there is no interval."""
    supported = plot.supported()
    if supported.values:
        return supported
    keep = [i for i, v in enumerate(plot.values) if v is not None and math.isfinite(v)]
    return Forest(
        [plot.labels[i] for i in keep],
        [plot.values[i] for i in keep],
        [None] * len(keep),
        [None] * len(keep),
        plot.x_label,
        plot.reference,
    )


def method_section(method: Method, conn: sqlite3.Connection, study: str, records: list[Any]) -> Section:
    """One method's findings, headed by what the method is."""
    blocks = [block for panel in report_panels(method, conn, study, records) for block in panel_blocks(panel)]
    title = f"{method.name}: {method.summary}" if method.summary else method.name
    return Section(f"findings-{_anchor(method.name)}", title, blocks, level=3)


def _anchor(name: str) -> str:
    return "".join(c if c.isalnum() and c.isascii() else "-" for c in name.lower()) or "method"
