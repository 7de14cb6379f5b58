"""Two reviewers in the app: the first edits with the experts' lists in view, the second
works blind on the validation sample and changes nothing metrics read."""

import asyncio

from conftest import rows
from helpers import on_screen, run_cli, wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp


def test_a_second_reviewer_works_blind_in_the_app(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=3)
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n')
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    extracted = [r[0] for r in rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank")]

    async def first_reviewer():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")
            context = str(app.screen.query_one("#edit-context").render())
            assert "expert 1:" in context and "expert 3:" in context and "extracted:" in context
            loads = screen.loads
            await pilot.press("ctrl+u", *"Hoka, Saucony", "enter")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    async def second_reviewer():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            for _ in range(4):  # unreviewed, disagreements, reviewer disagreements, all, validation sample
                loads = screen.loads
                await pilot.press("f")
                assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)
            assert screen.filter == "validation sample (blind)"
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            shown = str(screen.query_one("#review-lists").render())
            assert "extracted list" in shown and "Saucony" not in shown and "ana" not in shown
            assert screen.page["entities"] == extracted  # the machine's list, never ana's
            loads = screen.loads
            await pilot.press("x")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(first_reviewer())
    assert [r[0] for r in rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank")] == [
        "Hoka",
        "Saucony",
    ]
    asyncio.run(second_reviewer())
    # bo's blind rejection is recorded, and the list metrics read is still ana's.
    assert rows(db, "SELECT reviewer, decision, blind FROM verdicts ORDER BY id") == [
        ("ana", "edit", 0),
        ("bo", "reject", 1),
    ]
    assert [r[0] for r in rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank")] == [
        "Hoka",
        "Saucony",
    ]
    out = run_cli("review", "agreement", "--db", str(db), "--study", "t", "--first", "ana", "--second", "bo")
    assert "both reviewed 1" in out.stdout and "Agreement 0.0%" in out.stdout
