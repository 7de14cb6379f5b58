"""The Textual app driven by keys only, as a person at an 80x24 terminal would."""

import asyncio
import sqlite3
from pathlib import Path

import pytest
from conftest import rows
from helpers import on_screen, run_cli, settled, table_text, wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp
from workbench.widgets.help import HelpScreen


def test_run_screen_shows_what_a_headless_run_did(tmp_path, fake_server):
    server = fake_server(ServerConfig(fault_rate=0.3, faults=("500",), seed=3, reply_text="[bold]x[/bold]"))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},retries=6"], questions=12)
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0

    async def scenario():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(80, 24)) as pilot:
            assert await wait_for(pilot, lambda: app.screen.query_one("#status-table").row_count == 1)
            row = table_text(app, "#status-table")[0]
            assert row[:4] == ["t", f"openai:m@{server.base_url}", "answer", "12"]
            log = "\n".join(str(line.text) for line in app.screen.query_one("#error-log").lines)
            assert "http_500 (retried)" in log

    asyncio.run(scenario())


def test_start_cancel_and_resume_by_keys(tmp_path, fake_server):
    server = fake_server(ServerConfig(latency_s=0.1))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},concurrency=2"], questions=80)
    db = tmp_path / "audit.db"

    def done():
        # The app creates the file before its tables: until both exist nothing is done.
        try:
            return rows(db, "SELECT COUNT(*) FROM responses")[0][0] if db.exists() else 0
        except sqlite3.OperationalError:
            return 0

    async def scenario():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("s")
            assert await wait_for(pilot, lambda: done() >= 5)
            await pilot.press("c")
            assert await wait_for(pilot, lambda: "cancelled" in str(app.screen.query_one("#run-title").render()))
            stopped_at = done()
            assert 5 <= stopped_at < 80
            assert rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'running'") == [(0,)]
            # The progress bar shows where it stopped.
            assert f"{stopped_at}/80" in str(app.screen.query_one(".numbers").render())
            await pilot.press("s")
            assert await wait_for(
                pilot, lambda: "finished" in str(app.screen.query_one("#run-title").render()), timeout=60
            )
            assert done() == 80
            assert await wait_for(pilot, lambda: table_text(app, "#status-table")[0][3] == "80")

    asyncio.run(scenario())
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(80, 80)]


def test_a_burst_of_progress_reaches_the_run_screen_as_one_message(tmp_path):
    """A run reports progress at every answer, from its own thread. The first report goes to
    the screen as a message; those that follow while it paints wait for its next paint: a
    fast run cannot flood the screen's queue, and the row shows the latest report."""
    import threading

    from workbench.pipeline.run_types import Progress
    from workbench.screens.run import RunScreen

    handled = []

    def hook(message):
        if isinstance(message, RunScreen.RunProgress):
            handled.append(message)

    def progress(done: int, waiting: str | None = None) -> Progress:
        return Progress(
            "m", "answer", done, 0, 1000 - done, 0, tokens=0, elapsed_s=1.0, answered_this_run=done, waiting=waiting
        )

    async def scenario():
        app = WorkbenchApp(tmp_path / "audit.db")
        async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
            screen = app.screen

            def numbers():
                return str(screen.query_one(".numbers").render())

            # The reporting thread runs while this coroutine holds the UI's event loop (join):
            # every report after the first finds the screen painting.
            reporter = threading.Thread(target=lambda: [screen._on_progress(progress(d)) for d in range(1, 1001)])
            reporter.start()
            reporter.join()
            assert await wait_for(pilot, lambda: "1000/1000" in numbers())
            assert len(handled) == 1
            # A later report shows too, whether the screen still paints or has gone quiet.
            screen._on_progress(progress(1000, waiting="waiting 30 s (http_429)"))
            assert await wait_for(pilot, lambda: "waiting 30 s (http_429)" in numbers())
            assert len(handled) <= 2

    asyncio.run(scenario())


