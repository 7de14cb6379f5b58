"""`workbench plan`: the design it recommends attains its power in simulated studies, and
the command reads assumptions, a pilot store and the study file."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from helpers import run_cli
from test_compare import beta_chances, simulated_lists

from workbench.analysis import sizing as plan
from workbench.methods.choice.paired import paired_lists
from workbench.metrics.intervals import resampling


def test_the_recommended_design_attains_the_target_power():
    """Assumed p 0.3, ICC 0.33, a difference of 0.15 to detect, the models' question chances
    unrelated: the planner's questions at 5 repetitions; 300 simulated studies with
    Beta-distributed question chances of that ICC (A mean 0.3, B mean 0.45), each compared
    as `workbench compare` does (the PEIR record's p, its t test's)."""
    a, b = plan.assumed(0.3, 0.33), plan.assumed(0.45, 0.33)
    paired = plan.assumed_paired(a, b, correlation=0.0)
    goal = plan.Goal(difference=0.15, power=0.8)
    row = next(r for r in plan.trade_off(a, paired, goal, [5]) if r["repetitions"] == 5)
    questions = int(row["questions_for_power"])
    assert abs(plan.power(paired, questions, 5, 0.15) - 0.8) < 0.02
    rng = np.random.default_rng(5)
    rejected = 0
    with resampling(200):
        for _ in range(300):
            lists = simulated_lists(
                rng, beta_chances(rng, 0.3, 0.33, questions), beta_chances(rng, 0.45, 0.33, questions), 5
            )
            record = next(r for r in paired_lists("s", lists, "A", "B") if r["metric"] == "peir")
            rejected += record["p"] < 0.05
    assert abs(rejected / 300 - 0.8) <= 0.05, (questions, rejected)


STUDY = """\
name = "shoes"
method = "choice"
repetitions = 5
seed = 1
models = ["openai:a@http://127.0.0.1:9/v1", "openai:b@http://127.0.0.1:9/v1"]
[[topics]]
name = "shoes"
[topics.questions]
"Budget-Conscious" = ["q1?", "q2?", "q3?", "q4?"]
"Convenience" = ["q5?", "q6?", "q7?", "q8?"]
[[topics]]
name = "phones"
[topics.questions]
"Convenience" = ["p1?", "p2?", "p3?", "p4?", "p5?", "p6?"]
"""


def test_plan_from_assumptions(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    args = ["plan", study, "--p", "0.3", "--icc", "0.33", "--difference", "0.1", "--rate", "2"]
    out = run_cli(*args, "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    ten = next(r for r in result["trade_off"] if r["repetitions"] == 10)
    # t(0.975; Q - S)^2 x 0.21 x (1 + 9 x 0.33) / 10 / 0.05^2 <= 0.05^2: 131 questions per topic
    # (Student's t on 131 - 1 cluster degrees of freedom, 1.978; the normal's 1.96 gave 129)
    assert ten["questions_for_half_width"] == 131
    assert ten["requests_half_width"] == 131 * 10 * 2 * 2  # 2 topics, 2 models
    assert ten["hours_half_width"] == ten["requests_half_width"] / 2 / 3600
    assert result["current"]["questions"] == 6 and result["current"]["repetitions"] == 5
    assert result["current"]["half_width"] > 0.05 and result["current"]["power"] < 0.8
    table = run_cli(*args)
    text = " ".join(table.stdout.split())
    assert "The study file gives: 6 questions (smallest topic) x 5 repetitions, 120 requests" in text
    assert "questions (power)" in text and "ICC 0.33 (assumed: p 0.3, ICC 0.33)" in text


def pilot_csv(path, rng) -> None:
    """Two models, 12 questions of one topic x 6 repetitions: each question has its own
    chance (Beta, mean 0.4, ICC 0.3) of naming Nike, else it names Puma."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model in ("gpt", "gemini"):
            for q, chance in enumerate(beta_chances(rng, 0.4, 0.3, 12)):
                for rep in range(1, 7):
                    brand = "Nike" if rng.random() < chance else "Puma"
                    writer.writerow([model, "shoes", "Convenience", f"q{q}", rep, 1, brand])


