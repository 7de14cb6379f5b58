"""A study (or the command line) naming one model twice: two entries that differ only in
sampling options are one model in the store, so the later entry's options replaced the
earlier's and one model's answers were counted twice. Refused before anything is asked."""

from __future__ import annotations

import re

import pytest
from helpers import run_cli, write_study

from workbench.engines.resolve import default_model_path

TWICE = '["llama:default", "llama:default,temperature=0.1"]'


def test_the_same_model_twice_in_a_study_is_refused_naming_both(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["llama:default", "llama:default,temperature=0.1"], questions=2)
    db = tmp_path / "ed.db"
    result = run_cli("run", study, "--db", db)
    assert result.returncode == 2
    message = result.stderr.strip()
    assert "\n" not in message
    assert "key 'models'" in message
    assert "'llama:default'" in message and "'llama:default,temperature=0.1'" in message
    assert "the same model twice" in message
    assert "requests" not in result.stdout  # nothing planned, nothing asked
    assert not db.exists()


@pytest.mark.parametrize("method", ["choice", "coldstart", "identity", "entity"])
def test_every_method_refuses_the_same_model_twice(tmp_path, method):
    study = tmp_path / f"{method}.toml"
    assert run_cli("init", method, study).returncode == 0
    text = re.sub(r"(?m)^models = .*$", f"models = {TWICE}", study.read_text(), count=1)
    study.write_text(text)
    result = run_cli("plan", study)
    assert result.returncode == 2, result.stdout
    assert "the same model twice" in result.stderr
    assert "'llama:default,temperature=0.1'" in result.stderr


def test_a_served_model_twice_is_told_to_take_an_identity(tmp_path):
    url = "http://127.0.0.1:9/v1"
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{url},seed=1", f"openai:m@{url},seed=2"], questions=2)
    result = run_cli("run", study, "--db", tmp_path / "ed.db")
    assert result.returncode == 2
    assert "identity=NAME" in result.stderr
    # Named apart, the same served model is audited twice (refused here only for the dead URL).
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:m@{url},seed=1", f"openai:m@{url},seed=2,identity=m-seed2"], questions=2
    )
    result = run_cli("plan", study)
    assert result.returncode == 0, result.stderr
    assert "m-seed2" in result.stdout


def test_one_file_named_two_ways_is_the_same_model(tmp_path):
    path = default_model_path()[0]
    study = write_study(tmp_path / "s.toml", models=["llama:default", f"llama:{path},temperature=0.1"], questions=2)
    db = tmp_path / "ed.db"
    result = run_cli("run", study, "--db", db)
    assert result.returncode == 2
    assert "the same model twice" in result.stderr and str(path) in result.stderr
    assert not db.exists()  # the refusal leaves no empty new database behind


def test_model_given_twice_on_the_command_line_is_refused(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["llama:default"], questions=2)
    result = run_cli(
        "run", study, "--db", tmp_path / "ed.db", "--model", "llama:default", "--model", "llama:default,seed=4"
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: --model: entries 1 ('llama:default') and 2")
    assert "requests" not in result.stdout