def test_start_without_a_study_says_how(tmp_path):
    async def scenario():
        app = WorkbenchApp(tmp_path / "audit.db")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("s")
            assert await wait_for(pilot, lambda: any("--study FILE" in n.message for n in app._notifications))

    asyncio.run(scenario())


def test_the_lists_load_while_the_first_screen_shows(metrics_db, monkeypatch):
    """The app loads the ranked lists in the background at start, so pressing 2 computes
    from lists already in memory: no list is read from the store again."""
    from workbench.methods.choice import data
    from workbench.store.entities import mentions

    data._LOADED.clear()
    reads = []
    real = mentions.list_rows
    monkeypatch.setattr(mentions, "list_rows", lambda *a, **k: reads.append(a[1:]) or real(*a, **k))

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await settled(pilot)  # the warm-up has run
            assert len(reads) == 1 and data._LOADED  # one study, loaded once
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            assert len(reads) == 1  # the refresh found them loaded

    asyncio.run(scenario())


def test_metrics_screen_filters_and_export_by_keys(metrics_db):
    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            header = [str(c.label) for c in app.screen.query_one("#peir-table").columns.values()]
            assert header == ["topic", "gemini", "gpt"]  # models side by side
            peir = table_text(app, "#peir-table")
            assert (
                peir[0][0] == "phones" and peir[0][1].startswith("Adidas 1.00") and peir[0][2].startswith("Nike 1.00")
            )
            await pilot.press("t")  # topic: phones
            assert [r[0] for r in table_text(app, "#peir-table")] == ["phones"]
            await pilot.press("k")  # cluster: Budget-Conscious
            filters = str(app.screen.query_one("#metrics-filters").render())
            assert "topic: phones" in filters and "cluster: Budget-Conscious" in filters
            lor = table_text(app, "#lor-table")
            assert lor and all(r[0] == "phones" for r in lor)
            chart = str(app.screen.query_one("#lor-chart").render())
            assert "gpt · Budget-Conscious" in chart and "█" in chart
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")  # where to: proposed beside the database
            assert app.screen.query_one("#edit-input").value == f"{metrics_db.with_suffix('')}.metrics.md"
            await pilot.press("enter")
            base = metrics_db.with_suffix("")
            assert await wait_for(
                pilot,
                lambda: all(Path(f"{base}{s}").exists() for s in (".metrics.csv", ".metrics.json", ".metrics.md")),
            )

    asyncio.run(scenario())
    base = metrics_db.with_suffix("")
    for suffix in (".metrics.csv", ".metrics.json", ".metrics.md"):
        assert Path(f"{base}{suffix}").stat().st_size > 100
    written = Path(f"{base}.metrics.md").read_text()
    assert "| topic | gemini | gpt |" in written
    assert "**Export:** metrics" in written and "**Records:**" in written and "**Topic:**" in written


@pytest.mark.parametrize(
    ("size", "no_color", "plotted"), [((120, 40), "", True), ((120, 40), "1", False), ((80, 24), "", False)]
)
def test_the_log_odds_forest_is_a_plot_when_colour_and_room_allow(metrics_db, monkeypatch, size, no_color, plotted):
    """Estimates with intervals as a real plot on a wide colour terminal; the same rows as
    text under NO_COLOR or in 80 columns."""
    from textual_plotext import PlotextPlot

    monkeypatch.setenv("NO_COLOR", no_color)

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=size) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query("#lor-forest-plot"))
            await settled(pilot)
            plot, text = app.screen.query_one("#lor-forest-plot", PlotextPlot), app.screen.query_one("#lor-forest")
            assert (plot.display, text.display) == (plotted, not plotted)
            rows = str(text.render()).splitlines()
            gpt = next(r for r in rows if r.startswith("phones · Asia · gpt"))
            # estimate and interval (over questions: 3 per cluster), as in the table
            assert "●" in gpt and "+0.37 [-0.50, 1.24]" in gpt
            # gemini names no United States brand: its log-odds are n/a, so no row pretends a value;
            # gpt's US vs Europe rests on 4 European slots: no interval, so not drawn either
            assert not any("gemini" in r for r in rows)
            assert not any(r.startswith("phones · Europe · gpt") for r in rows)
            if plotted:
                drawn = plot.render().plain
                assert "phones · Asia · gpt" in drawn and "●" in drawn

    asyncio.run(scenario())