def test_plan_from_a_pilot_store(tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "pilot.csv"
    pilot_csv(path, rng)
    db = tmp_path / "pilot.db"
    imported = run_cli("import", "mentions", path, "--db", db, "--study", "pilot")
    assert imported.returncode == 0, imported.stderr
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    out = run_cli("plan", study, "--db", db, "--pilot", "pilot", "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["share"]["source"].startswith("pilot 'pilot'")
    assert [(r["model"], r["questions"], r["answers"]) for r in result["pilot"]] == [
        ("gemini", 12, 72),
        ("gpt", 12, 72),
    ]
    assert 0 < result["share"]["p"] < 1 and 0 < result["share"]["icc"] < 1
    assert result["paired"]["source"] == "pilot 'pilot': 1 model pair x topic(s)"
    assert result["current"]["questions"] == 6 and result["current"]["half_width"] > 0
    # no timed answers in an imported store: the time is n/a and says how to give it
    assert all(rate is None for rate in result["rates"].values())
    table = run_cli("plan", study, "--db", db, "--pilot", "pilot")
    assert "not measured in --db; give --rate" in " ".join(table.stdout.split())
    both = run_cli("plan", study, "--db", db, "--pilot", "pilot", "--icc", "0.2")
    assert both.returncode == 2 and "give --pilot or --p/--icc, not both" in both.stderr
    no_db = run_cli("plan", study, "--pilot", "pilot")
    assert no_db.returncode == 2 and "--pilot names a study in a store: give --db too" in no_db.stderr


def test_plan_help_teaches():
    out = run_cli("plan", "--help")
    assert out.returncode == 0 and "examples:" in out.stdout and "--pilot pilot --difference 0.1" in out.stdout


def test_a_study_the_planner_does_not_read(tmp_path):
    """Only a method offering a `planner` has its questions counted and its pilot read:
    another's study file is refused in one line with the reason (a table of questions per
    topic it does not ask planned nothing), and its stored study is refused as a pilot in one
    line naming its method and what the planner reads."""
    from workbench import methods
    from workbench.methods.hooks import part, title

    read = " or ".join(title(methods.get(n)) for n in methods.names() if part(methods.get(n), "planner") is not None)
    study = Path(__file__).resolve().parents[2] / "assets" / "studies" / "coldstart" / "movies.toml"
    out = run_cli("plan", study, "--format", "json")
    assert out.returncode == 2 and out.stdout == ""
    assert (
        out.stderr
        == f"error: {study}: a coldstart study: the planner counts a {read} study's questions; nothing here to plan\n"
    )
    path, db = tmp_path / "r.csv", tmp_path / "c.db"
    path.write_text("model,seed,persona_category,persona,rank,item\nm,0,,neutral,1,A\nm,0,g,a girl,1,B\n")
    assert run_cli("import", "rankings", path, "--db", db, "--study", "cs").returncode == 0
    choice = study.parent.parent / "demo.toml"  # a study file the planner reads, a pilot it does not
    refused = run_cli("plan", choice, "--db", db, "--pilot", "cs")
    assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [
        f"error: --pilot 'cs': its method (coldstart) has no pilot the planner reads (it reads {read} studies' "
        "answers): give --p and --icc instead"
    ]


def test_a_pilot_whose_models_answer_alike_plans_no_comparison(tmp_path):
    """Both models answer each pilot question the same way every time (Nike or Puma by
    question): the difference's variance is 0, which promised 100 % power from 2 questions.
    Refused in one line, as a share without variance is; the share itself still plans."""
    path = tmp_path / "pilot.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model in ("gpt", "gemini"):
            for q in range(6):
                for rep in (1, 2, 3):
                    writer.writerow([model, "shoes", "Convenience", f"q{q}", rep, 1, "Nike" if q % 2 else "Puma"])
    db = tmp_path / "pilot.db"
    assert run_cli("import", "mentions", path, "--db", db, "--study", "pilot").returncode == 0
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    out = run_cli("plan", study, "--db", db, "--pilot", "pilot", "--difference", "0.1")
    assert out.returncode == 2, out.stdout
    assert out.stderr.strip().splitlines() == [
        "error: pilot 'pilot': 1 model pair x topic(s): the models' difference is the same on every question "
        "and answer (its variance is 0) and plans no comparison; give --p, --icc and --difference instead of --pilot"
    ]
    assert run_cli("plan", study, "--db", db, "--pilot", "pilot").returncode == 0
