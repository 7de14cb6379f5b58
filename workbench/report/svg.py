"""Charts as inline SVG, written by hand: a forest plot and stacked horizontal bars.

Small on purpose: no plotting library, no script, no font or file fetched; the figures are
beside the marks (through `fmt_num`), so a chart printed in black and white still reads.
Every label is escaped and its control characters written out (`literal.visible_line`):
an entity name may hold markup."""

from __future__ import annotations

import math
from html import escape

from workbench.literal import visible_line
from workbench.metric_views import Forest
from workbench.numbers import fmt_num

WIDTH = 720
LABEL_W = 230  # the labels' column
FIGURES_W = 170  # the estimate and interval, right of the plot
ROW_H = 20
TOP = 12
LABEL_CHARS = 34  # longer labels are cut; the whole one is the row's tooltip
PART_COLOURS = ("#2e7d4f", "#b23b3b", "#c99a1e", "#4a6fa5", "#7b5ea7")


def _text(value: str) -> str:
    return escape(visible_line(value), quote=True)


def _short(label: str) -> str:
    shown = visible_line(label)
    return shown if len(shown) <= LABEL_CHARS else shown[: LABEL_CHARS - 1] + "…"


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _open(height: float, title: str) -> list[str]:
    return [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="{WIDTH}" height="{height:.0f}" font-family="sans-serif" font-size="12">',
        f"<title>{_text(title)}</title>",
    ]


def forest_svg(forest: Forest, title: str = "") -> str:
    """Each row: its label, a whisker from its interval's low to high, a dot at the estimate,
    and the figures; one scale for all rows, a dashed line at the reference (no effect)."""
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
    left, right = LABEL_W, WIDTH - FIGURES_W

    def x(value: float) -> float:
        return left + (value - lo) / (hi - lo) * (right - left)

    height = TOP + ROW_H * len(rows) + 46
    out = _open(height, title or forest.x_label or "forest plot")
    bottom = TOP + ROW_H * len(rows)
    if _finite(forest.reference):
        ref = x(forest.reference)
        out.append(
            f'<line x1="{ref:.1f}" y1="{TOP - 4}" x2="{ref:.1f}" y2="{bottom + 4}" stroke="#777" '
            'stroke-dasharray="4 3" class="reference"/>'
        )
    for i, (label, value, low, high) in enumerate(rows):
        y = TOP + ROW_H * i + ROW_H / 2
        out.append(f'<g class="row"><title>{_text(label)}</title>')
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(_short(label))}</text>')
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
    the parts' figures at the bar's end. One scale for every bar."""
    totals = [sum(values[i] for _, values in parts) for i in range(len(labels))]
    scale = max(totals, default=0) or 1.0
    left, right = LABEL_W, WIDTH - FIGURES_W
    height = TOP + ROW_H * len(labels) + 30
    out = _open(height, title or "bars")
    for i, label in enumerate(labels):
        y = TOP + ROW_H * i
        out.append(f'<g class="bar"><title>{_text(label)}</title>')
        out.append(f'<text x="{left - 8}" y="{y + 14}" text-anchor="end">{escape(_short(label))}</text>')
        start = float(left)
        for k, (_name, values) in enumerate(parts):
            width = values[i] / scale * (right - left)
            if width > 0:
                colour = PART_COLOURS[k % len(PART_COLOURS)]
                out.append(
                    f'<rect x="{start:.1f}" y="{y + 3}" width="{width:.1f}" height="{ROW_H - 6}" fill="{colour}"/>'
                )
                start += width
        figures = " / ".join(fmt_num(int(v) if float(v).is_integer() else v) for v in (vs[i] for _, vs in parts))
        out.append(f'<text x="{start + 6:.1f}" y="{y + 14}">{escape(figures)}</text></g>')
    legend_y = TOP + ROW_H * len(labels) + 16
    x = float(left)
    for k, (name, _values) in enumerate(parts):
        colour = PART_COLOURS[k % len(PART_COLOURS)]
        out.append(f'<rect x="{x:.1f}" y="{legend_y - 10}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{x + 14:.1f}" y="{legend_y}">{_text(name)}</text>')
        x += 24 + 7 * len(name)
    out.append("</svg>")
    return "\n".join(out)