def test_help_and_command_palette(metrics_db):
    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f1")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            assert not isinstance(app.screen, HelpScreen)
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.press("ctrl+p")
            assert await on_screen(pilot, "CommandPalette")
            await pilot.press(*"go to metrics")
            assert await wait_for(
                pilot, lambda: "Go to Metrics" in str(app.screen.query_one("CommandList").get_option_at_index(0).prompt)
            )
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: app.current_mode == "metrics")

    asyncio.run(scenario())


# -- layout snapshots (80x24 and 120x40) -------------------------------------------


async def _settle(pilot):
    # Workers done, then the messages carrying their results handled and painted: wait
    # until two frames in a row leave no worker running and nothing to refresh.
    for _ in range(3):
        await settled(pilot)
    # A blinking text cursor would make the picture depend on its moment: headless, the app stops it.
    assert await wait_for(pilot, lambda: not getattr(pilot.app.focused, "cursor_blink", False))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_run_screen(snap_compare, metrics_db, size):
    assert snap_compare(WorkbenchApp(metrics_db), terminal_size=size, run_before=_settle)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_metrics_screen(snap_compare, metrics_db, size):
    async def go(pilot):
        await pilot.press("2")
        await _settle(pilot)

    assert snap_compare(WorkbenchApp(metrics_db), terminal_size=size, run_before=go)


def test_help_follows_the_store_s_methods_and_the_study_file(metrics_db):
    """A ChoiceEval store's help lists no other method's keys (the Review screen offers no
    `c` there); without a study file the Design section says it is read-only, with none of
    the keys that edit a study; every line fits the help's box, so none wraps."""

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3", "f1")
            assert await on_screen(pilot, "HelpScreen")
            text = app.screen.text
            assert "cold-start catalog matches" not in text and "transparency-probe" not in text
            assert "No study file: the database's questions, clusters and" in text
            assert "verify / unverify" not in text and "A method with no Design screen" not in text
            assert max(len(line) for line in text.splitlines() if not line.startswith("[b]")) <= 58

    asyncio.run(scenario())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_help(snap_compare, metrics_db, size):
    async def go(pilot):
        await pilot.press("f1")
        await _settle(pilot)

    assert snap_compare(WorkbenchApp(metrics_db), terminal_size=size, run_before=go)


