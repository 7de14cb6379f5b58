"""Shaping metric records for display: panels, filters, bars, Markdown.

Each method turns its own records into `Panel`s (a titled table or chart) once: the
Metrics screen, its Markdown export and `workbench metrics` (`tables.print_panels`) all
show those. It declares the `Filter`s the screen cycles; the helpers here are what every
method shares (no Textual here: charts are Rich text). They read a record through
`metrics.records.value_of`, so a method's typed records and a plugin's dicts read alike.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from workbench.metrics.records import as_rows, has, value_of
from workbench.text.literal import visible_line
from workbench.text.numbers import fmt_num, with_interval

ALL = "all"

# Above this share of a list's items outside the catalog, a cold-start divergence says more about
# the catalog than the persona: its table row and the report's headline warn of it.
MOSTLY_OUT = 0.5

Table = tuple[list[str], list[list[str]]]


@dataclass(frozen=True)
class Filter:
    """A choice the Metrics screen cycles with one key, e.g. the topic."""

    name: str  # "topic": the key of the screen's choices
    key: str  # "t"
    description: str  # "Topic", in the footer and the palette
    options: Callable[[list[Any]], list[str]]  # the choices (from the method's records), first = default
    show: bool = True  # in the footer (the palette lists it either way)
    # Whether a record is among those an option other than "all" shows (the n/a note and the
    # export follow it); None: the filter picks a chart, not records (cold-start's divergence).
    selects: Callable[[Any, str], bool] | None = None


def in_view(filters: tuple[Filter, ...], records: list[Any], choices: dict[str, str]) -> tuple[list[Any], str]:
    """The records the filters as chosen select, and what they cover in words ("topic shoes,
    cluster Budget"; "" where every record is in view): the n/a note and the export say it."""
    chosen = [(f, choices[f.name]) for f in filters if f.selects and choices.get(f.name) not in (None, "", ALL)]
    kept = [r for r in records if all(f.selects(r, option) for f, option in chosen)]
    return kept, ", ".join(f"{f.name} {option}" for f, option in chosen)


@dataclass
class Forest:
    """Estimates with their intervals, one row each (a forest plot): the app draws it
    with plotext on a wide colour terminal, and as `forest_text` otherwise."""

    labels: list[str]
    values: list[float]
    lows: list[float | None]
    highs: list[float | None]
    x_label: str = ""
    reference: float | None = 0.0  # a vertical line: no effect

    def supported(self) -> Forest:
        """The rows with an estimate and both ends of its interval, finite: what a plot draws
        and takes its axis from. A row without an interval is n/a (its reason is in the table),
        and an estimate at the edge of what the data can say ("0.00 [-16.94, 16.94]") must not
        stretch the axis until every real interval is a dot (docs/methods.md, "Minimum support")."""
        keep = [
            i
            for i, (v, low, high) in enumerate(zip(self.values, self.lows, self.highs))
            if all(x is not None and math.isfinite(x) for x in (v, low, high))
        ]
        return Forest(
            labels=[self.labels[i] for i in keep],
            values=[self.values[i] for i in keep],
            lows=[self.lows[i] for i in keep],
            highs=[self.highs[i] for i in keep],
            x_label=self.x_label,
            reference=self.reference,
        )


@dataclass
class Bars:
    """Stacked horizontal bars (a report's SVG): one bar per label, one segment per part."""

    labels: list[str]
    parts: list[tuple[str, list[float]]]  # (part name, one value per label)


@dataclass
class Panel:
    """One titled section of a method's metrics: a table, or a chart as Rich text (and,
    where a real plot helps, a `Forest` the app may draw instead of the text)."""

    id: str  # stable: the screen reuses the widget across refreshes
    title: str
    table: Table | None = None
    chart: Text | None = None
    export: bool = True  # written to the Markdown export (charts are not)
    plot: Forest | None = None
    bars: Bars | None = None  # stacked bars a report draws instead of the text chart


def terminal_panels(
    filters: tuple[Filter, ...], records: list[Any], panels: Callable[[dict[str, str]], list[Panel]]
) -> list[Panel]:
    """A method's panels for a terminal, which cannot cycle filters: a filter that offers
    "all" is set to it; one that does not (cold-start's divergence) is run through every
    option, each panel drawn once (a table the filter leaves alone is not repeated)."""
    fixed = {f.name: ALL for f in filters if ALL in f.options(records)}
    cycled = [f for f in filters if f.name not in fixed]
    combinations: list[dict[str, str]] = [fixed]
    for f in cycled:
        combinations = [{**c, f.name: option} for c in combinations for option in f.options(records) or [""]]
    out: list[Panel] = []
    seen: set[tuple] = set()
    for choices in combinations:
        for panel in panels(choices):
            key = (panel.id, panel.title, repr(panel.table), panel.chart.plain if panel.chart is not None else None)
            if key not in seen:
                seen.add(key)
                out.append(panel)
    return out


def forest_text(forest: Forest, label_width: int = 28, width: int = 24) -> Text:
    """A forest plot in characters: the interval as ─, the estimate as ●, the reference
    (no effect) as │, on one scale for every row; the figures beside it. Only rows with an
    interval are drawn (`Forest.supported`), and the scale is theirs."""
    drawn = forest.supported()
    if forest.values and not drawn.values:
        return Text("(no estimate here has an interval to draw: the table gives each one's reason)")
    forest = drawn
    points = [v for v in forest.values] + [x for x in forest.lows + forest.highs if x is not None]
    if forest.reference is not None:
        points.append(forest.reference)
    if not forest.values:
        return Text("")
    lo, hi = min(points), max(points)
    span = (hi - lo) or 1.0

    def cell(x: float) -> int:
        return min(width - 1, max(0, round((x - lo) / span * (width - 1))))

    chart = Text(no_wrap=True, overflow="ellipsis")  # a wrapped row would read as two
    for label, value, low, high in zip(forest.labels, forest.values, forest.lows, forest.highs):
        row = [" "] * width
        if forest.reference is not None:
            row[cell(forest.reference)] = "│"
        if low is not None and high is not None:
            for i in range(cell(low), cell(high) + 1):
                row[i] = "─"
        row[cell(value)] = "●"
        interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
        chart.append(f"{visible_line(label)[:label_width]:<{label_width}} ")
        chart.append("".join(row), style="cyan")
        chart.append(f" {value:+.2f}{interval}\n")
    chart.append(f"{'':<{label_width}} {lo:<+{width // 2}.2f}{hi:>+{width - width // 2}.2f}", style="dim")
    if forest.x_label:
        chart.append(f"\n{'':<{label_width}} {forest.x_label}", style="dim")
    return chart


def estimate(value: Any, record: Any, digits: int = 2, signed: bool = False, why: bool = False) -> str:
    """A headline number with its interval. A bootstrap over one unit has nothing to resample:
    the number then stands alone (the caller shows its n beside it), or with `why` says so,
    "1.10 (interval n/a: 1 answer per cluster)", where the cell shows no count of those units."""
    interval = {"ci_low": value_of(record, "ci_low"), "ci_high": value_of(record, "ci_high")}
    text = with_interval(value, interval, digits, signed)
    reason = value_of(record, "ci_na_reason")
    return f"{text} (interval n/a: {reason})" if why and value is not None and reason else text


def units_note(records: list[Any], kinds: tuple[type, ...] = ()) -> str:
    """ " · 95% intervals: questions resampled (all repetitions of each together)": what the
    intervals of these records (of `kinds`, or all) resample, for a panel's title, so that
    every surface drawing the panel names the unit; "" when none has an interval."""
    from workbench.metrics.clustered import unit_label

    units = sorted(
        {value_of(r, "ci_unit") for r in records if (not kinds or isinstance(r, kinds)) and value_of(r, "ci_unit")}
    )
    if not units:
        return ""
    return " · 95% intervals: " + "; ".join(unit_label(unit) for unit in units)


def adjusted_p(record: Any, method: str = "Holm", digits: int = 3) -> str:
    """A test's p beside its family's adjusted one: "p 0.040, Holm 0.120"; "p n/a" when
    the test could not be run (with its reason when the record gives one)."""
    p = value_of(record, "p")
    if p is None:
        reason = value_of(record, "p_na_reason")
        return f"p n/a ({reason})" if reason else "p n/a"
    key = {"Holm": "p_holm", "BH": "p_bh"}[method]
    raw = f"p {fmt_num(p, digits)}"
    # A record outside any family of tests (a plugin's, a hand-made one) has no adjusted p.
    return f"{raw}, {method} {fmt_num(value_of(record, key), digits)}" if has(record, key) else raw


def generic_panels(title: str, name: str, records: list[Any]) -> list[Panel]:
    """A method that declares no panels of its own still shows its numbers: one table
    of every record's fields (dicts, or dataclass records as `as_rows` flattens them)."""
    if not records:
        return []
    records = as_rows(records)
    fields = list(dict.fromkeys(k for r in records for k in r if k != "convention"))
    rows = [[fmt_num(r.get(k)) for k in fields] for r in records]
    return [Panel(f"{name}-records", title, table=(fields, rows))]


def drop_constant_columns(header: list[str], rows: list[list[str]], names: set[str]) -> tuple[Table, str]:
    """Columns among `names` (labels such as the condition, never numbers) whose value is
    the same on every row move into a note ("condition: llama · zero_shot"), so the
    varying ones fit 80 columns."""
    if len(rows) < 2:
        return (header, rows), ""
    constant = [i for i, h in enumerate(header) if h in names and len({row[i] for row in rows}) == 1]
    note = " · ".join(f"{header[i]}: {rows[0][i]}" for i in constant)
    kept = [i for i in range(len(header)) if i not in constant]
    return ([header[i] for i in kept], [[row[i] for i in kept] for row in rows]), note


def short_labels(labels: list[str]) -> dict[str, str]:
    """Chart labels for models, short enough for 80 columns and still distinct:
    "openai:gpt-4o@https://api.openai.com/v1" -> "gpt-4o", a GGUF path -> its file name;
    where two would read alike, the host (or the whole label) tells them apart."""
    from urllib.parse import urlsplit

    from workbench.engines.registry import names as engine_names

    def name(label: str) -> str:
        engine, colon, rest = label.partition(":")
        served = rest.split("@")[0].split(",")[0]
        if not colon or engine not in engine_names() or not served or served == "default":
            return label  # an imported model name, or the bundled model: already short
        return served if "@" in rest else served.rsplit("/", 1)[-1]  # a served name, or a file's

    def with_host(label: str) -> str:
        urls = label.partition("@")[2].split(",")[0]
        hosts = "|".join(urlsplit(u).netloc for u in urls.split("|") if u)
        return f"{name(label)}@{hosts}" if hosts else label

    out: dict[str, str] = {}
    for shorten in (name, with_host, lambda label: label):
        for label in labels:
            if label not in out:
                out[label] = shorten(label)
        counts = Counter(out.values())
        out = {label: short for label, short in out.items() if counts[short] == 1}
        if len(out) == len(set(labels)):
            break
    return {label: out.get(label, label) for label in labels}


def models(records: list[Any]) -> list[str]:
    return sorted({value_of(r, "model") for r in records})


def diverging_bars(values: list[tuple[str, float]], width: int = 30) -> list[tuple[str, float, str]]:
    """(label, value, bar) with bars centred on 0, scaled to the largest magnitude."""
    if not values:
        return []
    scale = max(abs(v) for _, v in values) or 1.0
    half = width // 2
    out = []
    for label, value in values:
        n = round(abs(value) / scale * half)
        bar = (
            (" " * (half - n) + "█" * n + "│" + " " * half)
            if value < 0
            else (" " * half + "│" + "█" * n + " " * (half - n))
        )
        out.append((label, value, bar))
    return out


def diverging_chart(bars: list[tuple[str, float, str]], label_width: int, empty: str = "") -> Text:
    """Diverging bars as text: cyan to the right of 0, magenta to the left."""
    chart = Text()
    for label, value, bar in bars:
        chart.append(f"{visible_line(label)[:label_width]:<{label_width}} {value:+.2f} ")
        chart.append(bar + "\n", style="cyan" if value >= 0 else "magenta")
    return chart if bars else Text(empty)


def value_bars(
    rows: list[tuple[str, float, float | None]], width: int = 30, scale: float | None = None
) -> list[tuple[str, str, str]]:
    """(label, bar, figures) for non-negative values: the bar is the mean, the figures
    'mean ± std'. One scale for all rows so bars compare (default: the largest mean)."""
    if not rows:
        return []
    scale = scale or max((abs(v) for _, v, _ in rows), default=1.0) or 1.0
    out = []
    for label, value, std in rows:
        cells = round(min(abs(value), scale) / scale * width)
        figures = fmt_num(value, 3) + (f" ± {fmt_num(std, 3)}" if std is not None else "")
        out.append((label, "█" * cells + "·" * (width - cells), figures))
    return out


def to_markdown(title: str, header: list[str], rows: list[list[str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [f"### {title}", "", "| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def legend_symbols(names: list[str]) -> dict[str, str]:
    """A distinct one-character symbol per name, for charts that must read without colour:
    the first letter not taken yet from the name ("United States" U, "Unknown" n), else a
    digit or a mark."""
    taken: set[str] = set()
    out: dict[str, str] = {}
    spare = iter("123456789#*+%&@$")
    for name in names:
        symbol = next((c for c in name if c.isalnum() and c.upper() not in taken and c.lower() not in taken), None)
        if symbol is None:
            symbol = next(c for c in spare if c not in taken)
        taken.add(symbol)
        out[name] = symbol
    return out
