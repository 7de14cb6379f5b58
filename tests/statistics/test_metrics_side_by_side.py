"""Models side by side on the Metrics screen: at 120x40 every model's log-odds column is on
screen (the second was off it), and at 80x24 a long cell wraps at its words instead of being
cut ("...(no test: only 1"). The CLI's tables, the same at 80 columns."""

import asyncio

import pytest
from helpers import run_cli, settled, shown, wait_for

from workbench.app import WorkbenchApp
from workbench.widgets.table_fit import MIN_WIDTH, fitted_widths

TABLES = ("#lor-table", "#peir-table", "#stability-table", "#region-table")


def words_cut(cells: list[str], drawn: str) -> list[str]:
    """The words of `cells` that are not drawn whole (cut at a column's edge or mid-word)."""
    whole = set(drawn.split())
    return [word for cell in cells for word in cell.split() if word not in whole]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_every_model_of_the_log_odds_table_is_on_screen_and_no_word_is_cut(metrics_db, size):
    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=size) as pilot:
            await pilot.press("2")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.query_one("#lor-table").row_count == 6)
            await settled(pilot)
            for selector in TABLES:
                table = screen.query_one(selector)
                drawn = shown(table)
                header = drawn.splitlines()[0].split()
                assert "gemini" in header and "gpt" in header, (selector, header)  # both models, side by side
                assert table.region.right <= size[0]
                cells = [str(c) for i in range(table.row_count) for c in table.get_row_at(i)]
                assert words_cut(cells, drawn) == [], selector
            lor = shown(screen.query_one("#lor-table"))
            assert "0.37 [-0.50, 1.24]" in lor and "n/a (no United" in lor  # gpt's estimate, gemini's n/a
            assert "Holm" in lor  # the adjusted p, not cut off at the screen's edge

    asyncio.run(scenario())


def test_the_tables_refit_when_the_terminal_is_resized(metrics_db):
    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.press("2")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.query_one("#lor-table").row_count == 6)
            await pilot.resize_terminal(80, 24)
            assert await wait_for(pilot, lambda: screen.query_one("#lor-table").region.right <= 80)
            assert "gpt" in shown(screen.query_one("#lor-table")).splitlines()[0]

    asyncio.run(scenario())


def test_the_cli_tables_keep_both_models_and_whole_words_at_80_columns(metrics_db):
    out = run_cli("metrics", "--db", str(metrics_db), env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    lor = out.stdout.split("Geographic bias: log-odds ratio")[1].split("Share of recommendation")[0]
    assert "gemini" in lor and "gpt" in lor and "Holm" in lor


def test_fitted_widths_share_the_room_and_keep_narrow_columns():
    header = ["topic", "regions", "a", "b"]
    rows = [["shoes", "United States vs Asia", "n/a (no United States slot: 0 vs 8 slots)", "0.37 [-0.50, 1.24]"]]
    assert fitted_widths(header, rows, 200, {"a", "b"}) is None  # fits one line a cell: nothing to do
    widths = fitted_widths(header, rows, 76, {"a", "b"})
    assert widths[:2] == [5, 21] and widths[3] == len("0.37 [-0.50, 1.24]")  # the narrow column keeps its width
    assert sum(widths) + 2 * len(widths) <= 76
    three = fitted_widths([*header, "c"], [[*rows[0], "0.12 [0.01, 0.30]"]], 76, {"a", "b", "c"})
    assert three[:2] == [5, 12] and min(three[2:]) >= MIN_WIDTH  # the labels wrap narrower for a third model
    assert fitted_widths(header * 3, rows * 1, 40, {"a", "b"}) is None  # no room at MIN_WIDTH: it scrolls
    assert MIN_WIDTH >= len("[-0.50, 1.24]")
