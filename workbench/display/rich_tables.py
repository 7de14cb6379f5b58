"""Rich output for the terminal: the table style every command shares, and the drawing of
metric `Panel`s, the same sections the Metrics screen shows, for `workbench metrics`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table

from workbench.text.literal import literal_line, literal_text

if TYPE_CHECKING:
    from workbench.display.metric_views import Panel

__all__ = ["Console", "Table", "fmt_eta", "literal_text", "new_table", "print_panels"]

# A cell that is one number ("0.42", "-3", "4e-05", "n/a"): a column of them is
# right-aligned, so that the figures line up.
_NUMERIC = re.compile(r"[-+]?\d[\d.]*(e[-+]?\d+)?%?|n/a|-")


def new_table(title: str, **kwargs: Any) -> Table:
    # Light borders leave room for the numbers in an 80-column terminal.
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, **kwargs)


def fmt_eta(seconds: float | None) -> str:
    """Time left as m:ss, or h:mm:ss past an hour; "--:--" while unknown."""
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


def panel_table(header: list[str], rows: list[list[str]]) -> Table:
    """A panel's table as a Rich table. Every header and cell is literal: a model's name
    or answer may hold Rich markup (`[bold]`, `[/x]`), which must print as written."""
    table = Table(box=box.SIMPLE_HEAD)
    for i, column in enumerate(header):
        cells = [row[i] for row in rows if i < len(row) and row[i]]
        numeric = bool(cells) and all(_NUMERIC.fullmatch(c) for c in cells)
        table.add_column(literal_line(column), justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*(literal_line(cell) for cell in row))
    return table


def print_panels(panels: Iterable[Panel], console: Console) -> None:
    """Draw metric panels in a terminal: a table under its title, or a chart (Rich text,
    already literal) under its title; the same panels the Metrics screen shows."""
    for panel in panels:
        header, rows = panel.table or ([], [])
        if panel.table is not None and not header:
            continue
        # The title on a line of its own: as a table's title it would wrap to the table's width.
        if panel.title:
            console.print(literal_line(panel.title), style="bold")
        if panel.table is not None:
            console.print(panel_table(header, rows))
        else:
            console.print(panel.chart or "")
            console.print()
