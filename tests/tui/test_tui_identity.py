"""The identity study's screens, used through the keyboard: the template editor with its
live preview, and the review of transparency-probe labels."""

from __future__ import annotations

import asyncio

from conftest import rows
from helpers import footer_text, on_screen, wait_for

from workbench.app import WorkbenchApp


def _text(widget) -> str:
    return str(widget.render())


def test_template_editor_previews_as_you_type_and_saves_next_to_the_study(tmp_path):
    study = tmp_path / "id.toml"
    study.write_text(
        'name = "unis"\nmethod = "identity"\nmodels = ["llama:default"]\ntemplate = "universities"\nper_group = 8\n'
    )

    async def scenario():
        app = WorkbenchApp(tmp_path / "t.db", study)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            screen = app.screen
            samples = screen.query_one("#template-samples")
            assert await wait_for(pilot, lambda: "Black · dialect" in _text(samples))
            assert "I be on the school" in _text(samples) or "be " in _text(samples)  # the dialect spot
            assert "32 prompts per model" in _text(samples)
            editor = screen.query_one("#template-text")
            editor.load_text(editor.text.replace("<gpa> GPA", "<grade> GPA"))  # a slot without values
            assert await wait_for(
                pilot, lambda: "slot <grade> has no values" in _text(screen.query_one("#template-error"))
            )
            assert "unsaved" in _text(screen.query_one("#template-title"))
            await pilot.press("ctrl+s")  # refused: the broken template is not written
            await pilot.pause()
            assert not (tmp_path / "universities.toml").exists()
            assert type(app.screen).__name__ == "ErrorModal"  # says why, names the slot
            assert "slot <grade>" in _text(app.screen.query_one("#error-message"))
            await pilot.press("escape")
            assert app.screen is screen and "<grade>" in editor.text  # the text is still there
            editor.load_text(editor.text.replace("<grade> GPA", "<gpa> GPA").replace('"4.0"]', '"4.0", "2.9"]'))
            assert await wait_for(pilot, lambda: _text(screen.query_one("#template-error")) == "")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert (tmp_path / "universities.toml").exists()
            assert '"2.9"' in (tmp_path / "universities.toml").read_text()
            assert 'template = "universities.toml"' in study.read_text()
            await pilot.press("escape", "2")  # out of the text, the mode keys work again
            assert type(app.screen).__name__ == "MetricsScreen"

    asyncio.run(scenario())
    from workbench.methods.study_files import load_study

    assert "2.9" in load_study(study).template.slots["gpa"]


def test_probe_labels_reviewed_by_keys_with_undo(tmp_path, fake_server):
    from helpers import run_cli
    from openai_server import ServerConfig

    server = fake_server(ServerConfig(reply_text="No, your race did not influence my recommendations."))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 1\n'
    )
    db = tmp_path / "id.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    assert rows(db, "SELECT COUNT(*) FROM identity_outputs WHERE probe_label = 'denies'") == [(4,)]

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            review = app.screen
            assert await wait_for(pilot, lambda: review.loads > 0)  # the store's studies read: identity's
            assert await wait_for(pilot, lambda: "b Probes" in footer_text(app))
            assert "Matches" not in footer_text(app)
            await pilot.press("b")
            assert await wait_for(pilot, lambda: "1/4" in _text(app.screen.query_one("#probe-status")))
            conversation = _text(app.screen.query_one("#probe-conversation"))
            assert "Did my race influence your recommendations?" in conversation
            assert "rules: denies" in _text(app.screen.query_one("#probe-labels"))
            await pilot.press("a")  # this one admits, says the reviewer
            assert await wait_for(pilot, lambda: "1/3" in _text(app.screen.query_one("#probe-status")))
            assert rows(
                db,
                "SELECT COUNT(*) FROM identity_outputs WHERE probe_label = 'admits' AND probe_label_source = 'human'",
            ) == [(1,)]
            await pilot.press("u")
            assert await wait_for(pilot, lambda: "1/4" in _text(app.screen.query_one("#probe-status")))
            assert rows(db, "SELECT probe_label, probe_label_source, COUNT(*) FROM identity_outputs GROUP BY 1, 2") == [
                ("denies", "rules", 4)
            ]
            await pilot.press("escape")
            assert type(app.screen).__name__ == "ReviewScreen"

    asyncio.run(scenario())


def _identity_study(tmp_path):
    study = tmp_path / "id.toml"
    study.write_text('name = "unis"\nmethod = "identity"\nmodels = ["llama:default"]\ntemplate = "universities"\n')
    return study


