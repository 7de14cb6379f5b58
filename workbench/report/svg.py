"""Charts as inline SVG, written by hand: a forest plot and stacked horizontal bars.

Small on purpose: no plotting library, no script, no font or file fetched; the figures are
beside the marks (through `fmt_num`), so a chart printed in black and white still reads.
Every label is escaped and its control characters written out (`literal.visible_line`):
an entity name may hold markup. A label is never cut: it wraps onto as many lines as it
needs in a column sized to the labels (a row grows with its lines), and each row carries
its whole label as a tooltip. The forest plot's reference line is labelled."""

from __future__ import annotations

import math
import unicodedata
from html import escape

from workbench.display.metric_views import Forest
from workbench.text.literal import visible_line
from workbench.text.numbers import fmt_num

WIDTH = 720
LABEL_MIN, LABEL_MAX = 120, 300  # the labels' column, sized to the longest line within these
FIGURES_W = 170  # the estimate and interval, right of the plot (wider where they need it)
FIGURES_MAX = 260
LINE_H = 14  # one line of a label
ROW_PAD = 6
TOP = 12
PART_COLOURS = ("#2e7d4f", "#b23b3b", "#c99a1e", "#4a6fa5", "#7b5ea7", "#6b6b6b", "#a0522d")


def _text(value: str) -> str:
    return escape(visible_line(value), quote=True)


def text_width(text: str) -> float:
    """The width of `text` at 12px in pixels, estimated generously (DejaVu Sans, the widest of the
    usual default sans-serif fonts): what sizes the label column and where a label wraps."""
    return sum(_char_width(c) for c in text)


def _char_width(c: str) -> float:
    if unicodedata.east_asian_width(c) in ("W", "F"):
        return 12.5
    if c in "il.,:;|!'`":
        return 3.8
    if c in "fjrt()[]{} ":
        return 5.0
    if c in "mwMW%@":
        return 12.0
    if c.isupper() or c.isdigit() or not c.isascii():
        return 9.0
    return 7.6


def wrap(label: str, width: float) -> list[str]:
    """A label as lines no wider than `width` pixels, broken between words; a word wider than a
    line is broken where the line ends (a URL, a hash), never dropped."""
    lines: list[str] = []
    line = ""
    for word in visible_line(label).split(" "):
        while text_width(word) > width:
            if line:
                lines.append(line)
                line = ""
            cut = max(1, max(i for i in range(1, len(word) + 1) if text_width(word[:i]) <= width or i == 1))
            lines.append(word[:cut])
            word = word[cut:]
        candidate = f"{line} {word}" if line else word
        if text_width(candidate) <= width:
            line = candidate
        else:
            lines.append(line)
            line = word
    return [*lines, line] if line or not lines else lines


def _label_column(labels: list[str]) -> tuple[int, float]:
    """(the column's width, the width a label's line may take): as wide as the widest label,
    within bounds; a label wraps onto more lines past the bound."""
    widest = max((text_width(visible_line(label)) for label in labels), default=0)
    width = int(min(LABEL_MAX, max(LABEL_MIN, math.ceil(widest) + 16)))
    return width, width - 16


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _open(height: float, title: str) -> list[str]:
    return [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="{WIDTH}" height="{height:.0f}" font-family="sans-serif" font-size="12">',
        f"<title>{_text(title)}</title>",
    ]


def _label(lines: list[str], x: float, middle: float, anchor: str = "end", kind: str = "label") -> str:
    """A text of one or more lines, centred on `middle`: a label (right-aligned) or figures."""
    first = middle + 4 - (len(lines) - 1) * LINE_H / 2
    spans = "".join(
        f'<tspan x="{x:.1f}" y="{first + i * LINE_H:.1f}">{escape(line)}</tspan>' for i, line in enumerate(lines)
    )
    return f'<text text-anchor="{anchor}" class="{kind}">{spans}</text>'


def _rows(labels: list[str], chars: float, top: float, beside: list[list[str]]) -> list[tuple[list[str], float, float]]:
    """Each row's label lines, its top and its height (as many lines as its label or the
    figures `beside` it take)."""
    out, y = [], top
    for label, figures in zip(labels, beside):
        lines = wrap(label, chars)
        height = max(20, max(len(lines), len(figures)) * LINE_H + ROW_PAD)
        out.append((lines, y, height))
        y += height
    return out


