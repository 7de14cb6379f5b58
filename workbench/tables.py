"""Rich tables for the terminal: the number formats and table style every method's tables share."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from workbench.literal import literal_text

__all__ = ["Console", "Table", "fmt_num", "fmt_pair", "literal_text", "new_table"]

REGION_SHORT = {"United States": "US", "Europe": "EU"}


def new_table(title: str, **kwargs: Any) -> Table:
    # Light borders leave room for the numbers in an 80-column terminal.
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, **kwargs)


def fmt_num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:.{digits}f}"
    return str(value)


def fmt_pair(a: str, b: str) -> str:
    return f"{REGION_SHORT.get(a, a)}/{REGION_SHORT.get(b, b)}"
