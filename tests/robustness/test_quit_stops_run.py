"""Quitting the app while its run is going stops the run (nothing lost; `s` or the next run
resumes it) rather than leaving it answering behind a blank terminal until it ends."""

from __future__ import annotations

import asyncio
import time

from conftest import rows
from helpers import wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp


def test_quitting_the_app_stops_its_run(tmp_path, fake_server):
    server = fake_server(ServerConfig(latency_s=0.2))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},concurrency=1"], questions=40)
    db = tmp_path / "a.db"

    async def scenario():
        app = WorkbenchApp(db, str(study), autostart=True)
        async with app.run_test(size=(100, 30)) as pilot:
            assert await wait_for(pilot, lambda: db.exists() and server.stats.ok >= 2)
            await app.action_quit()

    started = time.monotonic()
    asyncio.run(scenario())
    # The run's thread was told to stop: it ends long before 40 x 0.2 s of answers.
    deadline = time.monotonic() + 30
    while rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'running'") != [(0,)]:
        assert time.monotonic() < deadline, "the run kept its claims after the app quit"
        time.sleep(0.05)
    answered = rows(db, "SELECT COUNT(*) FROM responses")[0][0]
    assert answered < 40, f"the run went on to the end after the app quit ({time.monotonic() - started:.1f} s)"
