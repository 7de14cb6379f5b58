"""A forest plot in the terminal (plotext): one row an estimate, its interval as a line."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from workbench.display.metric_views import Forest
from workbench.text.literal import visible_line

PLOT_MIN_WIDTH = 100  # below this a plot's labels and axis crowd out the data: text charts
PLOT_MAX_ROWS = 24


def fits(forest: Forest) -> bool:
    """A plot with more rows than fit would overlap its labels: the text chart lists them all."""
    return 0 < len(forest.supported().values) <= PLOT_MAX_ROWS - 5  # none: the text chart says why


def draw_forest(widget: PlotextPlot, forest: Forest) -> None:
    """Estimates as points, intervals as lines, one row each, the reference as a line: the
    rows with an interval only (`Forest.supported`), so that the axis is theirs and an n/a
    estimate is neither drawn nor stretches it."""
    forest = forest.supported()
    plt = widget.plt
    plt.clear_data()
    plt.clear_figure()
    rows = list(range(len(forest.values), 0, -1))  # the first label on top
    for y, low, high in zip(rows, forest.lows, forest.highs):
        if low is not None and high is not None:
            plt.plot([low, high], [y, y], color="cyan", marker="─")
    plt.scatter(forest.values, rows, color="magenta", marker="●")
    if forest.reference is not None:
        plt.vline(forest.reference, color="gray")
    plt.yticks(rows, [visible_line(label)[:32] for label in forest.labels])
    plt.ylim(0.5, len(rows) + 0.5)
    plt.xlabel(visible_line(forest.x_label))
    widget.styles.height = min(PLOT_MAX_ROWS, len(rows) + 5)
    widget.refresh()
