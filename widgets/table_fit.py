"""Column widths that fit a metrics table in the room it has, so every model's column shows.

A metrics cell says a number with its interval, test and n, or n/a with its reason: 40 to 80
characters. Laid out one line a cell, two models' columns passed 120 columns and the second
model was off screen; at 80 columns cells were cut mid-word. Here the widths are found for
the table to fit: the label columns (topic, regions, ...) keep what they need up to a cap,
and the model columns share the rest, a narrow one keeping its own width; a cell longer than
its column then wraps at its words onto more lines. Only when even the narrowest readable
columns do not fit does the table keep its one-line cells (it scrolls sideways, as before).
"""

from __future__ import annotations

PADDING = 2  # a DataTable cell's padding, one column each side
MIN_WIDTH = 14  # below this a wrapped estimate ("0.37 [-0.50, 1.24]") breaks inside its numbers
LABEL_CAP = 28  # a label column wider than this wraps too (a long topic or model name)
NARROW_LABEL_CAP = 12  # the labels' width when the models' columns do not fit beside LABEL_CAP
WRAPPED_MAX_HEIGHT = 30  # lines of a table whose cells wrap (one line a cell: the stylesheet's 12)


def fitted_widths(
    header: list[str], rows: list[list[str]], room: int, models: set[str] | None = None
) -> list[int] | None:
    """Each column's width (without padding) so the table fits `room` columns, or None when it
    fits with one line a cell (nothing to do) or cannot fit at MIN_WIDTH (it scrolls
    sideways). The columns before the first of `models` are labels; the rest share what is
    left (no model named in the header: the leading columns up to LABEL_CAP wide are labels)."""
    natural = [max([len(header[i])] + [len(r[i]) for r in rows if i < len(r)]) for i in range(len(header))]
    if not natural or sum(natural) + PADDING * len(natural) <= room:
        return None
    labels = label_columns(header, natural, models or set())
    rest = natural[labels:]
    for cap in (LABEL_CAP, NARROW_LABEL_CAP):  # the labels wrap narrower before the models' columns scroll
        widths = [min(w, cap) for w in natural[:labels]]
        left = room - sum(widths) - PADDING * len(natural)
        if rest and left >= sum(min(w, MIN_WIDTH) for w in rest):  # a narrow column needs only its own width
            return widths + _shared(rest, left)
    return None


def _shared(rest: list[int], left: int) -> list[int]:
    """`left` columns shared by columns whose natural widths are `rest`."""
    shares = [0] * len(rest)
    open_columns = list(range(len(rest)))
    while open_columns:  # a column narrower than an even share keeps its width; the rest share the remainder
        share = left // len(open_columns)
        narrow = [i for i in open_columns if rest[i] <= share]
        if not narrow:
            for i in open_columns:
                shares[i] = share
            break
        for i in narrow:
            shares[i] = rest[i]
            left -= rest[i]
        open_columns = [i for i in open_columns if i not in narrow]
    return shares


def label_columns(header: list[str], natural: list[int], models: set[str]) -> int:
    """How many leading columns are labels: those before the first model's column, else the
    leading ones no wider than LABEL_CAP; one at least, and never every column."""
    first = next((i for i, name in enumerate(header) if name in models), None)
    if first is None:
        first = next((i for i, width in enumerate(natural) if width > LABEL_CAP), len(header) - 1)
    return max(1, min(first, len(header) - 1))


def fill_fitted(table, header: list[str], rows: list[list[str]], room: int, models: set[str]) -> None:
    """Fill a DataTable with `header` and `rows` (text shown literally), its columns fitted to
    `room` (`fitted_widths`): a narrowed column's cells wrap at their words, each row as tall
    as its tallest cell."""
    from rich.text import Text

    from workbench.text.literal import visible_line

    widths = fitted_widths(header, rows, room, models)
    table.clear(columns=True)
    # Wrapped rows take more lines: a taller box, so that a table's rows are not all behind its own scrollbar.
    table.styles.max_height = None if widths is None else WRAPPED_MAX_HEIGHT
    if widths is None:
        table.add_columns(*[Text(visible_line(h)) for h in header])
        table.add_rows([[Text(visible_line(c)) for c in row] for row in rows])
        return
    for name, width in zip(header, widths):
        table.add_column(Text(visible_line(name), overflow="fold"), width=width)
    for row in rows:
        table.add_row(*[Text(visible_line(c), overflow="fold") for c in row], height=None)