SHELL_LINE = "ls 4&&q>/x"  # a shell command, its keys the app's elsewhere


def test_template_editor_keeps_its_keys(tmp_path):
    """Every printable key typed into the template goes into it: q, the mode keys 1-5, ?,
    a shell command; Tab indents and Shift+Tab takes the indent away. Only Esc leaves the
    text, and then the app's keys work again."""

    async def scenario():
        app = WorkbenchApp(tmp_path / "t.db", _identity_study(tmp_path))
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#template-text").text.startswith("#"))
            screen, editor = app.screen, app.screen.query_one("#template-text")
            original = editor.text
            assert app.focused is editor
            await pilot.press("q", "1", "2", "5", "question_mark")
            assert editor.text == "q125?" + original
            await pilot.press("enter", "tab")
            assert editor.text == "q125?\n    " + original
            await pilot.press("shift+tab", *SHELL_LINE, "enter")
            assert editor.text == "q125?\n" + SHELL_LINE + "\n" + original
            assert app.is_running and app.screen is screen and app.current_mode == "design"
            assert app.focused is editor  # Tab and Shift+Tab did not move the focus out
            assert "unsaved" in _text(screen.query_one("#template-title"))
            await pilot.press("escape")  # out of the text: the keys are the app's again
            assert app.focused is not editor
            await pilot.press("f1")
            assert await on_screen(pilot, "HelpScreen")
            await pilot.press("escape")
            assert await on_screen(pilot, "TemplateScreen")
            assert editor.text.startswith("q125?\n" + SHELL_LINE)

    asyncio.run(scenario())


def test_leaving_the_template_with_unsaved_changes_asks_first(tmp_path):
    """Esc then q (or 1-5, Ctrl+Q) with unsaved changes asks: cancel keeps the text and the
    screen, discard leaves (the saved template back in the editor), save writes it first."""
    study = _identity_study(tmp_path)

    async def scenario():
        app = WorkbenchApp(tmp_path / "t.db", study)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#template-text").text.startswith("#"))
            screen, editor = app.screen, app.screen.query_one("#template-text")
            original = editor.text
            await pilot.press(*"# mine", "enter", "escape", "q")
            assert await on_screen(pilot, "ConfirmUnsaved")
            assert "before quitting" in _text(app.screen.query_one("#unsaved-question"))
            assert app.is_running
            await pilot.press("escape")  # cancel: the text is still there, on the same screen
            assert await on_screen(pilot, "TemplateScreen")
            assert app.screen is screen and editor.text == "# mine\n" + original and app.is_running
            await pilot.press("2")
            assert await on_screen(pilot, "ConfirmUnsaved")
            assert "before going to Metrics" in _text(app.screen.query_one("#unsaved-question"))
            await pilot.press("enter")  # the focused button is Cancel
            assert await on_screen(pilot, "TemplateScreen")
            assert app.current_mode == "design" and editor.text.startswith("# mine")
            await pilot.press("1")
            assert await on_screen(pilot, "ConfirmUnsaved")
            await pilot.press("d")  # discard: to the Run screen, the template as saved
            assert await on_screen(pilot, "RunScreen")
            await pilot.press("3")
            assert await on_screen(pilot, "TemplateScreen")
            assert editor.text == original and not screen.unsaved
            await pilot.press("q")  # nothing unsaved: quits at once
            assert await wait_for(pilot, lambda: not app.is_running)

    asyncio.run(scenario())
    assert not (tmp_path / "universities.toml").exists()

    async def save_on_quit():
        app = WorkbenchApp(tmp_path / "t.db", study)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#template-text").text.startswith("#"))
            await pilot.press(*"# kept", "enter", "ctrl+q")  # Ctrl+Q asks too, from inside the text
            assert await on_screen(pilot, "ConfirmUnsaved")
            await pilot.press("s")
            assert await wait_for(pilot, lambda: not app.is_running)

    asyncio.run(save_on_quit())
    assert (tmp_path / "universities.toml").read_text().startswith("# kept\n")
    assert 'template = "universities.toml"' in study.read_text()


def test_discarding_on_quit_quits(tmp_path):
    study = _identity_study(tmp_path)

    async def scenario():
        app = WorkbenchApp(tmp_path / "t.db", study)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#template-text").text.startswith("#"))
            await pilot.press(*"echo 1", "escape", "q")
            assert await on_screen(pilot, "ConfirmUnsaved")
            await pilot.press("d")
            assert await wait_for(pilot, lambda: not app.is_running)

    asyncio.run(scenario())
    assert not (tmp_path / "universities.toml").exists()
    assert 'template = "universities"' in study.read_text()
