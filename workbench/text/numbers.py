"""How a number reads, wherever it is shown: the Metrics screen, its Markdown export,
`workbench metrics` and `workbench status` all format through `fmt_num`, so one value
never prints two ways."""

from __future__ import annotations

from typing import Any

# Below this a float is the rounding error of a computation (the divergence of two equal
# lists as 1.1e-16), not a value: it reads as 0.
NOISE = 1e-12


def fmt_num(value: Any, digits: int = 3, signed: bool = False) -> str:
    """A number with `digits` decimals; "n/a" for None. A value that small would read as
    zero (a p-value of 0.00004 as "0.000") keeps `digits` significant digits instead
    ("4e-05"): a tiny effect or p must not look like none; below `NOISE` it is 0. Anything
    else (an int, a label) as it is. `signed`: a + before positive values, for differences."""
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:+d}" if signed else str(value)
    if abs(value) < NOISE:
        value = 0.0  # also turns -0.0 into 0.0: no "-0.000"
    sign = "+" if signed else ""
    if value != 0 and abs(value) < 10**-digits:
        return f"{value:{sign}.{digits}g}"
    return f"{value:{sign}.{digits}f}"


def fmt_interval(record: dict[str, Any], digits: int = 2) -> str:
    """A record's bootstrap interval as "[low, high]", or "" when it has none."""
    low, high = record.get("ci_low"), record.get("ci_high")
    if low is None or high is None:
        return ""
    return f"[{_end(low, digits)}, {_end(high, digits)}]"


def _end(value: float, digits: int) -> str:
    """An interval's end at `digits` decimals; one nearer 0 than they show, yet not 0, as
    "<0.01" (or ">-0.01"): "[4.2e-12, 1.00]" read as a finding of its own, where the end is
    there for the interval's width."""
    if isinstance(value, float) and NOISE <= abs(value) < 10**-digits:
        return f"<{10**-digits:.{digits}f}" if value > 0 else f">-{10**-digits:.{digits}f}"
    return fmt_num(value, digits)


def with_interval(value: Any, record: dict[str, Any], digits: int = 2, signed: bool = False) -> str:
    """A headline number and its interval when the record has one: "0.42 [0.31, 0.55]"
    (the interval at 2 decimals whatever `digits`: it is there for its width)."""
    interval = fmt_interval(record) if value is not None else ""
    return f"{fmt_num(value, digits, signed)} {interval}".rstrip()