@pytest.fixture
def every_method_db(metrics_db, tmp_path, fake_server):
    """metrics_db (ChoiceEval) plus a study of each other method: cold-start rankings
    imported, an identity study and an entity study answered by a local OpenAI-style server."""
    from helpers import run_cli
    from openai_server import ServerConfig

    from workbench.assets import __file__ as assets_init

    rankings = tmp_path / "rankings.csv"
    lines = ["model,seed,persona_category,persona,rank,item"]
    for seed in (0, 1):
        lines += [f"m,{seed},,neutral,{rank},{item}" for rank, item in enumerate("ABC", 1)]
        lines += [f"m,{seed},gender,a girl,{rank},{item}" for rank, item in enumerate("CBX" if seed else "ABC", 1)]
        lines += [f"m,{seed},age,an old man,{rank},{item}" for rank, item in enumerate("BAC", 1)]
    rankings.write_text("\n".join(lines) + "\n")
    assert run_cli("import", "rankings", str(rankings), "--db", str(metrics_db), "--study", "cs").returncode == 0
    reply = '[{"university": "Howard University", "explanation": "community"}, {"university": "MIT", "explanation": "STEM"}]'
    server = fake_server(ServerConfig(reply_text=reply))
    identity = tmp_path / "id.toml"
    identity.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 3\nseed = 2\n'
    )
    assert run_cli("run", str(identity), "--db", str(metrics_db), "--quiet").returncode == 0
    example = Path(assets_init).parent / "studies" / "entity"
    entity = tmp_path / "entity.toml"
    entity.write_text(
        f'name = "urgency"\nmethod = "entity"\nmodels = ["openai:m@{fake_server(ServerConfig()).base_url}"]\n'
        f'task = "{example / "urgency.task.json"}"\ntemplates = "{example / "urgency_templates.csv"}"\n'
        f'entities = "{example / "countries.csv"}"\nmax_templates = 3\nmax_entities = 6\n'
        'group_by = ["gdp_quantile"]\n'
    )
    assert run_cli("run", str(entity), "--db", str(metrics_db), "--quiet").returncode == 0
    refs = tmp_path / "refs.csv"
    refs.write_text(
        "item,group,share,count,group_total\nHoward University,Black,0.9,9000,100000\n"
        "MIT,Black,0.1,1000,100000\nHoward University,White,0.02,200,500000\nMIT,White,0.35,3500,500000\n"
    )
    assert run_cli("import", "references", str(refs), "--db", str(metrics_db), "--study", "unis").returncode == 0
    # The local servers' ports change from run to run: every stored label gets one fixed URL,
    # so the snapshots stay still.
    with sqlite3.connect(metrics_db) as conn:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for column in [c[1] for c in conn.execute(f"PRAGMA table_info({table})") if c[1] in ("model", "spec")]:
                conn.execute(
                    f"UPDATE {table} SET {column} = 'openai:m@http://gpu1:8000/v1' WHERE {column} LIKE 'openai:m@http://127.0.0.1:%'"
                )
    return metrics_db


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("section", ["coldstart-table", "identity-table", "entity-table"])
def test_snapshot_each_methods_metrics_section(snap_compare, every_method_db, size, section):
    """The Metrics screen scrolled to each method's section (ChoiceEval's opens the screen)."""

    async def go(pilot):
        await pilot.press("2")
        await _settle(pilot)
        title = pilot.app.screen.query_one(f"#{section}-title")
        title.scroll_visible(top=True, animate=False)
        await _settle(pilot)

    assert snap_compare(WorkbenchApp(every_method_db), terminal_size=size, run_before=go)


def test_design_verify_edit_save_and_generate_by_keys(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=3, name="d")
    study.write_text(study.read_text() + '\n[[topics]]\nname = "airlines"\ngenerate = 2\n')
    db = tmp_path / "audit.db"

    async def scenario():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#questions-table").row_count == 3)
            await pilot.press("down", "v")  # verify the second question
            assert await wait_for(
                pilot,
                lambda: (
                    rows(db, "SELECT text FROM questions WHERE verified = 1")
                    == [("Which brand of item number 1 would you recommend?",)]
                ),
            )
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")
            await pilot.press("ctrl+u", *"Which brand of gadget do you trust?", "enter")
            assert await wait_for(
                pilot, lambda: ("Which brand of gadget do you trust?",) in rows(db, "SELECT text FROM questions")
            )
            await pilot.press("w")
            assert await wait_for(pilot, lambda: Path(f"{study}.bak").exists())
            await pilot.press("g")  # generate questions for "airlines": they fill in
            assert await wait_for(
                pilot, lambda: app.screen.query_one("#questions-table").row_count == 3 + 2, timeout=30
            )
            await pilot.press("t")  # test the model: the fake server answers
            assert await wait_for(
                pilot, lambda: "ok" in str(app.screen.query_one("#models-table").get_row_at(0)[1]), timeout=30
            )

    asyncio.run(scenario())
    saved = study.read_text()
    # The edited question (the verified second one) is saved with its new wording.
    assert "Which brand of gadget do you trust?" in saved and "item number 1" not in saved
    assert "item number 0" in saved and "item number 2" in saved
    assert rows(db, "SELECT text FROM questions WHERE verified = 1") == [("Which brand of gadget do you trust?",)]
    assert Path(f"{study}.bak").exists()
    # The saved file loads, and keeps the edit when read again.
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0 and ": 5 requests" in out.stdout  # 3 file questions + 2 generated


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_design_screen(snap_compare, tmp_path, size):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=4, name="d")

    async def go(pilot):
        await pilot.press("3")
        await _settle(pilot)

    assert snap_compare(WorkbenchApp(tmp_path / "audit.db", study), terminal_size=size, run_before=go)


