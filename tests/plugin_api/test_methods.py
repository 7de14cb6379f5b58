"""The method registry: the pipeline runs any registered method without knowing its name."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from conftest import rows
from openai_server import ServerConfig
from textual.screen import Screen
from textual.widgets import Static

from workbench import methods
from workbench.asking.keys import request_key
from workbench.cli import main
from workbench.files.csv_input import ImportError_
from workbench.store.requests.queue import PlannedRequest
from workbench.studies.spec import Where, expect, read_generation, read_models, read_name


@dataclass
class EchoStudy:
    name: str
    path: str
    models: list
    generation: dict
    words: list[str]
    method: str = "echo"
    questions: list = field(default_factory=list)

    def to_json(self):
        return {"name": self.name, "method": self.method, "words": self.words}


class EchoMethod:
    """A toy method: ask the model to repeat each word, then count the answers that contain it."""

    name = "echo"
    first_stage = "answer"
    summary = "a toy: repeat each word"
    # Its own tables, made by the store when it opens (each migration once, in order).
    migrations = (
        ("counts", "CREATE TABLE echo_counts (study_id INTEGER, answered INTEGER)"),
        ("words", "CREATE TABLE echo_words (study TEXT, word TEXT)"),
    )

    def load(self, data, path: Path):
        where = Where(str(path))
        words = expect(where.child("words"), data.get("words"), list, "a list of words")
        return EchoStudy(
            read_name(where, data, path.stem),
            str(path),
            read_models(where, data),
            read_generation(where.child("generation"), data.get("generation", {}), {"max_tokens": 8}),
            words,
        )

    def plan_params(self, study, spec):
        return dict(study.generation)

    def plan_context(self, conn, study, study_id):
        return None

    def plan(self, study, model_identity, params, context):
        for word in study.words:
            payload = {"messages": [{"role": "user", "content": f"Repeat: {word}"}], "params": params}
            yield PlannedRequest(
                request_key(stage="answer", model_identity=model_identity, payload=payload, repetition=None),
                "answer",
                payload,
            )

    def helper_model(self, study):
        return None

    async def after_answers(self, stages) -> None:
        answered = stages.conn.execute(
            "SELECT COUNT(*) FROM requests r JOIN responses p ON p.request_key = r.key WHERE r.study_id = ?",
            (stages.study_id,),
        ).fetchone()[0]
        stages.conn.execute("INSERT INTO echo_counts VALUES (?, ?)", (stages.study_id, answered))

    def metric_panels(self, records, choices):
        """Its section of the Metrics screen (and of `workbench metrics`, which has no
        `print_tables` of its own here): one table."""
        rows = [[r["study"], str(r["value"])] for r in records]
        return [methods.Panel("echo-panel", "Words echoed back", table=(["study", "answers echoed"], rows))]

    def metric_records(self, conn, study, convention="paper"):
        return [
            {"study": name, "metric": "echoed", "value": answered}
            for name, answered in conn.execute(
                "SELECT s.name, c.answered FROM echo_counts c JOIN studies s ON s.id = c.study_id "
                "WHERE s.name = COALESCE(?, s.name)",
                (study,),
            )
        ]

    # What a method adds to `workbench import` / `export` and to the app's Design tab.
    @property
    def import_kinds(self):
        upper = methods.Option("--upper", "echo-words: store the words in capitals", flag_only=True)
        return (methods.ImportKind("echo-words", "more words to echo, one per line", _import_words, (upper,)),)

    @property
    def export_kinds(self):
        return (methods.ExportKind("echo-words", "echo-words (the imported words)", _word_records),)

    @property
    def design_screen(self):
        return EchoDesign


def _import_words(conn, path, options):
    words = [w.strip() for w in Path(path).read_text("utf-8").splitlines() if w.strip()]
    if not words:
        raise ImportError_(f"{path}: no words")
    words = [w.upper() for w in words] if options.get("upper") else words
    with conn:
        conn.executemany("INSERT INTO echo_words VALUES (?, ?)", [(options["study"], w) for w in words])
    return [f"Imported {len(words)} words into {options['study']}."]


def _word_records(conn, study):
    found = conn.execute("SELECT study, word FROM echo_words WHERE study = COALESCE(?, study)", (study,))
    return [{"study": s, "word": w} for s, w in found], ["study", "word"]


class EchoDesign(Screen):
    """The toy's Design tab: the study's words."""

    def compose(self):
        import tomllib

        words = tomllib.loads(Path(self.app.study_path).read_text())["words"]
        yield Static("words to echo: " + ", ".join(words), id="echo-design")


def test_a_registered_method_runs_through_the_pipeline(tmp_path, fake_server, capsys):
    server = fake_server(ServerConfig(reply_text="hello"))
    methods.register(EchoMethod)
    try:
        _run_echo(tmp_path, server, capsys)
    finally:
        methods.unregister("echo")


def _run_echo(tmp_path, server, capsys):
    assert "echo" in methods.names() and isinstance(methods.get("echo"), methods.Method)
    study = tmp_path / "echo.toml"
    study.write_text(
        f'name = "e"\nmethod = "echo"\nmodels = ["openai:m@{server.base_url}"]\nwords = ["alpha", "beta", "gamma"]\n'
    )
    db = tmp_path / "e.db"
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    assert "All 3 requests answered" in capsys.readouterr().out
    assert rows(db, "SELECT answered FROM echo_counts") == [(3,)]
    assert main(["metrics", "--db", str(db), "--format", "json"]) == 0
    assert {"convention": "paper", "study": "e", "metric": "echoed", "value": 3} in json.loads(capsys.readouterr().out)
    assert main(["metrics", "--db", str(db)]) == 0
    printed = capsys.readouterr().out
    assert "Words echoed back" in printed and "answers echoed" in printed
    assert json.loads(rows(db, "SELECT spec_json FROM studies")[0][0])["words"] == ["alpha", "beta", "gamma"]
    _echo_on_the_metrics_screen(db)
    _echo_imports_and_exports_by_command(tmp_path, db, capsys)
    _echo_in_the_app(study, db, tmp_path)


def _echo_imports_and_exports_by_command(tmp_path, db, capsys):
    """The toy's import and export kinds are commands of their own, with help, options and refusals."""
    import pytest

    words = tmp_path / "words.txt"
    words.write_text("delta\nepsilon\n")
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    help_text = capsys.readouterr().out
    assert "echo-words  more words to echo, one per line" in help_text and "--upper" in help_text
    assert main(["import", "echo-words", str(words), "--db", str(db), "--study", "e", "--upper"]) == 0
    assert "Imported 2 words into e." in capsys.readouterr().out
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    assert main(["import", "echo-words", str(empty), "--db", str(db), "--study", "e"]) == 2
    assert "no words" in capsys.readouterr().err
    assert main(["export", "--db", str(db), "--what", "echo-words", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"study": "e", "word": "DELTA"}, {"study": "e", "word": "EPSILON"}]


