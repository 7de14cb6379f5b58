"""Undo and redo of entity, probe-label and catalog-match decisions take back a person's
decision however the name is written: `--who ANN`, `--who ann` and `ann` with a zero-width
space are one reviewer (store/review/reviewer_names.py). They compared names exactly, so
`entities undo --who ANN` said "Nothing of ANN's to undo" after Ann's merge."""

from __future__ import annotations

import json

from conftest import rows
from helpers import run_cli
from openai_server import ServerConfig
from test_coldstart import write_responses
from test_decisions import imported


def test_an_entity_decision_is_undone_and_redone_under_another_spelling_of_its_reviewer(tmp_path):
    db = imported(tmp_path, {("gpt", "q1", 1): ["Nike", "NIKE Inc", "Adidas"], ("gpt", "q2", 1): ["Puma"]})
    assert run_cli("entities", "region", "Puma", "--region", "europe", "--db", str(db), "--who", "bo").returncode == 0
    merged = run_cli("entities", "merge", "Nike", "NIKE Inc", "--db", str(db), "--who", "Ann")
    assert merged.returncode == 0, merged.stderr
    undone = run_cli("entities", "undo", "--db", str(db), "--who", "ANN")
    assert undone.returncode == 0 and "Undo: merge" in undone.stdout, undone.stdout + undone.stderr
    assert rows(db, "SELECT COUNT(DISTINCT entity_id) FROM aliases WHERE surface_key IN ('nike', 'nike inc')") == [(2,)]
    assert rows(db, "SELECT region FROM entities WHERE name = 'Puma'") == [("Europe",)]  # bo's: untouched
    redone = run_cli("entities", "redo", "--db", str(db), "--who", "ann\u200b")
    assert redone.returncode == 0 and "Redo: merge" in redone.stdout, redone.stdout + redone.stderr
    assert rows(db, "SELECT COUNT(DISTINCT entity_id) FROM aliases WHERE surface_key IN ('nike', 'nike inc')") == [(1,)]
    # A new decision under a third spelling ends the person's redo chain, as under one spelling.
    assert run_cli("entities", "undo", "--db", str(db), "--who", "ＡＮＮ").returncode == 0
    assert (
        run_cli("entities", "region", "Adidas", "--region", "europe", "--db", str(db), "--who", "aNn").returncode == 0
    )
    assert "Nothing of Ann's to redo" in run_cli("entities", "redo", "--db", str(db), "--who", "Ann").stdout
    assert "Nothing of cy's to undo" in run_cli("entities", "undo", "--db", str(db), "--who", "cy").stdout


def test_a_catalog_match_correction_is_undone_under_another_spelling(tmp_path):
    (tmp_path / "cat.csv").write_text("title\nThe Matrix\nOldboy\n")
    responses = tmp_path / "responses.csv"
    write_responses(responses, [["m", 0, "gender", "a girl", "1. Matrix Sequel Thing\n2. Oldboy"]])
    db = str(tmp_path / "c.db")
    loaded = run_cli(
        "import", "responses", str(responses), "--catalog", str(tmp_path / "cat.csv"), "--db", db, "--study", "cs"
    )
    assert loaded.returncode == 0, loaded.stderr
    key = "m/0/gender/a girl/1"
    corrected = run_cli(
        "review", "match", "--db", db, "--study", "cs", "--key", key, "--item", "The Matrix", "--who", "Ana"
    )
    assert corrected.returncode == 0 and "-> The Matrix" in corrected.stdout, corrected.stderr
    undone = run_cli("review", "undo-match", "--db", db, "--study", "cs", "--who", "ANA")
    assert "back to not in catalog" in undone.stdout, undone.stdout + undone.stderr
    assert "Nothing to undo" in run_cli("review", "undo-match", "--db", db, "--study", "cs", "--who", "ana").stdout


def test_a_probe_label_is_undone_under_another_spelling(tmp_path, fake_server):
    audited = fake_server(ServerConfig(reply_text='[{"university": "MIT", "explanation": "strong STEM"}]'))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{audited.base_url}"]\n'
        'template = "universities"\nper_group = 2\n'
    )
    db = tmp_path / "id.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    listed = json.loads(run_cli("review", "probes", "--db", str(db), "--study", "unis", "--format", "json").stdout)
    target = listed[0]
    labelled = run_cli(
        "review", "label", "--db", str(db), "--study", "unis", "--key", target["request_key"][:12],
        "--label", "admits", "--who", "Ana",
    )  # fmt: skip
    assert labelled.returncode == 0, labelled.stderr
    undone = run_cli("review", "undo-label", "--db", str(db), "--study", "unis", "--who", "ａｎａ")
    assert f"Took back admits on {target['request_key'][:12]}" in undone.stdout, undone.stdout + undone.stderr
    assert rows(db, "SELECT probe_label_source FROM identity_outputs WHERE request_key = ?", target["request_key"]) == [
        (target["source"],)
    ]


def test_the_apps_history_of_own_entity_decisions_lists_every_spelling(tmp_path):
    """The Entities screen's history (what its undo takes back) lists a person's decisions
    however each was signed."""
    import sqlite3

    from workbench.store.entities.listing import own_decisions

    db = imported(tmp_path, {("gpt", "q1", 1): ["Nike", "NIKE Inc", "Adidas", "Puma"]})
    assert run_cli("entities", "merge", "Nike", "NIKE Inc", "--db", str(db), "--who", "Ann").returncode == 0
    assert run_cli("entities", "region", "Puma", "--region", "europe", "--db", str(db), "--who", "bo").returncode == 0
    assert (
        run_cli("entities", "region", "Adidas", "--region", "europe", "--db", str(db), "--who", "ANN").returncode == 0
    )
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        mine = own_decisions(conn, "ann")
    assert [(d["action"], d["who"]) for d in mine] == [("region", "ANN"), ("merge", "Ann")]