def test_design_edits_clusters_and_models_then_saves(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=2, name="d")
    db = tmp_path / "audit.db"

    async def scenario():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#questions-table").row_count == 2)
            await pilot.press("a")  # a question for the highlighted cluster
            assert await on_screen(pilot, "EditText")
            await pilot.press(*"What is the best budget tablet?", "enter")
            assert await wait_for(pilot, lambda: app.screen.query_one("#questions-table").row_count == 3)
            app.screen.query_one("#design-tabs").active = "tab-clusters"
            await pilot.pause()
            app.screen.query_one("#clusters-table").focus()
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")
            await pilot.press("ctrl+u", *"Counts every cent.", "enter")
            assert await on_screen(pilot, "DesignScreen")
            app.screen.query_one("#design-tabs").active = "tab-models"
            await pilot.pause()
            app.screen.query_one("#models-table").focus()
            await pilot.press("a")
            assert await on_screen(pilot, "EditText")
            await pilot.press(*"not a spec", "enter")
            assert await on_screen(pilot, "ErrorModal")
            assert "Not a model spec" in str(app.screen.query_one("Static").render())  # the title
            assert "model spec 'not a spec': expected" in str(app.screen.query_one("#error-message").render())
            await pilot.press("escape")
            assert await on_screen(pilot, "DesignScreen")
            await pilot.press("a")
            assert await on_screen(pilot, "EditText")
            await pilot.press(*"llama:default,temperature=0.2", "enter")
            assert await wait_for(pilot, lambda: app.screen.query_one("#models-table").row_count == 2)
            await pilot.press("n")  # a new topic, its questions to be generated
            assert await on_screen(pilot, "EditText")
            await pilot.press(*"tablets", "enter")
            assert await wait_for(pilot, lambda: "per cluster" in str(app.screen.query_one("Label").render()))
            await pilot.press("ctrl+u", "4", "enter")
            assert await on_screen(pilot, "DesignScreen")
            await pilot.press("w")
            assert await wait_for(pilot, lambda: Path(f"{study}.bak").exists())

    asyncio.run(scenario())
    from workbench.methods.study_files import load_study

    saved = load_study(study)
    assert saved.clusters[0].description == "Counts every cent."
    assert [str(m) for m in saved.models] == ["openai:m@http://127.0.0.1:9/v1", "llama:default,temperature=0.2"]
    assert "What is the best budget tablet?" in [q.text for q in saved.questions]
    assert saved.generate == {"tablets": 4}


