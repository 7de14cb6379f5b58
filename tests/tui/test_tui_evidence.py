"""The Metrics screen's Enter: the answers behind the number under the cursor, the count that
makes it, the counted names highlighted and the model's text literal; Esc back to the same cell.
At 80x24 and 120x40, by keys only."""

import asyncio

import pytest
from helpers import footer_text, on_screen, run_cli, settled, shown, wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp

# Markup in the answer and in a name: shown as written, never interpreted.
REPLY = "Here are my picks [/x]:\n1. Nike\n2. Asics [bold]fast[/bold]\n3. Puma"


@pytest.fixture
def marked_db(tmp_path, fake_server):
    server = fake_server(ServerConfig(reply_text=REPLY))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=4)
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "list"\nk = 3\n')
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    (tmp_path / "e.csv").write_text("name,region\nNike,United States\nPuma,Europe\n")
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    return db


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_enter_on_a_number_shows_its_answers_and_esc_comes_back(marked_db, size):
    async def scenario():
        app = WorkbenchApp(marked_db)
        async with app.run_test(size=size) as pilot:
            await pilot.press("2")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.computed > 0 and screen.records)
            await settled(pilot)
            assert "Evidence" in footer_text(app)
            await pilot.press("enter")  # no table has the focus: the first one takes it
            assert await wait_for(pilot, lambda: getattr(app.focused, "id", None) == "peir-table")
            await pilot.press("right")  # the model's column: the PEIR cell
            cell = app.focused.cursor_coordinate
            assert cell.column == 1
            await pilot.press("enter")
            assert await on_screen(pilot, "EvidenceScreen")
            evidence = app.screen
            head = shown(evidence.query_one("#evidence-head"))
            assert "tie: Asics [bold]fast[/bold, Nike, Puma each named in 4 of 4 answers" in " ".join(head.split())
            answer = evidence.query_one("#evidence-answer")
            assert await wait_for(pilot, lambda: "Here are my picks [/x]:" in shown(answer))
            assert "Asics [bold]fast[/bold]" in shown(answer)
            drawn = evidence.answer_shown  # the counted names highlighted in the answer
            highlighted = {drawn.plain[s.start : s.end] for s in drawn.spans if "reverse" in str(s.style)}
            assert highlighted == {"Nike", "Asics [bold]fast[/bold", "Puma"}
            assert evidence.query_one("#evidence-answers").row_count == 4
            await pilot.press("n")  # the next answer
            assert evidence.query_one("#evidence-answers").cursor_row == 1
            await pilot.press("escape")
            assert await on_screen(pilot, type(screen).__name__)
            assert app.focused.id == "peir-table" and app.focused.cursor_coordinate == cell
            await pilot.press("question_mark")
            assert await on_screen(pilot, "HelpScreen")
            assert "the answers behind it" in " ".join(app.screen.text.split())  # the Metrics section lists Enter

    asyncio.run(scenario())


def test_enter_on_a_label_says_there_is_nothing_behind_it(marked_db):
    async def scenario():
        app = WorkbenchApp(marked_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.computed > 0 and screen.records)
            await settled(pilot)
            await pilot.press("enter", "enter")  # into the first table, then Enter on its topic label
            assert await wait_for(pilot, lambda: any("label" in n.message for n in app._notifications))
            assert type(app.screen).__name__ != "EvidenceScreen"

    asyncio.run(scenario())