def _echo_in_the_app(study, db, tmp_path):
    """The toy's Design tab, import and export dialogs in the app, by keys."""
    import asyncio

    from helpers import on_screen, settled, wait_for
    from textual.widgets import Select

    from workbench.app import WorkbenchApp

    words = tmp_path / "more.txt"
    words.write_text("zeta\n")
    out = tmp_path / "exported.csv"

    async def scenario():
        app = WorkbenchApp(db, study)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("3")
            assert await wait_for(pilot, lambda: app.screen.query("#echo-design"))
            assert "alpha, beta, gamma" in str(app.screen.query_one("#echo-design").render())
            app.action_import_file()
            assert await on_screen(pilot, "ImportDialog")
            assert await wait_for(pilot, lambda: app.screen.query("#import-file"))
            app.screen.query_one("#import-kind", Select).value = "echo-words"
            await pilot.pause()
            assert app.screen.query_one("#import-study").value == "e"  # the study the app was started with
            assert app.screen.query_one("#import-upper").display  # the kind's own option is on view
            await pilot.click("#import-file")
            await pilot.press(*str(words), "enter")
            assert await on_screen(pilot, "EchoDesign")
            await settled(pilot)
            assert rows(db, "SELECT word FROM echo_words WHERE word = 'zeta'") == [("zeta",)]
            app.action_export_file("echo-words")
            assert await on_screen(pilot, "ExportDialog")
            assert await wait_for(pilot, lambda: app.screen.query("#export-output"))
            field = app.screen.query_one("#export-output")
            assert field.value.endswith("e-echo-words.csv")  # proposed next to the database
            field.value = str(out)
            await pilot.press("enter")
            await settled(pilot)
            assert await wait_for(pilot, lambda: out.exists())
            assert out.read_text().splitlines() == ["study,word", "e,DELTA", "e,EPSILON", "e,zeta"]

    asyncio.run(scenario())


def _echo_on_the_metrics_screen(db):
    """A method without a section of its own still shows its numbers in the app."""
    import asyncio

    from helpers import table_text, wait_for

    from workbench.app import WorkbenchApp

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#echo-panel").row_count == 1)
            assert table_text(app, "#echo-panel") == [["e", "3"]]
            assert "Words echoed back" in str(app.screen.query_one("#echo-panel-title").render())

        methods.get("echo").metric_panels = None  # a method without a section of its own
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#echo-records").row_count == 1)
            header = [str(c.label) for c in app.screen.query_one("#echo-records").columns.values()]
            assert header[:3] == ["study", "metric", "value"]
            assert table_text(app, "#echo-records") == [["e", "echoed", "3"]]
            assert "a toy: repeat each word" in str(app.screen.query_one("#echo-records-title").render())

        # A plugin whose section breaks shows why, and the rest of the app goes on.
        def broken(records, choices):
            raise RuntimeError("no panels today")

        methods.get("echo").metric_panels = broken
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query("#echo-failed"))
            assert "no panels today" in str(app.screen.query_one("#echo-failed").render())
            await pilot.press("1")
            assert await wait_for(pilot, lambda: app.screen.query("#status-table"))

    asyncio.run(scenario())


def test_every_method_package_is_registered():
    """Each package folder under workbench/methods/ is a method of that name, registered by its
    own package: a new folder needs no list of names anywhere."""
    folders = sorted(p.name for p in Path(methods.__file__).parent.iterdir() if (p / "__init__.py").exists())
    assert len(folders) >= 4 and list(methods.BUILTIN) == folders
    for name in folders:
        assert name in methods.names() and isinstance(methods.get(name), methods.Method)
        assert type(methods.get(name)).__module__.startswith(f"workbench.methods.{name}")


def test_no_method_name_is_tested_outside_its_package():
    """The pipeline, the store and the spec loader dispatch through the registry."""
    import re

    root = Path(__file__).resolve().parents[2]
    names = "|".join(map(re.escape, methods.names()))
    pattern = re.compile(rf"method\s*[!=]=\s*[\"']({names})[\"']")
    offenders = [
        f"{p.relative_to(root)}"
        for p in (root / "workbench").rglob("*.py")
        if "methods" not in p.parts and pattern.search(p.read_text())
    ]
    assert offenders == []