def forest_svg(forest: Forest, title: str = "") -> str:
    """Each row: its label, a whisker from its interval's low to high (where it has one), a dot
    at the estimate, and the figures; one scale for all rows, a dashed line at the reference
    (no effect), labelled with its value."""
    rows = [
        (label, value, low, high)
        for label, value, low, high in zip(forest.labels, forest.values, forest.lows, forest.highs)
        if _finite(value)
    ]
    points = [v for _, v, lo, hi in rows for v in (v, lo, hi) if _finite(v)]
    if _finite(forest.reference):
        points.append(forest.reference)
    lo, hi = (min(points), max(points)) if points else (0.0, 1.0)
    pad = (hi - lo) * 0.05 or 0.5
    lo, hi = lo - pad, hi + pad
    label_w, chars = _label_column([r[0] for r in rows])
    shown = [_figures(value, low, high) for _, value, low, high in rows]
    left, right = label_w, WIDTH - _figures_width(shown)
    beside = [wrap(f, WIDTH - right - 12) for f in shown]  # the widest wrap onto a second line

    def x(value: float) -> float:
        return left + (value - lo) / (hi - lo) * (right - left)

    top = TOP + 14  # room for the reference line's label
    laid = _rows([r[0] for r in rows], chars, top, beside)
    bottom = laid[-1][1] + laid[-1][2] if laid else top
    axis = wrap(forest.x_label, WIDTH - 16) if forest.x_label else []  # a long caption wraps
    out = _open(bottom + 46 + max(0, len(axis) - 1) * LINE_H, title or forest.x_label or "forest plot")
    if _finite(forest.reference):
        ref = x(forest.reference)
        out.append(
            f'<line x1="{ref:.1f}" y1="{top - 4}" x2="{ref:.1f}" y2="{bottom + 4}" stroke="#777" '
            'stroke-dasharray="4 3" class="reference"/>'
        )
        out.append(
            f'<text x="{ref:.1f}" y="{top - 8}" text-anchor="middle" fill="#555" class="reference-label">'
            f"{forest.reference:g} (no effect)</text>"
        )
    for (label, value, low, high), (lines, y0, height), figures in zip(rows, laid, beside):
        y = y0 + height / 2
        out.append(f'<g class="row"><title>{_text(label)}</title>')
        out.append(_label(lines, left - 8, y))
        if _finite(low) and _finite(high):
            x1, x2 = x(low), x(high)
            out.append(f'<line x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" stroke="#333" class="whisker"/>')
            for end in (x1, x2):
                out.append(f'<line x1="{end:.1f}" y1="{y - 4:.1f}" x2="{end:.1f}" y2="{y + 4:.1f}" stroke="#333"/>')
        out.append(f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="4" fill="#1f5fa8" class="estimate"/>')
        out.append(_label(figures, right + 8, y, "start", "figures") + "</g>")
    out.append(f'<line x1="{left}" y1="{bottom + 6}" x2="{right}" y2="{bottom + 6}" stroke="#333"/>')
    for tick in (lo + pad, hi - pad):
        out.append(f'<text x="{x(tick):.1f}" y="{bottom + 20}" text-anchor="middle">{escape(fmt_num(tick, 2))}</text>')
    for i, line in enumerate(axis):  # under the axis, centred on the chart
        out.append(
            f'<text x="{WIDTH / 2:.1f}" y="{bottom + 38 + i * LINE_H}" text-anchor="middle" '
            f'font-style="italic">{escape(line)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def bars_svg(labels: list[str], parts: list[tuple[str, list[float]]], title: str = "") -> str:
    """One horizontal bar per label, its parts stacked left to right in the legend's colours;
    the parts' figures at the bar's end. One scale for every bar; the legend wraps."""
    totals = [sum(values[i] for _, values in parts) for i in range(len(labels))]
    scale = max(totals, default=0) or 1.0
    label_w, chars = _label_column(labels)
    shown = [
        " / ".join(fmt_num(int(v) if float(v).is_integer() else v) for v in (vs[i] for _, vs in parts))
        for i in range(len(labels))
    ]
    left, right = label_w, WIDTH - _figures_width(shown)
    beside = [wrap(f, WIDTH - right - 12) for f in shown]
    laid = _rows(labels, chars, TOP, beside)
    bottom = laid[-1][1] + laid[-1][2] if laid else TOP
    legend, legend_h = _legend([name for name, _ in parts], left, bottom + 16)
    out = _open(bottom + 16 + legend_h, title or "bars")
    for i, (lines, y0, height) in enumerate(laid):
        y = y0 + height / 2
        out.append(f'<g class="bar"><title>{_text(labels[i])}</title>')
        out.append(_label(lines, left - 8, y))
        start = float(left)
        for k, (_name, values) in enumerate(parts):
            width = values[i] / scale * (right - left)
            if width > 0:
                colour = PART_COLOURS[k % len(PART_COLOURS)]
                out.append(f'<rect x="{start:.1f}" y="{y - 7:.1f}" width="{width:.1f}" height="14" fill="{colour}"/>')
                start += width
        out.append(_label(beside[i], start + 6, y, "start", "figures") + "</g>")
    out += legend
    out.append("</svg>")
    return "\n".join(out)


def _figures(value: float, low: float | None, high: float | None) -> str:
    interval = f" [{fmt_num(low, 2)}, {fmt_num(high, 2)}]" if _finite(low) and _finite(high) else ""
    return f"{fmt_num(value, 2, signed=True)}{interval}"


def _figures_width(figures: list[str]) -> float:
    """Room right of the plot for its widest figures (at least FIGURES_W, at most FIGURES_MAX)."""
    return min(FIGURES_MAX, max([FIGURES_W, *(text_width(f) + 16 for f in figures)]))


def _legend(names: list[str], left: float, top: float) -> tuple[list[str], float]:
    """A swatch and name per part, left to right, onto a new line where the next would not fit."""
    out, x, y = [], float(left), top
    for k, name in enumerate(names):
        width = 24 + text_width(visible_line(name))
        if x + width > WIDTH and x > left:
            x, y = float(left), y + 18
        colour = PART_COLOURS[k % len(PART_COLOURS)]
        out.append(f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{x + 14:.1f}" y="{y:.1f}" class="legend">{_text(name)}</text>')
        x += width
    return out, y - top + 14