def test_design_with_unsaved_changes_asks_before_leaving_or_quitting(tmp_path):
    """A cluster definition edited but not saved (w): going to another screen or quitting
    asks first; cancel stays, discard goes back to the study file, save writes it."""
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=2, name="d")
    db = tmp_path / "audit.db"
    original = study.read_text()

    def definition(app):
        return str(app.screen.query_one("#clusters-table").get_row_at(0)[1])

    async def edit_definition(app, pilot, text):
        await pilot.press("3")
        assert await wait_for(pilot, lambda: app.screen.query_one("#questions-table").row_count == 2)
        await pilot.press("right_square_bracket", "e")  # the clusters tab, its first definition
        assert await on_screen(pilot, "EditText")
        await pilot.press("ctrl+u", *text, "enter")
        assert await wait_for(pilot, lambda: definition(app) == text)

    async def cancel_then_discard():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(80, 24)) as pilot:
            await edit_definition(app, pilot, "Thrifty.")
            screen = app.screen
            await pilot.press("1")
            assert await on_screen(pilot, "ConfirmUnsaved")
            assert "the study file" in str(app.screen.query_one("Static").render())
            await pilot.press("escape")  # cancel: the edit is still there, on the same screen
            assert await on_screen(pilot, "DesignScreen")
            assert app.screen is screen and definition(app) == "Thrifty." and screen.unsaved
            await pilot.press("1")
            assert await on_screen(pilot, "ConfirmUnsaved")
            await pilot.press("d")  # discard: the Run screen, and the study as its file has it
            assert await on_screen(pilot, "RunScreen")
            await pilot.press("3")
            assert await wait_for(pilot, lambda: definition(app) == "Wants value.")
            assert not screen.unsaved
            await edit_definition(app, pilot, "Thrifty.")
            await pilot.press("q")
            assert await on_screen(pilot, "ConfirmUnsaved")
            await pilot.press("d")  # discard on quitting: quits
            assert await wait_for(pilot, lambda: not app.is_running)

    async def save_on_leaving():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(80, 24)) as pilot:
            await edit_definition(app, pilot, "Frugal.")
            await pilot.press("2")
            assert await on_screen(pilot, "ConfirmUnsaved")
            await pilot.press("s")
            assert await on_screen(pilot, "MetricsScreen")

    asyncio.run(cancel_then_discard())
    assert study.read_text() == original
    asyncio.run(save_on_leaving())
    from workbench.methods.study_files import load_study

    assert load_study(study).clusters[0].description == "Frugal."


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("key", ["4", "5", "4b", "4c"])
def test_snapshot_review_and_entities(snap_compare, metrics_db, key, size):
    """Review, Entities, and the two review sub-screens (probe labels, catalog matches), each
    offered where the store holds a study of its method (empty here: the screen's empty state)."""
    from workbench.store.db import opened
    from workbench.store.requests.studies import ensure_study

    method = {"4b": "identity", "4c": "coldstart"}.get(key)
    if method is not None:
        with opened(metrics_db) as conn:
            ensure_study(conn, method, method)

    async def go(pilot):
        for k in key:
            await pilot.press(k)
            await _settle(pilot)

    assert snap_compare(WorkbenchApp(metrics_db, reviewer="reviewer"), terminal_size=size, run_before=go)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("done, total", [(1, 8), (4, 8), (111, 162), (8, 8)])
def test_progress_bar_fill_matches_done_over_total(size, done, total):
    """The bar is as full as done/total, never clipped (it once showed 1/8 as a quarter)."""
    from textual.app import App
    from textual.widgets import ProgressBar
    from textual.widgets._progress_bar import Bar

    from workbench.pipeline.run_types import Progress
    from workbench.widgets.progress import ProgressRow

    class One(App):
        def compose(self):
            yield ProgressRow("model answer", id="row")

    async def scenario():
        app = One()
        async with app.run_test(size=size) as pilot:
            row = app.query_one("#row", ProgressRow)
            row.show(
                Progress(
                    "m",
                    "answer",
                    done=done,
                    failed=0,
                    pending=total - done,
                    running=0,
                    tokens=0,
                    elapsed_s=1.0,
                    answered_this_run=done,
                )
            )
            await pilot.pause()
            outer, bar = row.query_one(ProgressBar), row.query_one(Bar)
            # The bar spans its box exactly (clipped, 1/8 looked like 1/4), at the right fraction.
            assert bar.region.right <= outer.region.right and bar.size.width == outer.size.width
            assert outer.percentage == pytest.approx(done / total)

    asyncio.run(scenario())


