"""The Metrics screen: each method's section (tables with models side by side, charts),
the filters the methods declare, export. It knows no method: sections come from the registry."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static
from textual_plotext import PlotextPlot

from workbench import methods
from workbench.display.metric_views import Filter, Panel, in_view
from workbench.screens.metrics_evidence import CellEvidence
from workbench.store.errors import UserFacingError
from workbench.text.literal import visible, visible_line
from workbench.widgets.comparison import ComparisonPanel, Pair, PickModels, refusal
from workbench.widgets.forest_plot import PLOT_MIN_WIDTH, draw_forest, fits
from workbench.widgets.live import LiveStore
from workbench.widgets.modals import EditText
from workbench.widgets.modebar import ModeBar
from workbench.widgets.table_fit import fill_fitted


def _show(widget, visible: bool) -> None:
    if widget.display != visible:  # a needless change would lay the screen out again
        widget.display = visible


COMMANDS = [
    Binding("r", "recompute", "Recompute", tooltip="Recompute every metric from the store"),
    Binding("e", "export", "Export", tooltip="Write the tables as Markdown, the records as CSV and JSON (asks where)"),
    Binding("c", "compare", "Compare", tooltip="Two models of a study: B - A, paired over what both answered"),
    Binding("escape", "leave_compare", "Back", tooltip="Leave the comparison: every metric again"),
    Binding("enter", "evidence", "Evidence", tooltip="The answers behind the number under the cursor (Esc: back)"),
]


def method_filters() -> dict[str, Filter]:
    """The filters the registered methods declare, by name, each with a key of its own: a key
    already taken (r, e, or an earlier method's filter) stays with its first owner."""
    taken = {binding.key for binding in COMMANDS}
    filters: dict[str, Filter] = {}
    for name in methods.names():
        for f in methods.filters_of(methods.get(name)):
            if f.name not in filters and f.key not in taken:
                taken.add(f.key)
                filters[f.name] = f
    return filters


def metrics_screen() -> MetricsScreen:
    """The Metrics screen of the methods registered now, with a key for each of their filters.

    Keys are declared in a class's BINDINGS, and the methods are known only once the registry
    has loaded them (a plugin's, one registered in code), so the class is made here. Its
    bindings are all declared (`inherit_bindings=False`) to put the filters first: the footer
    lists keys in that order, and the filters are the keys a reader uses most."""
    filters = method_filters()
    keys = [
        Binding(f.key, f"cycle({f.name!r})", f.description, show=f.show, tooltip=f"Cycle the {f.name} filter")
        for f in filters.values()
    ]
    namespace = {"BINDINGS": [*keys, *Screen.BINDINGS, *COMMANDS]}
    keyed = type(MetricsScreen.__name__, (MetricsScreen,), namespace, inherit_bindings=False)
    return keyed(filters)


class MetricsScreen(CellEvidence, LiveStore, Screen):
    """Without filter keys when made directly: the app makes it with `metrics_screen()`."""

    BINDINGS = COMMANDS

    @dataclass
    class Computed(Message, bubble=False):
        """A worker computed every method's metric records."""

        by_method: dict[str, list[Any]]  # typed records (dicts for a plugin that gives them)
        empty_note: str = ""  # why there is nothing to show, when there is nothing

    @dataclass
    class Comparable(Message, bubble=False):
        """A worker read which models of each study a comparison can pick from."""

        choices: dict[str, list[str]]
        error: str = ""

    @dataclass
    class Compared(Message, bubble=False):
        """A worker compared two models of a study (`workbench compare`'s records)."""

        pair: Pair
        records: list[dict[str, Any]]
        error: str = ""

    def __init__(self, filters: dict[str, Filter] | None = None) -> None:
        super().__init__()
        self.by_method: dict[str, list[Any]] = {}
        self.empty_note = ""  # why there are no numbers (the worker reads it with them)
        self.filters = filters or {}  # by name; `check_action` offers those of the methods with numbers
        self.choices: dict[str, str] = {}
        self.computed = 0  # recomputations shown so far (tests and benchmarks wait on it)
        self.computing = False  # a recomputation is under way (the store is looked at again after it)
        self.comparing: Pair | None = None  # the comparison on view (c), None when every metric is
        self.comparing_busy = False  # its computation is under way
        self.compared = 0  # comparisons shown so far (tests wait on it)

    @property
    def records(self) -> list[Any]:
        return [r for records in self.by_method.values() for r in records]

    def compose(self) -> ComposeResult:
        yield ModeBar("metrics")
        yield Static(id="metrics-filters")
        yield VerticalScroll(id="metrics-body")
        yield ComparisonPanel(id="compare-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(ComparisonPanel).display = False
        # Whenever another connection commits (a review, a merge, a headless run, another
        # process's verdicts) the numbers on this screen may be stale: it reads them again.
        self.follow_store()
        self._show_filters("computing…")
        self.action_recompute()

    def store_busy(self) -> bool:
        return self.computing or self.comparing_busy

    def store_changed(self) -> None:
        """The store changed while shown (or before it was shown again): recompute, the old
        numbers dimmed until the new ones arrive."""
        self.query_one("#metrics-body").add_class("stale")
        self._show_filters("recomputing after changes…")
        self.action_recompute()

    def on_screen_resume(self) -> None:
        self.poll_store()

    def on_unmount(self) -> None:
        self.stop_following()

    def on_resize(self) -> None:
        if self.by_method:  # the tables' columns fitted to the new width
            self.refresh_tables()

    def _active_filters(self) -> list[Filter]:
        """The filters of the methods that have numbers to show."""
        active = {
            f.name for name, records in self.by_method.items() if records for f in methods.filters_of(methods.get(name))
        }
        return [f for f in self.filters.values() if f.name in active]

    def _options(self, f: Filter) -> list[str]:
        for name, records in self.by_method.items():
            if records and any(g.name == f.name for g in methods.filters_of(methods.get(name))):
                return f.options(records)
        return []

    def _show_filters(self, note: str = "") -> None:
        parts = [f"{f.name}: {self.choices.get(f.name, '-')} ({f.key})" for f in self._active_filters()]
        text = " " + " · ".join(parts + ([note] if note else []))
        self.query_one("#metrics-filters", Static).update(Text(visible(text), no_wrap=True, overflow="ellipsis"))

    def action_recompute(self) -> None:
        self.store_read_begins()
        self.computing = True
        self._compute()
        if self.comparing is not None:  # the comparison on view follows the store too
            self._start_compare()

    @work(thread=True, exclusive=True, group="metrics", description="Computing metrics")
    def _compute(self) -> None:
        from workbench.methods.hooks import no_numbers_lines
        from workbench.store.db import reading

        with reading(self.app.db_path) as conn:  # every table as one commit left it
            by_method = methods.metric_records_by_method(conn)
            empty = "" if any(by_method.values()) else " · ".join(no_numbers_lines(conn, None, str(self.app.db_path)))
        self.post_message(self.Computed(by_method, empty))

    def on_metrics_screen_computed(self, message: Computed) -> None:
        self.computing = False
        self.query_one("#metrics-body").remove_class("stale")
        self.computed += 1
        self.by_method = message.by_method
        self.empty_note = message.empty_note
        self.refresh_bindings()  # the filters on offer follow the methods with numbers
        for f in self._active_filters():
            options = self._options(f)
            if self.choices.get(f.name) not in options:
                self.choices[f.name] = options[0] if options else ""
        self.refresh_tables()

    def panels(self) -> list[Panel]:
        out: list[Panel] = []
        for name, records in self.by_method.items():
            try:
                out += methods.panels_of(methods.get(name), records, self.choices)
            except Exception as exc:  # a plugin's broken section must not take the screen down
                note = Text(visible_line(f"{name}: its metrics section failed: {exc.__class__.__name__}: {exc}"))
                out.append(Panel(f"{name}-failed", f"{name} (section failed)", chart=note, export=False))
        return out

    def refresh_tables(self) -> None:
        body = self.query_one("#metrics-body", VerticalScroll)
        shown: set[str] = set()
        for panel in self.panels():
            shown.add(panel.id)
            self._show_panel(body, panel)
        # Sections of a method whose numbers are gone (a study deleted, a filter emptied them).
        for widget in body.children:
            owner = (widget.id or "").removesuffix("-title").removesuffix("-plot")
            if owner not in shown and widget.display:
                widget.display = False
        total = len(self.records)
        self._show_filters(f"{total} numbers" if total else self.empty_note or "no numbers yet")

    def _can_plot(self) -> bool:
        """A real plot needs colour and room; otherwise the text chart (NO_COLOR, 80 columns)."""
        return not os.environ.get("NO_COLOR") and self.app.size.width >= PLOT_MIN_WIDTH

    def _show_panel(self, body: VerticalScroll, panel: Panel) -> None:
        """Fill a panel's widgets, mounting them the first time it appears; a title-less
        panel (a chart under its table) has no heading."""
        title_id = f"{panel.id}-title"
        if not body.query(f"#{panel.id}"):
            widgets = [Label(id=title_id, classes="section")] if panel.title else []
            widgets.append(
                DataTable(id=panel.id, show_cursor=False, cursor_type="cell", zebra_stripes=True)
                if panel.table is not None
                else Static(id=panel.id, classes="chart")
            )
            if panel.plot is not None:
                widgets.append(PlotextPlot(id=f"{panel.id}-plot", classes="forest"))
            body.mount(*widgets)
        if panel.title:
            title = body.query_one(f"#{title_id}", Label)
            title.update(Text(visible_line(panel.title)))
            _show(title, True)
        if panel.table is not None:
            self._fill(body.query_one(f"#{panel.id}", DataTable), *panel.table)
        else:
            body.query_one(f"#{panel.id}", Static).update(panel.chart or Text())
        plots = body.query(f"#{panel.id}-plot")
        plotted = panel.plot is not None and self._can_plot() and fits(panel.plot)
        if plotted:
            draw_forest(plots.first(PlotextPlot), panel.plot)
        for plot in plots:
            _show(plot, plotted)
        _show(body.query_one(f"#{panel.id}"), not plotted or panel.table is not None)

    def _fill(self, table: DataTable, header: list[str], rows: list[list[str]]) -> None:
        at = table.cursor_coordinate  # kept: Esc from a cell's evidence comes back to the same cell
        # Every model's column in the room there is, long cells wrapped at their words (widgets/table_fit.py).
        body = self.query_one("#metrics-body")
        room = (body.scrollable_content_region.width or self.app.size.width) - 2  # its scrollbar
        fill_fitted(table, header, rows, room, {str(getattr(r, "model", "")) for r in self.records})
        table.cursor_coordinate = at

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A filter's key shows (footer, palette) only where a method on view has that filter;
        Esc is the comparison's only while one is on view (else it is the app's)."""
        if action == "cycle":
            return bool(parameters) and parameters[0] in {f.name for f in self._active_filters()}
        if action == "leave_compare":
            return self.comparing is not None
        return True

    # -- a paired comparison of two models (c), computed in the background ------------

    def action_compare(self) -> None:
        """Read which models each study can compare (in the background), then ask for two."""
        self._read_comparable()

    @work(thread=True, exclusive=True, group="compare-models", description="Reading the models to compare")
    def _read_comparable(self) -> None:
        from workbench.analysis.compare import comparable_models, nothing_to_pair
        from workbench.store.db import reading

        try:
            with reading(self.app.db_path) as conn:
                # a store of studies whose methods pair nothing: that, not "no model has answers"
                self.post_message(self.Comparable(comparable_models(conn), nothing_to_pair(conn) or ""))
        except (UserFacingError, sqlite3.Error) as exc:
            self.post_message(self.Comparable({}, str(exc)))

    def on_metrics_screen_comparable(self, message: Comparable) -> None:
        why = message.error or refusal(message.choices)
        if why:
            self.notify(why, severity="warning")
        else:
            self.app.push_screen(PickModels(message.choices, self.comparing), self._picked)

    def _picked(self, pair: Pair | None) -> None:
        if pair is None:
            return
        self.comparing = pair
        _show(self.query_one("#metrics-body"), False)
        panel = self.query_one(ComparisonPanel)
        _show(panel, True)
        panel.focus()  # ↑/↓ and the page keys scroll it
        self.refresh_bindings()  # Esc leaves it
        self._start_compare()

    def _start_compare(self) -> None:
        self.store_read_begins()
        self.comparing_busy = True
        self.query_one(ComparisonPanel).pending(self.comparing)
        self._compare(self.comparing)

    @work(thread=True, exclusive=True, group="compare", description="Comparing two models")
    def _compare(self, pair: Pair) -> None:
        from workbench.analysis.compare import compare_study
        from workbench.store.db import reading

        try:
            with reading(self.app.db_path) as conn:  # every table as one commit left it
                records = compare_study(conn, *pair)
        except (UserFacingError, sqlite3.Error) as exc:  # a model removed meanwhile: said, in one line
            self.post_message(self.Compared(pair, [], str(exc)))
            return
        self.post_message(self.Compared(pair, records))

    def on_metrics_screen_compared(self, message: Compared) -> None:
        if message.pair != self.comparing:  # left, or another pair picked, meanwhile
            return
        self.comparing_busy = False
        self.query_one(ComparisonPanel).show(message.pair, message.records, message.error)
        self.compared += 1

    def action_leave_compare(self) -> None:
        self.comparing = None
        self.comparing_busy = False
        _show(self.query_one(ComparisonPanel), False)
        body = self.query_one("#metrics-body")
        _show(body, True)
        body.focus()
        self.refresh_bindings()

    def action_cycle(self, name: str) -> None:
        f = self.filters.get(name)
        options = self._options(f) if f else []
        if not options:
            return
        current = self.choices.get(name)
        self.choices[name] = options[(options.index(current) + 1) % len(options)] if current in options else options[0]
        self.refresh_tables()

    def action_export(self) -> None:
        """Ask where (proposed beside the database; any path), then write the tables on screen as
        Markdown headed by what they are (study, models, date, records, filters, review status),
        with every record as CSV and JSON beside it."""
        if not self.records:
            self.notify("Nothing to export yet.", severity="warning")
            return
        proposed = f"{Path(self.app.db_path).with_suffix('')}.metrics.md"
        prompt = "Write the metrics on screen to (Markdown; every record as .csv and .json beside it)"
        self.app.push_screen(EditText(prompt, proposed), self._export_to)

    def _export_to(self, target: str | None) -> None:
        if not target or not target.strip():
            return
        from workbench.files.safe_output import OutputRefused
        from workbench.report.document import TableBlock
        from workbench.transfer.export_on_screen import write_on_screen

        # The records the filters select, as the tables and the n/a note on screen show them.
        records = [
            r for name, found in self.by_method.items() for r in in_view(self._filters_of(name), found, self.choices)[0]
        ]
        filters = {f.name: str(self.choices.get(f.name)) for f in self._active_filters()}
        tables = [TableBlock(p.title, *p.table) for p in self.panels() if p.export and p.table]
        try:
            files = write_on_screen(self.app.db_path, target, records, tables, filters, len(self.records))
        except (OutputRefused, OSError, UserFacingError) as exc:
            self.notify(f"Export failed, nothing half-written: {exc}", severity="error")
            return
        shown = ", ".join(f"{k}: {v}" for k, v in filters.items())
        which = "all" if len(records) == len(self.records) else f"the filters' {len(records)} of"
        self.notify(
            f"Wrote the tables on screen to {files[0]}"
            + (f" ({shown})" if shown else "")
            + f"; {which} {len(self.records)} records to {files[1].name} and {files[2].name}"
        )

    def _filters_of(self, name: str) -> tuple[Filter, ...]:
        return methods.filters_of(methods.get(name))
