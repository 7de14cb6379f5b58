"""The example study of every method in assets/studies/: each loads, says what it does in its
comments, and runs on the bundled model (a few requests each: `--limit`)."""

import json
from importlib.resources import files
from pathlib import Path

import pytest
from conftest import rows
from helpers import run_cli

from workbench.studies.spec import load_study

STUDIES = Path(str(files("workbench.assets").joinpath("studies")))
EXAMPLES = {
    "choice": STUDIES / "demo.toml",
    "coldstart": STUDIES / "coldstart" / "movies.toml",
    "identity": STUDIES / "identity" / "universities.toml",
    "entity": STUDIES / "entity" / "countries_urgency.toml",
}


def test_every_method_has_a_commented_example():
    from workbench import methods

    assert set(EXAMPLES) == set(methods.names())
    for method, path in EXAMPLES.items():
        study = load_study(str(path))
        assert study.method == method
        text = path.read_text("utf-8")
        comments = [line for line in text.splitlines() if line.lstrip().startswith("#")]
        assert len(comments) >= 5, f"{path.name} explains too little"
        assert f"workbench run assets/studies/{path.relative_to(STUDIES)}" in text or method == "choice"


def test_the_readme_tour_points_at_every_example():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    for path in EXAMPLES.values():
        assert f"assets/studies/{path.relative_to(STUDIES)}" in readme


def test_identity_answers_are_constrained_by_default(tmp_path):
    """The README says identity answers are constrained to the JSON schema unless `structured = false`."""
    from workbench.methods.identity.study import plan_requests

    study = tmp_path / "id.toml"
    study.write_text('name = "i"\nmethod = "identity"\nmodels = ["llama:default"]\nper_group = 1\n')
    first = next(iter(plan_requests(load_study(str(study)), "id", {"temperature": 0.7})))
    assert first.payload["params"]["json_schema"]["required"] == ["recommendations"]
    study.write_text(study.read_text() + "structured = false\n")
    first = next(iter(plan_requests(load_study(str(study)), "id", {"temperature": 0.7})))
    assert "json_schema" not in first.payload["params"]


@pytest.mark.parametrize(
    "context, said",
    [
        ("movies", "About me: movies."),  # was "I am movies."
        ("an action movie fan", "I am an action movie fan."),  # the paper's wording, as it was
        ("I only watch films from before 1970.", "I only watch films from before 1970."),
        ("", ""),
    ],
)
def test_the_coldstart_context_reads_as_a_sentence(context, said):
    from dataclasses import replace

    from workbench.methods.coldstart.study import prompt_for

    study = replace(load_study(str(EXAMPLES["coldstart"])), context=context)
    prompt = prompt_for(study, "a teenager")
    assert f"I am a teenager. {said} Recommend 5 movies".replace("  ", " ") in prompt
    assert "I am movies" not in prompt


def _run(example: str, tmp_path: Path, limit: int, *more: str) -> Path:
    db = tmp_path / f"{example}.db"
    out = run_cli("run", str(EXAMPLES[example]), "--db", str(db), "--limit", str(limit), *more, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"(--limit {limit})" in out.stdout  # stopped by the limit, the rest pending
    return db


@pytest.mark.slow
def test_the_choice_example_runs(tmp_path):
    db = _run("choice", tmp_path, 4)
    assert rows(db, "SELECT COUNT(*), MIN(source) FROM mention_lists") == [(4, "gazetteer")]


@pytest.mark.slow
def test_the_coldstart_example_runs(tmp_path):
    db = _run("coldstart", tmp_path, 2)
    assert rows(db, "SELECT COUNT(*) FROM responses") == [(2,)]
    # Each answer is a ranked list matched against the catalog (an empty one counts too).
    assert rows(db, "SELECT COUNT(DISTINCT seed || '/' || persona) FROM rankings") == [(2,)]


@pytest.mark.slow
def test_the_identity_example_runs(tmp_path):
    # Its answers cut short (a JSON object of five records takes 200 tokens): the test runs
    # the example's prompts, not the model's patience.
    db = _run("identity", tmp_path, 1, "--model", "llama:default,max_tokens=40")
    answer = json.loads(rows(db, "SELECT payload_json FROM requests WHERE stage = 'answer' AND status = 'done'")[0][0])
    assert "json_schema" in answer["params"]  # constrained, as the example says
    # --limit 1 is spent on the answer: its probe is planned, left to the next run.
    assert rows(db, "SELECT status, COUNT(*) FROM requests WHERE stage = 'probe' GROUP BY status") == [("pending", 1)]
    assert rows(db, "SELECT COUNT(*) FROM identity_outputs") == [(1,)]


@pytest.mark.slow
def test_the_entity_example_runs(tmp_path):
    db = _run("entity", tmp_path, 2)
    assert rows(db, "SELECT COUNT(*) FROM responses") == [(2,)]
