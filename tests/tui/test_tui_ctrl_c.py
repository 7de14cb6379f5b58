"""Ctrl+C in the app says how to quit in words, not in markup shown literally."""

from __future__ import annotations

import asyncio

from tests.helpers import wait_for
from workbench.app import WorkbenchApp
from workbench.store.db import connect


def test_ctrl_c_names_the_quit_key_in_plain_words(tmp_path):
    connect(tmp_path / "t.db").close()

    async def scenario():
        app = WorkbenchApp(tmp_path / "t.db")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("ctrl+c")
            assert await wait_for(pilot, lambda: any("to quit the app" in n.message for n in app._notifications))
            said = next(n.message for n in app._notifications if "to quit the app" in n.message)
            assert "[b]" not in said and said.startswith("Press ") and "q" in said  # was 'Press [b]ctrl+q[/b] ...'
            assert app.is_running  # and it does not quit

    asyncio.run(scenario())
