"""The Metrics screen: ChoiceEval tables with models side by side, filters, a chart, export."""

from __future__ import annotations

import json
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from workbench import methods
from workbench import metric_views as views
from workbench.literal import visible, visible_line
from workbench.widgets.modebar import ModeBar


class MetricsScreen(Screen):
    BINDINGS = [
        Binding("t", "next_topic", "Topic", tooltip="Cycle the topic filter"),
        Binding("k", "next_cluster", "Cluster", tooltip="Cycle the cluster filter (all = topic level)"),
        Binding("r", "recompute", "Recompute", tooltip="Recompute every metric from the store"),
        Binding("e", "export", "Export", tooltip="Write CSV, JSON and Markdown next to the database"),
        Binding(
            "m",
            "next_divergence",
            "Divergence",
            show=False,
            tooltip="Cold-start chart: IOU, SERP-MS or PRAG divergence",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict] = []
        self.coldstart: list[dict] = []
        self.identity: list[dict] = []
        self.entity: list[dict] = []
        self.topic = views.ALL
        self.cluster = views.ALL
        self.divergence = views.COLDSTART_METRICS[0]

    def compose(self) -> ComposeResult:
        yield ModeBar("metrics")
        yield Static(id="metrics-filters")
        with VerticalScroll(id="metrics-body"):
            yield Label(
                "Label probabilities: entities ranked by Delta (standardised weighted label score; "
                "+ = more desirable labels)",
                classes="section entity",
            )
            yield DataTable(id="entity-table", show_cursor=False, zebra_stripes=True, classes="entity")
            yield Static(id="entity-chart", classes="entity")
            yield Label("Groups of entities: mean Delta vs the rest", classes="section entity")
            yield DataTable(id="entity-groups", show_cursor=False, zebra_stripes=True, classes="entity")
            yield Label(
                "Identity disclosure: mean share of the user's group (difference vs baseline, p), "
                "share of answers parsed, probe admit rate",
                classes="section identity",
            )
            yield DataTable(id="identity-table", show_cursor=False, zebra_stripes=True, classes="identity")
            yield Label(
                "Cold-start: divergence from the neutral list (IOU / SERP / PRAG, mean over seeds)",
                classes="section coldstart",
            )
            yield DataTable(id="coldstart-table", show_cursor=False, zebra_stripes=True, classes="coldstart")
            yield Label(id="coldstart-chart-title", classes="section coldstart")
            yield Static(id="coldstart-chart", classes="coldstart")
            yield Label("Preferred entity (PEIR) · direct-recommendation rate", classes="section choice")
            yield DataTable(id="peir-table", show_cursor=False, zebra_stripes=True, classes="choice")
            yield Label("Geographic bias: log-odds ratio (mean over clusters, t-test p)", classes="section choice")
            yield DataTable(id="lor-table", show_cursor=False, zebra_stripes=True, classes="choice")
            yield Label("Stability across repetitions", classes="section choice")
            yield DataTable(id="stability-table", show_cursor=False, zebra_stripes=True, classes="choice")
            yield Label("Share of recommendation slots by region, per model", classes="section choice")
            yield Static(id="region-chart", classes="choice")
            yield Label("LOR US vs Europe per cluster (left: Europe, right: US)", classes="section choice")
            yield Static(id="lor-chart", classes="choice")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.store.db import connect

        # A connection of its own, kept open: its `PRAGMA data_version` changes whenever any
        # other connection (a review, a merge, a headless run) commits, which is exactly
        # when the numbers on this screen may be stale.
        self._watch = connect(self.app.db_path)
        self._seen = self._data_version()
        self._show_filters("computing…")
        self.action_recompute()

    def _data_version(self) -> int:
        from workbench.store.db import data_version

        return data_version(self._watch)

    def on_screen_resume(self) -> None:
        """Shown again (after a merge, a region, a verdict elsewhere): recompute if the store
        changed, the old numbers dimmed until the new ones arrive."""
        if not hasattr(self, "_watch"):
            return
        version = self._data_version()
        if version != self._seen:
            self._seen = version
            self.query_one("#metrics-body").add_class("stale")
            self._show_filters("recomputing after changes…")
            self.action_recompute()

    def on_unmount(self) -> None:
        if hasattr(self, "_watch"):
            self._watch.close()

    def _show_filters(self, note: str = "") -> None:
        text = f" topic: {self.topic} (t) · cluster: {self.cluster} (k)"
        self.query_one("#metrics-filters", Static).update(
            Text(visible(text + (f" · {note}" if note else "")), no_wrap=True, overflow="ellipsis")
        )

    @work(thread=True, exclusive=True, group="metrics", description="Computing metrics")
    def action_recompute(self) -> None:
        from workbench.store.db import opened

        with opened(self.app.db_path) as conn:
            records = methods.metric_records(conn)
        self.app.call_from_thread(self._loaded, records)

    def _loaded(self, records: list[dict]) -> None:
        self.query_one("#metrics-body").remove_class("stale")
        # Label-probability, cold-start and identity records have tables of their own.
        self.entity = [r for r in records if "task" in r]
        records = [r for r in records if "task" not in r and r["metric"] != "entity_delta_global"]
        self.coldstart = [r for r in records if "persona" in r]
        self.identity = [r for r in records if "condition" in r]
        records = [r for r in records if "persona" not in r and "condition" not in r]
        self.records = records
        topics, clusters = views.filter_options(records)
        if self.topic not in topics:
            self.topic = views.ALL
        if self.cluster not in clusters:
            self.cluster = views.ALL
        self.refresh_tables()

    def _show_coldstart(self) -> None:
        rows = views.coldstart_table(getattr(self, "coldstart", []))
        for widget in self.query(".coldstart"):
            widget.display = bool(rows[1])
        self._fill("#coldstart-table", *rows)
        self.query_one("#coldstart-chart-title", Label).update(
            f"Cold-start: {self.divergence.upper()} divergence per attribute (0 = the neutral list, 1 = nothing "
            "shared; mean ± population std over seeds; m: IOU / SERP / PRAG)"
        )
        chart = Text()
        for label, bar, figures in views.coldstart_bars(getattr(self, "coldstart", []), self.divergence):
            chart.append(f"{visible_line(label)[:30]:<30} ")
            chart.append(bar, style="cyan")
            chart.append(f" {figures}\n")
        self.query_one("#coldstart-chart", Static).update(chart)

    def _show_identity(self) -> None:
        rows = views.identity_table(getattr(self, "identity", []))
        for widget in self.query(".identity"):
            widget.display = bool(rows[1])
        self._fill("#identity-table", *rows)

    def _show_entity(self) -> None:
        records = getattr(self, "entity", [])
        rows = views.entity_table(records)
        for widget in self.query(".entity"):
            widget.display = bool(rows[1])
        self._fill("#entity-table", *rows)
        self._fill("#entity-groups", *views.entity_group_table(records))
        chart = Text()
        for entity, value, bar in views.entity_bars(records):
            chart.append(f"{visible_line(entity)[:24]:<24} {value:+.2f} ")
            chart.append(bar + "\n", style="cyan" if value >= 0 else "magenta")
        self.query_one("#entity-chart", Static).update(chart)

    def refresh_tables(self) -> None:
        self._show_entity()
        self._show_coldstart()
        self._show_identity()
        if not (
            self.records
            or getattr(self, "coldstart", [])
            or getattr(self, "identity", [])
            or getattr(self, "entity", [])
        ):
            self._show_filters("no ranked lists yet: run a study or `workbench import mentions`")
        else:
            total = sum(len(getattr(self, name, [])) for name in ("records", "coldstart", "identity", "entity"))
            self._show_filters(f"{total} numbers")
        # ChoiceEval tables only when there are ChoiceEval lists (or nothing at all yet).
        others = getattr(self, "coldstart", []) or getattr(self, "identity", []) or getattr(self, "entity", [])
        show = bool(self.records) or not others
        for widget in self.query(".choice"):
            if widget.display != show:  # a needless change would lay the screen out again
                widget.display = show
        shown = views.select(self.records, self.topic, self.cluster)
        self._fill("#peir-table", *views.peir_table(shown))
        self._fill("#lor-table", *views.lor_table(shown))
        self._fill("#stability-table", *views.stability_table(shown))
        topic_records = [r for r in self.records if self.topic == views.ALL or r.get("topic") == self.topic]
        bars = views.lor_bars(topic_records)
        chart = Text()
        for label, value, bar in bars[:40]:
            chart.append(f"{visible_line(label)[:28]:<28} {value:+.2f} ")
            chart.append(bar + "\n", style="cyan" if value >= 0 else "magenta")
        self.query_one("#lor-chart", Static).update(chart if bars else Text("(no per-cluster values yet)"))
        self.query_one("#region-chart", Static).update(self._region_chart(topic_records))

    def _region_chart(self, records: list[dict]) -> Text:
        styles = ["cyan", "magenta", "green", "yellow", "blue", "red", "white"]
        rows = views.region_share_bars(records)
        if not rows:
            return Text("(no ranked lists yet)")
        regions = sorted({region for _, shares in rows for region, _ in shares})
        colour = {region: styles[i % len(styles)] for i, region in enumerate(regions)}
        symbol = views.legend_symbols(regions)  # unique: "United States" and "Unknown" once shared a U
        chart = Text()
        width = 40
        for model, shares in rows:
            chart.append(f"{visible_line(model)[:28]:<28} ")
            for region, share in shares:
                # Letters as well as colours, so the chart reads without colour (NO_COLOR).
                cells = round(share * width)
                chart.append(symbol[region] * cells, style=colour[region])
            chart.append("\n")
        chart.append("  ".join(f"{symbol[r]} = {r}" for r in regions), style="dim")
        return chart

    def _fill(self, selector: str, header: list[str], rows: list[list[str]]) -> None:
        table = self.query_one(selector, DataTable)
        table.clear(columns=True)
        table.add_columns(*[Text(visible_line(h)) for h in header])
        table.add_rows([[Text(visible_line(c)) for c in row] for row in rows])

    def _cycle(self, options: list[str], current: str) -> str:
        return options[(options.index(current) + 1) % len(options)] if current in options else options[0]

    def action_next_topic(self) -> None:
        self.topic = self._cycle(views.filter_options(self.records)[0], self.topic)
        self.refresh_tables()

    def action_next_cluster(self) -> None:
        self.cluster = self._cycle(views.filter_options(self.records)[1], self.cluster)
        self.refresh_tables()

    def action_next_divergence(self) -> None:
        self.divergence = self._cycle(list(views.COLDSTART_METRICS), self.divergence)
        self._show_coldstart()

    def action_export(self) -> None:
        if not self.records:
            self.notify("Nothing to export yet.", severity="warning")
            return
        from workbench.exports import write_records
        from workbench.methods.choice.data import METRIC_FIELDS
        from workbench.safe_output import OutputRefused, atomic_text_file

        db = Path(self.app.db_path)
        base = db.with_suffix("")
        shown = views.select(self.records, self.topic, self.cluster)
        markdown = "".join(
            views.to_markdown(title, *table) + "\n"
            for title, table in (
                ("Preferred entity (PEIR)", views.peir_table(shown)),
                ("Geographic log-odds ratio", views.lor_table(shown)),
                ("Stability", views.stability_table(shown)),
            )
        )
        try:
            # Each file is written whole or not at all, and never over a database.
            with atomic_text_file(f"{base}.metrics.csv", db) as out:
                write_records(self.records, "csv", METRIC_FIELDS, out)
            with atomic_text_file(f"{base}.metrics.json", db) as out:
                out.write(json.dumps(self.records, indent=1))
            with atomic_text_file(f"{base}.metrics.md", db) as out:
                out.write(markdown)
        except (OutputRefused, OSError) as exc:
            self.notify(f"Export failed, nothing half-written: {exc}", severity="error")
            return
        self.notify(
            f"Exported all {len(self.records)} records to {base}.metrics.csv and .json; "
            f"{base}.metrics.md holds the tables on screen (topic: {self.topic}, cluster: {self.cluster})"
        )
