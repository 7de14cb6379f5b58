"""Two reviewers in the app: the first edits with the experts' lists in view, the second
works blind on the validation sample and changes nothing metrics read."""

import asyncio

from conftest import rows
from helpers import on_screen, retype_list, run_cli, shown, wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp
from workbench.store.db import connect
from workbench.store.review.validation import validation_sample


def test_a_second_reviewer_works_blind_in_the_app(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=8)
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n')
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    conn = connect(db)
    sampled = validation_sample(conn)[0]  # the first list of the validation sample: both review it
    conn.close()
    listed = "SELECT surface FROM mentions WHERE list_id = ? ORDER BY rank"
    extracted = [r[0] for r in rows(db, listed, sampled)]

    async def first_reviewer():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.page is not None)
            while screen.page["id"] != sampled:
                await pilot.press("n")
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            await pilot.press("e")
            assert await on_screen(pilot, "ListEditor")
            context = shown(app.screen.query_one("#list-context"))
            assert "expert 1" in context and "expert 3" in context and "extracted" in context
            await retype_list(pilot, ["Hoka", "Saucony"])
            loads = screen.loads
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    async def second_reviewer():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            for _ in range(5):  # unreviewed, disagreements, reviewer disagreements, resolved, all, validation sample
                loads = screen.loads
                await pilot.press("f")
                assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)
            assert screen.filter == "validation sample (blind)"
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            lists = shown(screen.query_one("#review-lists"))
            assert "extracted list" in lists and "Saucony" not in lists and "ana" not in lists
            assert "ana" not in shown(screen.query_one("#review-progress"))  # nothing of ana's work either
            assert screen.page["entities"] == extracted  # the machine's list, never ana's
            loads = screen.loads
            await pilot.press("x")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(first_reviewer())
    assert [r[0] for r in rows(db, listed, sampled)] == [
        "Hoka",
        "Saucony",
    ]
    asyncio.run(second_reviewer())
    # bo's blind rejection is recorded, and the list metrics read is still ana's.
    assert rows(db, "SELECT reviewer, decision, blind FROM verdicts ORDER BY id") == [
        ("ana", "edit", 0),
        ("bo", "reject", 1),
    ]
    assert [r[0] for r in rows(db, listed, sampled)] == [
        "Hoka",
        "Saucony",
    ]
    out = run_cli("review", "agreement", "--db", str(db), "--study", "t", "--first", "ana", "--second", "bo")
    assert "both reviewed 1" in out.stdout and "Agreement 0.0%" in out.stdout
