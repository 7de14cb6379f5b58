"""The Metrics screen's Enter: the answers behind the number under the cursor.

A mixin of `MetricsScreen`, kept apart so the screen stays small: the cell's table (a method's
panel), its column's header and its row go to the core (`workbench.analysis.evidence.for_cell`), which
asks the panel's method which number the cell shows and reads its answers in a worker; the
`EvidenceScreen` shows them, and Esc comes back to the same cell (the screen keeps its cursor,
and `_fill` puts it back on the same cell after a recomputation)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from textual import events, work
from textual.geometry import Region
from textual.message import Message
from textual.widgets import DataTable

from workbench import methods
from workbench.store.errors import UserFacingError


class CellEvidence:
    """Enter on a cell of a Metrics table (the table's own Enter, or the screen's key)."""

    @dataclass
    class EvidenceRead(Message, bubble=False):
        """A worker read the answers behind a cell (or why there are none)."""

        found: list[Any]
        error: str = ""

    evidence_opened = 0  # evidence screens opened (tests wait on it)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # The cursor shows only in the table being read: the others stay as they print.
        if isinstance(event.widget, DataTable) and event.widget.id != "evidence-answers":
            event.widget.show_cursor = True

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if isinstance(event.widget, DataTable):
            event.widget.show_cursor = False

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        """The view follows the cursor: a table is as tall as its rows, so only the screen's body
        scrolls, and moving down a table below the fold left the cursor off screen (at 80x24, 4
        or 5 presses; Enter then opened a number nobody could see)."""
        table = event.data_table
        body = next((a for a in table.ancestors if getattr(a, "id", None) == "metrics-body"), None)
        if body is None or not table.has_focus or not table.region:
            return
        cell = table._get_cell_region(event.coordinate)  # noqa: SLF001 (the table's own cursor region)
        top = table.region.y - body.content_region.y + int(body.scroll_y) + cell.y - int(table.scroll_y)
        body.scroll_to_region(Region(0, top, 1, max(cell.height, 1)), animate=False, immediate=True)

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self._ask_evidence(event.data_table)

    def action_evidence(self) -> None:
        """Enter where no table has the focus: into the first table, to pick a cell."""
        if getattr(self, "comparing", None) is not None:  # the comparison's differences have no answers of their own
            self.notify("Esc leaves the comparison; Enter on a number of the tables then shows its answers.")
            return
        table = self.focused if isinstance(self.focused, DataTable) else None
        if table is not None:
            self._ask_evidence(table)
            return
        tables = [t for t in self.query("#metrics-body DataTable").results(DataTable) if t.display and t.row_count]
        if not tables:
            self.notify("No numbers on view yet.", severity="warning")
            return
        tables[0].focus()
        self.notify("Pick a number with the arrow keys, then Enter: the answers behind it.")

    def _owner(self, panel_id: str) -> str | None:
        """The method whose panel the table shows."""
        for name, records in self.by_method.items():
            if records and any(p.id == panel_id for p in methods.panels_of(methods.get(name), records, self.choices)):
                return name
        return None

    def _ask_evidence(self, table: DataTable) -> None:
        method = self._owner(table.id or "")
        if method is None or not table.row_count:
            self.notify("This table has no answers behind its numbers.", severity="warning")
            return
        row, column = table.cursor_coordinate
        header = [str(c.label) for c in table.columns.values()]
        cells = [str(c) for c in table.get_row_at(row)]
        self._read_evidence(method, table.id, header, cells, column, dict(self.choices))

    @work(thread=True, exclusive=True, group="evidence", description="Reading the answers behind a number")
    def _read_evidence(self, method: str, panel: str, header: list, row: list, column: int, choices: dict) -> None:
        from workbench.analysis.evidence import for_cell
        from workbench.store.db import reading

        try:
            with reading(self.app.db_path) as conn:
                found = for_cell(conn, method, panel, header, row, column, choices)
        except (UserFacingError, sqlite3.Error) as exc:
            self.post_message(self.EvidenceRead([], str(exc)))
            return
        self.post_message(self.EvidenceRead(found))

    def on_cell_evidence_evidence_read(self, message: EvidenceRead) -> None:
        if message.error or not message.found:
            self.notify(message.error or "No answers behind this number.", severity="warning")
            return
        from workbench.screens.evidence import EvidenceScreen

        self.evidence_opened += 1
        self.app.push_screen(EvidenceScreen(message.found))
