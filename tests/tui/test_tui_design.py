"""The Design screen on arrival: without a study file it shows the database's questions,
read-only, offers none of the keys that change a study and says how to open one; with a
study file the questions table has the keys at once (no arrow key first)."""

import asyncio

from conftest import rows
from helpers import footer_text, settled, shown, wait_for, write_study

from workbench.app import WorkbenchApp
from workbench.methods.choice.design import register

CHANGING_KEYS = ("Verify", "Edit", "Add", "Generate", "Test", "Save")


def test_design_without_a_study_file_shows_the_stored_questions_read_only(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=5, name="d")
    db = tmp_path / "audit.db"
    register(db, study)  # the questions stored, as a run of the study stores them

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            screen = app.screen
            table = screen.query_one("#questions-table")
            assert await wait_for(pilot, lambda: table.row_count == 5)
            assert "no study file · 5 questions of d, read-only" in shown(screen.query_one("#design-title"))
            info = shown(screen.query_one("#design-info"))
            assert "No study file" in info and "--study FILE.toml" in " ".join(info.split())
            assert await wait_for(pilot, lambda: "] Tab" in footer_text(app))
            assert not any(key in footer_text(app) for key in CHANGING_KEYS)
            assert app.focused is table
            await pilot.press("right_square_bracket")  # the clusters of the stored questions, read-only
            clusters = screen.query_one("#clusters-table")
            assert clusters.row_count >= 1
            assert "No study file" in shown(screen.query_one("#cluster-detail"))
            await pilot.press("right_square_bracket")  # the stored models (none before a run), read-only
            models = screen.query_one("#models-table")
            assert models.row_count >= 1 and "no study file" in " ".join(map(str, models.get_row_at(0)))
            await pilot.press("right_square_bracket")
            await pilot.press("v", "e", "a", "g", "t", "w")  # offered nowhere: nothing changes, nothing opens
            await settled(pilot)
            assert app.screen is screen and not [n for n in app._notifications if "generate" in n.message]

    asyncio.run(scenario())
    assert rows(db, "SELECT COUNT(*) FROM questions WHERE verified = 1") == [(0,)]
    assert not (tmp_path / "s.toml.bak").exists()


def test_design_keys_act_on_arrival_without_an_arrow_key_first(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=3, name="d")
    db = tmp_path / "audit.db"

    async def scenario():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            table = app.screen.query_one("#questions-table")
            assert await wait_for(pilot, lambda: table.row_count == 3 and "v Verify" in footer_text(app))
            assert app.focused is table
            await pilot.press("v")  # the first key: the highlighted (first) question verified
            assert await wait_for(
                pilot, lambda: rows(db, "SELECT COUNT(*) FROM questions WHERE verified = 1") == [(1,)]
            )

    asyncio.run(scenario())