def test_the_palette_holds_every_key_of_the_screen_on_view(metrics_db):
    from textual.actions import parse

    from workbench.screens.entities import EntitiesScreen

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            assert await wait_for(pilot, lambda: isinstance(app.screen, EntitiesScreen))
            titles = [c.title for c in app.get_system_commands(app.screen)]
            # Every key of the screen, each with its key (region, redo, drop...); of the keys bound
            # once per view (mark, region, search, the way back) the suggestions' binding is on offer.
            offered = [b for b in EntitiesScreen.BINDINGS if app.screen.check_action(*parse(b.action)[1:])]
            assert {b.key for b in offered} == {b.key for b in EntitiesScreen.BINDINGS}
            for binding in offered:
                assert f"Entities: {binding.description} ({binding.key})" in titles
            assert "Entities: Suggestions (v)" not in titles  # the entity list's way back, not on view
            await pilot.press("ctrl+p")
            await pilot.press(*"region")
            assert await wait_for(
                pilot,
                lambda: (
                    "Entities: Region (g)" in str(app.screen.query_one("CommandList").get_option_at_index(0).prompt)
                ),
            )
            await pilot.press("escape", "2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            titles = [c.title for c in app.get_system_commands(app.screen)]
            # The ChoiceEval filters are on offer; cold-start's divergence is not (no cold-start numbers).
            assert "Metrics: Topic (t)" in titles and "Metrics: Cluster (k)" in titles
            assert not any("Divergence" in t for t in titles)

    asyncio.run(scenario())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_template_editor(snap_compare, tmp_path, size):
    """The Design screen of an identity study (its template)."""
    study = tmp_path / "id.toml"
    study.write_text('name = "unis"\nmethod = "identity"\nmodels = ["llama:default"]\ntemplate = "universities"\n')

    async def go(pilot):
        await pilot.press("3")
        await _settle(pilot)

    assert snap_compare(WorkbenchApp(tmp_path / "t.db", study), terminal_size=size, run_before=go)


def test_design_tabs_by_keys_and_an_information_panel_for_other_methods(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=2, name="d")
    (tmp_path / "cat.csv").write_text("item\nAlpha\nBeta\n")
    other = tmp_path / "c.toml"
    other.write_text('name = "c"\nmethod = "coldstart"\nmodels = ["llama:default"]\ncatalog = "cat.csv"\nk = 2\n')

    async def tabs():
        app = WorkbenchApp(tmp_path / "a.db", study)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query_one("#questions-table").row_count == 2)
            await pilot.press("right_square_bracket")  # `]`: the next tab, and the full definition below it
            assert app.screen.query_one("#design-tabs").active == "tab-clusters"
            assert await wait_for(
                pilot, lambda: "Budget-Conscious" in str(app.screen.query_one("#cluster-detail").render())
            )
            await pilot.press("right_square_bracket", "right_square_bracket")
            assert app.screen.query_one("#design-tabs").active == "tab-questions"

    async def other_method():
        app = WorkbenchApp(tmp_path / "b.db", other)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("3")
            assert await wait_for(
                pilot, lambda: "coldstart study" in str(app.screen.query_one("#design-info").render())
            )
            assert type(app.screen).__name__ == "DesignScreen"  # no modal in the way
            await pilot.press("2")
            assert app.current_mode == "metrics"

    asyncio.run(tabs())
    asyncio.run(other_method())


def test_help_opens_at_the_keys_of_the_screen_on_view(metrics_db):
    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5", "f1")
            assert await on_screen(pilot, "HelpScreen")
            scroll = app.screen.query_one("VerticalScroll")
            assert await wait_for(pilot, lambda: scroll.scroll_y > 0)  # not at the top: at Entities
            assert "Entities" in str(app.screen.query_one("#help-text").render())

    asyncio.run(scenario())


def test_the_app_without_a_terminal_says_so_in_one_line(tmp_path):
    """`workbench tui` with its output piped (no terminal) would draw into the pipe and wait for
    keys forever: refused in one line, naming what gives the same results."""
    from helpers import run_cli

    db = tmp_path / "a.db"
    assert run_cli("import", "mentions", str(_lists_csv(tmp_path)), "--db", str(db), "--study", "s").returncode == 0
    out = run_cli("tui", "--db", str(db))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and "the app needs a terminal" in out.stderr


def _lists_csv(tmp_path):
    path = tmp_path / "lists.csv"
    path.write_text("model,topic,cluster,question_id,repetition,rank,entity\nm,shoes,Tech Pro,q1,1,1,Nike\n")
    return path
