"""The method registry: the pipeline runs any registered method without knowing its name."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from conftest import rows
from openai_server import ServerConfig

from workbench import methods
from workbench.cli import main
from workbench.keys import request_key
from workbench.store.queue import PlannedRequest
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
        stages.conn.execute("CREATE TABLE IF NOT EXISTS echo_counts (study_id INTEGER, answered INTEGER)")
        answered = stages.conn.execute(
            "SELECT COUNT(*) FROM requests r JOIN responses p ON p.request_key = r.key WHERE r.study_id = ?",
            (stages.study_id,),
        ).fetchone()[0]
        stages.conn.execute("INSERT INTO echo_counts VALUES (?, ?)", (stages.study_id, answered))

    def print_tables(self, conn, study, records, console):
        for record in records:
            console.print(f"{record['study']}: {record['value']} answers echoed")

    def metric_records(self, conn, study, convention="paper"):
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'echo_counts'").fetchone():
            return []
        return [
            {"study": name, "metric": "echoed", "value": answered}
            for name, answered in conn.execute(
                "SELECT s.name, c.answered FROM echo_counts c JOIN studies s ON s.id = c.study_id "
                "WHERE s.name = COALESCE(?, s.name)",
                (study,),
            )
        ]


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
    assert "e: 3 answers echoed" in capsys.readouterr().out
    assert json.loads(rows(db, "SELECT spec_json FROM studies")[0][0])["words"] == ["alpha", "beta", "gamma"]
    _echo_on_the_metrics_screen(db)


def _echo_on_the_metrics_screen(db):
    """A method without a section of its own still shows its numbers in the app."""
    import asyncio

    from helpers import table_text, wait_for

    from workbench.app import WorkbenchApp

    async def scenario():
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


def test_the_builtin_methods_are_registered():
    assert {"choice", "coldstart", "identity", "entity"} <= set(methods.names())
    for name in ("choice", "coldstart", "identity", "entity"):
        assert isinstance(methods.get(name), methods.Method)


def test_no_method_name_is_tested_outside_its_package():
    """The pipeline, the store and the spec loader dispatch through the registry."""
    import re

    root = Path(__file__).resolve().parent.parent
    pattern = re.compile(r"method\s*[!=]=\s*[\"'](choice|coldstart|identity|entity)[\"']")
    offenders = [
        f"{p.relative_to(root)}"
        for p in (root / "workbench").rglob("*.py")
        if "methods" not in p.parts and pattern.search(p.read_text())
    ]
    assert offenders == []
