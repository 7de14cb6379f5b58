"""The example study of every method in assets/studies/: each loads, says what it does in its
comments, and, as `workbench init` writes it, runs whole on the bundled model to its first
metric table."""

import asyncio
import json
import shlex
from importlib.resources import files
from pathlib import Path

import pytest
from conftest import rows
from helpers import run_cli

from workbench.methods.study_files import load_study

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
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
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


# Each example as `workbench init` writes it, run whole on the bundled model to its first
# metric table: what a new user sees within two minutes on 2 cores (README, "A short tour").
FIRST_TABLE = {
    "choice": "Preferred entity (PEIR)",
    "coldstart": "Cold-start: divergence from the neutral list",
    "identity": "Identity disclosure: mean share of the user's group",
    "entity": "Label probabilities: entities ranked by Delta",
}


def _run_whole(method: str, tmp_path: Path) -> tuple[Path, list[dict], str]:
    """`workbench init METHOD`, the next steps it prints, `metrics`: (store, records, table).
    `init`'s output is kept in tmp_path/init.out."""
    study, db = tmp_path / "study.toml", tmp_path / "audit.db"
    init = run_cli("init", method, str(study))
    assert init.returncode == 0, init.stderr
    (tmp_path / "init.out").write_text(init.stdout)
    out = run_cli("run", str(study), "--db", str(db), timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "still pending" not in out.stdout  # the whole example, nothing left for a later run
    for line in init.stdout.splitlines():  # the imports init tells the user to run next
        if "workbench import " in line:
            step = shlex.split(line.split("workbench ", 1)[1].replace("audit.db", str(db)))
            done = run_cli(*[str(tmp_path / a) if a.endswith(".csv") else a for a in step])
            assert done.returncode == 0, done.stderr
    table = run_cli("metrics", "--db", str(db), env={"COLUMNS": "120"})
    assert table.returncode == 0, table.stderr
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    return db, records, table.stdout


def values(records: list[dict], metric: str) -> list[float]:
    return [r["value"] for r in records if r["metric"] == metric and r.get("value") is not None]


@pytest.mark.slow
def test_the_choice_example_runs_to_its_peir_table(tmp_path):
    db, records, table = _run_whole("choice", tmp_path)
    assert table.startswith(FIRST_TABLE["choice"])
    assert rows(db, "SELECT COUNT(*), MIN(source) FROM mention_lists") == [(108, "gazetteer")]
    assert values(records, "peir")  # a preferred entity per topic, with its share


@pytest.mark.slow
def test_the_coldstart_example_runs_to_its_divergence_table(tmp_path):
    db, records, table = _run_whole("coldstart", tmp_path)
    assert table.startswith(FIRST_TABLE["coldstart"])
    # Each answer is a ranked list matched against the catalog (an empty one counts too).
    assert rows(db, "SELECT COUNT(DISTINCT seed || '/' || persona) FROM rankings") == [(10,)]
    assert "a girl" in table and "neutral (baseline)" in table


@pytest.mark.slow
def test_the_identity_example_runs_to_its_mean_shares(tmp_path):
    """The colleges and reference shares init writes (colleges_shares.csv) give the mean share
    values; free-text answers (the example's `structured = false`: a grammar decoded a token a
    second on the bundled model) read as numbered lists."""
    db, records, table = _run_whole("identity", tmp_path)
    assert table.startswith(FIRST_TABLE["identity"])
    answer = json.loads(rows(db, "SELECT payload_json FROM requests WHERE stage = 'answer' LIMIT 1")[0][0])
    assert "json_schema" not in answer["params"]  # free text, as the example says
    assert rows(db, "SELECT stage, COUNT(*) FROM requests GROUP BY stage ORDER BY stage") == [
        ("answer", 16),
        ("probe", 16),
    ]
    shares = [r for r in records if r["metric"] == "mean_share"]
    assert len(shares) == 16  # four groups x four conditions
    assert not any("no reference shares" in str(r.get("na_reason")) for r in shares)
    # Each a value or n/a with its reason: the bundled 270M model's free text reads as a list
    # for some answers (4 of 16 shares had a value on one CPU), and another CPU's answers may
    # read as none; the reference shares are never what is missing.
    assert all(r.get("value") is not None or r.get("na_reason") for r in shares)
    assert "--study study" in (tmp_path / "study.toml").read_text()  # its comment names the copy's study


@pytest.mark.slow
def test_the_entity_example_runs_to_its_deltas(tmp_path):
    db, records, table = _run_whole("entity", tmp_path)
    assert table.startswith(FIRST_TABLE["entity"])
    assert rows(db, "SELECT COUNT(*) FROM requests") == [(32,)]  # 4 templates x 8 countries
    deltas = values(records, "entity_delta")
    assert len(deltas) == 8 and "Afghanistan" in table
    # Its countries have a region column, but regions are ChoiceEval's log-odds: nothing to import.
    assert "workbench import" not in (tmp_path / "init.out").read_text()
    for size in ((80, 24), (120, 40)):  # the same Deltas on the app's Metrics screen
        assert asyncio.run(_metrics_screen(db, size, "#entity-table")).count("(n 4)") == 8


async def _metrics_screen(db: Path, size: tuple[int, int], table: str) -> str:
    """The table's text as the Metrics screen draws it."""
    from helpers import settled, shown, wait_for

    from workbench.app import WorkbenchApp

    app = WorkbenchApp(db)
    async with app.run_test(size=size) as pilot:
        await pilot.press("2")
        assert await wait_for(pilot, lambda: app.screen.query(table) and app.screen.query_one(table).row_count)
        await settled(pilot)
        return shown(app.screen.query_one(table))


def test_a_run_without_a_terminal_says_its_progress_in_lines():
    """Piped or logged, rich's bars draw nothing until the end: a line every INTERVAL_S."""
    import io

    from rich.console import Console

    from workbench.cli.run_lines import INTERVAL_S, ProgressLines
    from workbench.pipeline.run_types import Progress

    now = [0.0]
    out = io.StringIO()
    lines = ProgressLines(Console(file=out, width=100), clock=lambda: now[0])
    p = Progress(
        "llama:default", "score", done=1, failed=0, pending=31, running=0, tokens=0, elapsed_s=1.0, answered_this_run=1
    )
    lines(p)
    assert out.getvalue() == ""  # not before INTERVAL_S
    now[0] = INTERVAL_S + 1
    lines(p)
    assert "score · llama:default: 1/32 done" in out.getvalue()
    said = out.getvalue()
    now[0] = 2 * INTERVAL_S + 2
    lines(p)
    assert out.getvalue() == said  # nothing moved: nothing more said
