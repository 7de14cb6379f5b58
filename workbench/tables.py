"""Rich tables for the terminal: the number formats and table style every method's tables share."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from workbench.literal import literal_text

__all__ = ["Console", "Table", "fmt_ci", "fmt_interval", "fmt_num", "fmt_pair", "literal_text", "new_table"]

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


def fmt_eta(seconds: float | None) -> str:
    """Time left as m:ss, or h:mm:ss past an hour; "--:--" while unknown."""
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


def fmt_pair(a: str, b: str) -> str:
    return f"{REGION_SHORT.get(a, a)}/{REGION_SHORT.get(b, b)}"


def fmt_interval(record: dict[str, Any], digits: int = 2) -> str:
    """A record's bootstrap interval as "[low, high]", or "" when it has none."""
    low, high = record.get("ci_low"), record.get("ci_high")
    if low is None or high is None:
        return ""
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def fmt_ci(value: float | None, record: dict[str, Any], digits: int = 2) -> str:
    """A headline number with its interval, compactly: "0.42 [0.31, 0.55]"."""
    if value is None:
        return "n/a"
    interval = fmt_interval(record, digits)
    return f"{value:.{digits}f} {interval}" if interval else f"{value:.{digits}f}"
