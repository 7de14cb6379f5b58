"""A search counts only what is asked now: after an edit of the study and a run, the answers
the edit superseded stay stored (for the log and an edit undone) but no search counts them,
as no metric reads them (issue: `review lists --search` said 36 answers matched for 14 lists)."""

import json

from helpers import run_cli, write_study
from openai_server import ServerConfig


def _matching(db, query):
    out = run_cli(
        "review", "lists", "--db", str(db), "--study", "t", "--search", query, "--format", "json", "--limit", "100"
    )
    assert out.returncode == 0, out.stderr
    page = json.loads(out.stdout)
    return page["answers_matching"], len(page["lists"])


def test_a_temperature_edit_then_a_run_counts_what_a_fresh_run_counts(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    models = [f"openai:m@{server.base_url}"]
    study = write_study(tmp_path / "s.toml", models=models, questions=6, repetitions=2)
    db = tmp_path / "edited.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    write_study(tmp_path / "s.toml", models=models, questions=6, repetitions=2, temperature=0.2)
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    fresh = tmp_path / "fresh.db"
    assert run_cli("run", str(study), "--db", str(fresh), "--quiet").returncode == 0

    answers, lists = _matching(db, "picks")
    assert (answers, lists) == _matching(fresh, "picks") == (12, 12)
    # The table says the same count as the lists it pages through.
    table = " ".join(
        run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", "picks", "--limit", "5").stdout.split()
    )
    assert "more: --offset 5; 12 answers in the store match)" in table
