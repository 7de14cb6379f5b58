"""Charts as inline SVG, written by hand: a forest plot and stacked horizontal bars.

Small on purpose: no plotting library, no script, no font or file fetched; the figures are
beside the marks (through `fmt_num`), so a chart printed in black and white still reads.
Every label is escaped and its control characters written out (`literal.visible_line`):
an entity name may hold markup. A label is never cut: it wraps onto as many lines as it
needs in a column sized to the labels (a row grows with its lines), and each row carries
its whole label as a tooltip. The forest plot's reference line is labelled."""

from __future__ import annotations

import math
from html import escape

from workbench.literal import visible_line
from workbench.metric_views import Forest
from workbench.numbers import fmt_num

WIDTH = 720
CHAR_W = 6.6  # a 12px sans-serif character, on average: what sizes the label column
LABEL_MIN, LABEL_MAX = 120, 300  # the labels' column, sized to the longest line within these
FIGURES_W = 170  # the estimate and interval, right of the plot
LINE_H = 14  # one line of a label
ROW_PAD = 6
TOP = 12
PART_COLOURS = ("#2e7d4f", "#b23b3b", "#c99a1e", "#4a6fa5", "#7b5ea7", "#6b6b6b", "#a0522d")


def _text(value: str) -> str:
    return escape(visible_line(value), quote=True)


def wrap(label: str, chars: int) -> list[str]:
    """A label as lines of at most `chars` characters, broken between words; a word longer
    than a line is broken at the line's end (a URL, a hash), never dropped."""
    lines: list[str] = []
    line = ""
    for word in visible_line(label).split(" "):
        while len(word) > chars:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:chars])
            word = word[chars:]
        candidate = f"{line} {word}" if line else word
        if len(candidate) <= chars:
            line = candidate
        else:
            lines.append(line)
            line = word
    return [*lines, line] if line or not lines else lines


def _label_column(labels: list[str]) -> tuple[int, int]:
    """(width in px, characters a line holds): as wide as the longest label, within bounds."""
    longest = max((len(visible_line(label)) for label in labels), default=0)
    wanted = longest * CHAR_W + 16
    width = int(min(LABEL_MAX, max(LABEL_MIN, math.ceil(wanted))))
    return width, longest if wanted <= LABEL_MAX else max(8, int((width - 16) / CHAR_W))


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _open(height: float, title: str) -> list[str]:
    return [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="{WIDTH}" height="{height:.0f}" font-family="sans-serif" font-size="12">',
        f"<title>{_text(title)}</title>",
    ]


def _label(lines: list[str], x: float, middle: float) -> str:
    """A right-aligned label of one or more lines, centred on `middle`."""
    first = middle + 4 - (len(lines) - 1) * LINE_H / 2
    spans = "".join(
        f'<tspan x="{x}" y="{first + i * LINE_H:.1f}">{escape(line)}</tspan>' for i, line in enumerate(lines)
    )
    return f'<text text-anchor="end" class="label">{spans}</text>'


def _rows(labels: list[str], chars: int, top: float) -> list[tuple[list[str], float, float]]:
    """Each row's label lines, its top and its height."""
    out, y = [], top
    for label in labels:
        lines = wrap(label, chars)
        height = max(20, len(lines) * LINE_H + ROW_PAD)
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
    left, right = label_w, WIDTH - FIGURES_W

    def x(value: float) -> float:
        return left + (value - lo) / (hi - lo) * (right - left)

    top = TOP + 14  # room for the reference line's label
    laid = _rows([r[0] for r in rows], chars, top)
    bottom = laid[-1][1] + laid[-1][2] if laid else top
    out = _open(bottom + 46, title or forest.x_label or "forest plot")
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
    for (label, value, low, high), (lines, y0, height) in zip(rows, laid):
        y = y0 + height / 2
        out.append(f'<g class="row"><title>{_text(label)}</title>')
        out.append(_label(lines, left - 8, y))
        interval = ""
        if _finite(low) and _finite(high):
            x1, x2 = x(low), x(high)
            out.append(f'<line x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" stroke="#333" class="whisker"/>')
            for end in (x1, x2):
                out.append(f'<line x1="{end:.1f}" y1="{y - 4:.1f}" x2="{end:.1f}" y2="{y + 4:.1f}" stroke="#333"/>')
            interval = f" [{fmt_num(low, 2)}, {fmt_num(high, 2)}]"
        out.append(f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="4" fill="#1f5fa8" class="estimate"/>')
        figures = f"{fmt_num(value, 2, signed=True)}{interval}"
        out.append(f'<text x="{right + 8}" y="{y + 4:.1f}">{escape(figures)}</text></g>')
    out.append(f'<line x1="{left}" y1="{bottom + 6}" x2="{right}" y2="{bottom + 6}" stroke="#333"/>')
    for tick in (lo + pad, hi - pad):
        out.append(f'<text x="{x(tick):.1f}" y="{bottom + 20}" text-anchor="middle">{escape(fmt_num(tick, 2))}</text>')
    if forest.x_label:
        out.append(
            f'<text x="{(left + right) / 2:.1f}" y="{bottom + 38}" text-anchor="middle" '
            f'font-style="italic">{_text(forest.x_label)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def bars_svg(labels: list[str], parts: list[tuple[str, list[float]]], title: str = "") -> str:
    """One horizontal bar per label, its parts stacked left to right in the legend's colours;
    the parts' figures at the bar's end. One scale for every bar; the legend wraps."""
    totals = [sum(values[i] for _, values in parts) for i in range(len(labels))]
    scale = max(totals, default=0) or 1.0
    label_w, chars = _label_column(labels)
    left, right = label_w, WIDTH - FIGURES_W
    laid = _rows(labels, chars, TOP)
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
        figures = " / ".join(fmt_num(int(v) if float(v).is_integer() else v) for v in (vs[i] for _, vs in parts))
        out.append(f'<text x="{start + 6:.1f}" y="{y + 4:.1f}">{escape(figures)}</text></g>')
    out += legend
    out.append("</svg>")
    return "\n".join(out)


def _legend(names: list[str], left: float, top: float) -> tuple[list[str], float]:
    """A swatch and name per part, left to right, onto a new line where the next would not fit."""
    out, x, y = [], float(left), top
    for k, name in enumerate(names):
        width = 24 + CHAR_W * len(visible_line(name))
        if x + width > WIDTH and x > left:
            x, y = float(left), y + 18
        colour = PART_COLOURS[k % len(PART_COLOURS)]
        out.append(f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{x + 14:.1f}" y="{y:.1f}" class="legend">{_text(name)}</text>')
        x += width
    return out, y - top + 14
