"""A resumed run of an unchanged study does not plan again; a change plans again what it touches."""

from __future__ import annotations

from conftest import rows
from openai_server import ServerConfig
from test_methods import EchoMethod

from workbench import methods
from workbench.cli import main


class CountingEcho(EchoMethod):
    """The toy method, counting how often its plan is built (the work a resume should skip)."""

    name = "counting-echo"
    plans = 0

    def load(self, data, path):
        study = super().load(data, path)
        study.method = self.name
        return study

    def plan(self, study, model_identity, params, context):
        type(self).plans += 1
        return super().plan(study, model_identity, params, context)


def _study(path, url, words):
    path.write_text(
        f'name = "c"\nmethod = "counting-echo"\nmodels = ["openai:m@{url}"]\nwords = {words!r}\n'.replace("'", '"')
    )
    return path


def test_a_resume_asks_without_planning_and_an_edit_plans_again(tmp_path, fake_server, capsys):
    server = fake_server(ServerConfig(reply_text="ok"))
    methods.register(CountingEcho)
    try:
        study, db = _study(tmp_path / "c.toml", server.base_url, ["a", "b", "c"]), tmp_path / "c.db"
        assert main(["run", str(study), "--db", str(db), "--quiet", "--limit", "1"]) == 0
        assert CountingEcho.plans == 1 and "3 requests (3 newly planned)" in capsys.readouterr().out
        assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0  # the resume
        out = capsys.readouterr().out
        assert CountingEcho.plans == 1, "an unchanged study was planned again"
        assert "3 requests (0 newly planned)" in out and "All 3 requests answered" in out
        _study(study, server.base_url, ["a", "b", "c", "d"])  # an edit
        assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
        out = capsys.readouterr().out
        assert CountingEcho.plans == 2 and "4 requests (1 newly planned)" in out
        assert rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'done'") == [(4,)]
        assert main(["run", str(study), "--db", str(db), "--quiet", "--model", f"openai:other@{server.base_url}"]) == 0
        assert CountingEcho.plans == 3, "another model has no plan yet"
    finally:
        methods.unregister("counting-echo")


def test_questions_imported_since_the_plan_are_asked_on_resume(tmp_path, fake_server, capsys):
    """ChoiceEval's plan reads the store's questions: an import between runs plans again."""
    server = fake_server(ServerConfig())
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "s"\nmethod = "choice"\nseed = 1\nrepetitions = 1\n'
        f'models = ["openai:m@{server.base_url}"]\n[extraction]\nmethod = "list"\n'
        '[[topics]]\nname = "shoes"\nquestions = { us = ["Which running shoe brand?"] }\n'
        '[[clusters]]\nname = "us"\ndescription = "people in the US"\n'
    )
    db = tmp_path / "s.db"
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    assert "1 request (1 newly planned)" in capsys.readouterr().out
    bank = tmp_path / "more.csv"
    bank.write_text("topic,cluster,question\nshoes,us,Which trail shoe brand?\n")
    assert main(["import", "questions", str(bank), "--db", str(db), "--study", "s"]) == 0
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    assert "2 requests (1 newly planned)" in capsys.readouterr().out


class ContextCounting(CountingEcho):
    """The toy method with a planning context read from the store, counting the reads."""

    name = "context-echo"
    reads = 0
    plans = 0  # its own count, not the parent's

    def plan_context(self, conn, study, study_id):
        if conn is None:
            return None  # the count before anything is stored
        type(self).reads += 1
        return {"words": sorted(study.words)}


def test_a_run_reads_the_planning_context_once(tmp_path, fake_server, capsys):
    """One `workbench run` reads a study's planning context once, the resume's check of the
    stored plan included (it was read twice: for that check, then again to plan)."""
    server = fake_server(ServerConfig(reply_text="ok"))
    methods.register(ContextCounting)
    try:
        study, db = tmp_path / "c.toml", tmp_path / "c.db"
        study.write_text(
            _study(study, server.base_url, ["a", "b"]).read_text().replace("counting-echo", "context-echo")
        )
        assert main(["run", str(study), "--db", str(db), "--quiet", "--limit", "1"]) == 0
        assert ContextCounting.reads == 1
        assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0  # the resume: the check reads it
        out = capsys.readouterr().out
        assert ContextCounting.reads == 2 and "2 requests (0 newly planned)" in out
        # the planned model and a new one: the check reads it for the first (unchanged), and the
        # second is planned with what the check read (it was read again)
        models = ["--model", f"openai:m@{server.base_url}", "--model", f"openai:other@{server.base_url}"]
        assert main(["run", str(study), "--db", str(db), "--quiet", *models]) == 0
        assert "2 requests (2 newly planned)" in capsys.readouterr().out
        assert ContextCounting.reads == 3 and ContextCounting.plans == 2
    finally:
        methods.unregister("context-echo")
