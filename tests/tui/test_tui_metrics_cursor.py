"""The Metrics screen's view follows the cursor down a table below the fold (at 80x24 the
cursor went off screen for 4 or 5 presses, and Enter then opened a number nobody could see)."""

import asyncio

import pytest
from helpers import mentions_store, run_cli, settled, wait_for
from textual.widgets import DataTable

from workbench.app import WorkbenchApp


def _cursor_on_view(body, table: DataTable) -> bool:
    cell = table._get_cell_region(table.cursor_coordinate)
    y = table.region.y + cell.y - int(table.scroll_y)
    return body.content_region.y <= y < body.content_region.bottom


@pytest.fixture
def two_models(tmp_path):
    """Two models' lists with regions: a log-odds table of two model columns, rows wrapped."""
    db = mentions_store(tmp_path)
    (tmp_path / "e.csv").write_text("name,region\nNike,United States\nAdidas,Europe\nAsics,Asia\nPuma,Europe\n")
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    return db


def test_moving_down_every_table_keeps_the_cursor_on_view(two_models):
    async def scenario():
        app = WorkbenchApp(two_models)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.computed > 0 and screen.records)
            await settled(pilot)
            body = screen.query_one("#metrics-body")
            tables = [t for t in screen.query("#metrics-body DataTable").results(DataTable) if t.row_count > 1]
            assert len(tables) >= 3
            below = 0
            for table in tables:
                table.focus()
                await settled(pilot)
                below += table.region.y >= body.content_region.bottom  # started below the fold
                for _ in range(table.row_count - 1):
                    await pilot.press("down")
                    await settled(pilot)
                    assert _cursor_on_view(body, table), (table.id, table.cursor_coordinate)
            assert below or body.max_scroll_y > 0  # the body is taller than the screen: a real test

    asyncio.run(scenario())
