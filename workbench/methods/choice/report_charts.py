"""ChoiceEval's report: the Metrics screen's panels, its two character charts drawn instead as
one SVG per topic. The region shares: a stacked bar per cluster (and model), one segment per
region, in percent of the cluster's recommendation slots, with a legend. The log-odds per
cluster: a forest plot of each cluster's log-odds (United States vs Europe, as the screen's
chart), cluster names whole. Topics are never mixed in one chart: a bar over several topics
was their mean, which no table gives."""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

from rich.text import Text

from workbench.display.metric_views import Bars, Forest, Panel, short_labels, terminal_panels
from workbench.methods.choice.records import LorCluster, RegionShare
from workbench.methods.choice.views import no_lor_text
from workbench.methods.registry import filters_of, panels_of


def report_panels(method: Any, conn: sqlite3.Connection, study: str, records: list[Any]) -> list[Panel]:
    panels = terminal_panels(filters_of(method), records, lambda choices: panels_of(method, records, choices))
    out: list[Panel] = []
    for panel in panels:
        if panel.id == "region-chart":
            out += region_panels(records) or [dataclasses.replace(panel, title="")]  # why there are none
        elif panel.id == "lor-chart":
            out += lor_cluster_panels(records) or [dataclasses.replace(panel, title="", table=None)]
        else:
            out.append(panel)
    return out


def _topics(records: list[Any], kind: type) -> list[str]:
    return sorted({r.topic for r in records if isinstance(r, kind) and r.topic})


def _row_label(cluster: str, model: str, short: dict[str, str], models: int) -> str:
    return f"{cluster} · {short[model]}" if models > 1 else cluster


def region_panels(records: list[Any]) -> list[Panel]:
    """Per topic: a bar per cluster and model, its regions' shares of the slots in percent."""
    out = []
    for topic in _topics(records, RegionShare):
        shares = [r for r in records if isinstance(r, RegionShare) and r.topic == topic and r.cluster]
        rows = sorted({(r.cluster, r.model) for r in shares})
        regions = sorted({r.region for r in shares})
        if not rows:
            continue
        value = {(r.cluster, r.model, r.region): r.value for r in shares}
        models = sorted({m for _, m in rows})
        short = short_labels(models)
        bars = Bars(
            [_row_label(c, m, short, len(models)) for c, m in rows],
            [(region, [round(100 * value.get((c, m, region), 0.0)) for c, m in rows]) for region in regions],
        )
        title = f"Share of recommendation slots by region, per cluster (%) · topic {topic}"
        out.append(Panel(f"region-chart-{topic}", title, bars=bars, export=False))
    return out


def lor_cluster_panels(records: list[Any]) -> list[Panel]:
    """Per topic: each cluster's log-odds, United States vs Europe, a dot per cluster and model
    (a cluster's log-odds has no interval: the topic's mean has, in the forest above)."""
    out = []
    for topic in _topics(records, LorCluster):
        found = sorted(
            (r for r in records if isinstance(r, LorCluster) and r.topic == topic and r.region_b == "Europe"),
            key=lambda r: (r.cluster, r.model),
        )
        drawn = [r for r in found if r.value is not None]
        title = (
            f"Log-odds ratio per cluster, United States vs Europe (no interval: one cluster's slots) · topic {topic}"
        )
        if not drawn:
            if found:
                why = no_lor_text(found, LorCluster, "Europe")
                out.append(Panel(f"lor-chart-{topic}", "", chart=Text(f"Topic {topic}, per cluster: {why}")))
            continue
        models = sorted({r.model for r in drawn})
        short = short_labels(models)
        forest = Forest(
            labels=[_row_label(r.cluster, r.model, short, len(models)) for r in drawn],
            values=[r.value for r in drawn],
            lows=[None] * len(drawn),
            highs=[None] * len(drawn),
            x_label="log-odds ratio (< 0: Europe, > 0: the United States)",
        )
        out.append(Panel(f"lor-chart-{topic}", title, plot=forest, export=False))
    return out
