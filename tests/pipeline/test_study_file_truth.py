"""The study file is the truth of what counts: after an edit and a run, every surface says
what a fresh run of the edited file into an empty store says.

A question moved to another cluster (or its cluster renamed) counts under the cluster the
file gives now, its answers re-labelled, not asked again; a model removed from the file is
superseded like a dropped question (its answers kept: added back, it counts again without
asking twice). Each sequence is compared with a fresh run on the mentions export, the metric
records (per model x topic and per cluster), `questions`, `status` and the report's findings.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from helpers import run_cli

BOOT = "50"  # the intervals are compared too: any resample count, the same in both stores


def write(path: Path, url: str, clusters: dict, models=("m",), repetitions=2, extraction="") -> Path:
    """A one-topic ChoiceEval study: cluster -> questions (the clusters in this order)."""
    lines = [
        'name = "s"',
        'method = "choice"',
        f"repetitions = {repetitions}",
        "seed = 1",
        "models = " + json.dumps([f"openai:{m}@{url}" for m in models]),
        "[generation]",
        "temperature = 0.7",
        "max_tokens = 64",
        "[extraction]",
        extraction or 'method = "list"',
        "[[topics]]",
        'name = "shoes"',
        "[topics.questions]",
        *(f'"{c}" = {json.dumps(qs)}' for c, qs in clusters.items() if qs),
    ]
    for cluster in clusters:
        lines += ["[[clusters]]", f'name = "{cluster}"', f'description = "people of {cluster}"']
    path.write_text("\n".join(lines) + "\n")
    return path


def run(study: Path, db: Path) -> None:
    result = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr


def cli_json(*args: str):
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def findings(db: Path) -> str:
    report = run_cli("report", "--db", str(db), "--study", "s", "--format", "md", "--boot", BOOT)
    assert report.returncode == 0, report.stderr
    return report.stdout


def surfaces(db: Path) -> dict:
    """What a user reads of the study, without the store's row ids (a fresh store numbers
    its questions otherwise)."""
    mentions = csv.DictReader(io.StringIO(run_cli("export", "--db", str(db), "--what", "mentions").stdout))
    report = findings(db)
    return {
        "mentions export": sorted(tuple((k, v) for k, v in row.items() if k != "question_id") for row in mentions),
        "metric records": sorted(
            json.dumps(r, sort_keys=True)
            for r in cli_json("metrics", "--db", str(db), "--format", "json", "--boot", BOOT)
        ),
        "questions": sorted(
            (q["topic"], q["cluster"], q["text"], q["source"])
            for q in cli_json("questions", "--db", str(db), "--study", "s", "--format", "json")
        ),
        "status": cli_json("status", "--db", str(db), "--json"),
        "report findings": report[report.index("## Findings") : report.index("## Review")],
    }


def assert_as_fresh(tmp_path: Path, study: Path, db: Path) -> dict:
    """Every surface of `db` equals that of the same study file run into an empty store."""
    fresh = tmp_path / f"fresh{len(list(tmp_path.glob('fresh*.db')))}.db"
    run(study, fresh)
    mine, theirs = surfaces(db), surfaces(fresh)
    for surface in mine:
        assert mine[surface] == theirs[surface], f"{surface} differs from a fresh run of the edited study"
    return mine


BEFORE = {"A": ["Which shoes?", "Which boots?"], "B": ["Which sandals?"]}


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param({"A": ["Which boots?"], "B": ["Which sandals?", "Which shoes?"]}, id="move a question A to B"),
        pytest.param({"A2": BEFORE["A"], "B": BEFORE["B"]}, id="rename cluster A to A2"),
    ],
)
def test_a_moved_question_counts_under_its_new_cluster(tmp_path, fake_server, edit):
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run(write(study, server.base_url, BEFORE), db)
    write(study, server.base_url, edit)
    for _ in range(2):  # and it stays so at every later run
        asked = server.stats.ok
        run(study, db)
        assert server.stats.ok == asked, "the moved question was asked again: its answers are re-labelled"
        seen = assert_as_fresh(tmp_path, study, db)
    shoes = {dict(row)["cluster"] for row in seen["mentions export"] if dict(row)["question"] == "Which shoes?"}
    assert shoes == {"B" if "B" in edit and "Which shoes?" in edit["B"] else "A2"}
    assert [q[2] for q in seen["questions"]].count("Which shoes?") == 1


EXPERTS = 'method = "experts"\nexperts = 3\nk = 3'


@pytest.mark.parametrize(
    "extraction",
    [
        pytest.param("", id="list extraction"),
        pytest.param(EXPERTS, id="each model its own experts"),
        pytest.param(EXPERTS + '\nmodel = "openai:x@{url}"', id="an extraction model"),
    ],
)
def test_a_removed_model_is_superseded_and_comes_back_unasked(tmp_path, fake_server, extraction):
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    extraction = extraction.replace("{url}", server.base_url)
    run(write(study, server.base_url, BEFORE, models=("m", "n"), extraction=extraction), db)
    removed = f"openai:n@{server.base_url}"
    write(study, server.base_url, BEFORE, models=("m",), extraction=extraction)
    run(study, db)
    seen = assert_as_fresh(tmp_path, study, db)
    assert removed not in json.dumps(seen), "a surface still shows the removed model"
    assert removed not in findings(db), "the report names the removed model"

    asked = server.stats.ok
    write(study, server.base_url, BEFORE, models=("m", "n"), extraction=extraction)
    run(study, db)
    assert server.stats.ok == asked, "the model added back asked its questions (or extractions) again"
    seen = assert_as_fresh(tmp_path, study, db)
    assert removed in json.dumps(seen["metric records"])


def test_a_run_with_another_model_retires_the_files_until_it_runs_again(tmp_path, fake_server):
    """`--model` replaces the study's models: the file's model stops counting for that run's
    store and counts again, unasked, when the file runs again."""
    server = fake_server()
    study, db = write(tmp_path / "s.toml", server.base_url, BEFORE), tmp_path / "s.db"
    run(study, db)
    other = f"openai:o@{server.base_url}"
    assert run_cli("run", str(study), "--db", str(db), "--quiet", "--model", other).returncode == 0
    models = {r["model"] for r in cli_json("status", "--db", str(db), "--json")}
    assert models == {other}
    asked = server.stats.ok
    run(study, db)
    assert server.stats.ok == asked
    assert {r["model"] for r in cli_json("status", "--db", str(db), "--json")} == {f"openai:m@{server.base_url}"}


def _superseded_answers_follow_ups(db: Path) -> int:
    """Extraction requests still counting whose answer no longer counts."""
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT COUNT(*) FROM requests x JOIN requests a ON a.key = x.parent_key "
            "WHERE a.superseded = 1 AND x.superseded = 0"
        ).fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("where", ["study file", "design screen"])
def test_a_reworded_questions_old_extractions_stop_counting(tmp_path, fake_server, where):
    """The experts' requests on a superseded answer are superseded with it: status, the report
    and the run's closing line count what a fresh run of the edited study counts."""
    from workbench.methods.choice import design

    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run(write(study, server.base_url, BEFORE, extraction=EXPERTS), db)
    reworded = {"A": ["Which shoes?", "Which loafers?"], "B": BEFORE["B"]}
    if where == "study file":
        write(study, server.base_url, reworded, extraction=EXPERTS)
    else:  # the Design screen edits the stored question (the file is saved after the run)
        _study, study_id = design.register(db, study)
        (row,) = [r for r in design.question_rows(db, study_id) if r["text"] == "Which boots?"]
        design.edit_question(db, study_id, row["id"], "Which loafers?")
    result = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    write(study, server.base_url, reworded, extraction=EXPERTS)
    assert _superseded_answers_follow_ups(db) == 0
    status = {r["stage"]: r for r in cli_json("status", "--db", str(db), "--json")}
    assert (status["answer"]["done"], status["extract"]["done"]) == (6, 18)  # 3 questions x 2, x 3 experts
    assert "All 24 requests answered." in result.stdout
    assert_as_fresh(tmp_path, study, db)
    opening = findings_opening(db)
    assert "6 answers asked here" in opening and "6 answers asked here (and 18 extraction calls)" in opening, opening


def findings_opening(db: Path) -> str:
    report = run_cli("report", "--db", str(db), "--study", "s", "--format", "md", "--boot", BOOT)
    assert report.returncode == 0, report.stderr
    return next(line for line in report.stdout.splitlines() if "This report covers" in line)
