"""Two real ChoiceEval topics, a sample of questions, the bundled model, 5 experts:
the run completes, resumes after a kill, and yields mentions and metrics."""

import json

import pytest
from conftest import rows
from helpers import kill_run_once, run_cli

pytestmark = pytest.mark.slow


def test_two_choiceeval_topics_with_five_experts_resume_after_kill(tmp_path, shared_data):
    banks = shared_data / "choiceeval"
    study = tmp_path / "choiceeval.toml"
    study.write_text(
        'name = "choiceeval-sample"\nmethod = "choice"\nrepetitions = 1\nseed = 11\n'
        'models = ["llama:default,n_ctx=1024,parallel=4"]\n'
        "[generation]\ntemperature = 0.7\nmax_tokens = 32\n"
        'system = "You are a helpful shopping assistant. Recommend specific brands by name."\n'
        '[extraction]\nmethod = "experts"\nexperts = 5\nk = 5\noutput = "list"\nmax_tokens = 24\n'
        f'[[topics]]\nname = "running shoes"\nquestions_file = "{banks / "running_shoes.json"}"\n'
        "questions_per_cluster = 1\n"
        f'[[topics]]\nname = "smartphones"\nquestions_file = "{banks / "smartphones.json"}"\n'
        "questions_per_cluster = 1\n"
    )
    db = tmp_path / "ce.db"
    # Kill it once it is into the expert stage.
    kill_run_once(study, db, "SELECT COUNT(*) FROM requests WHERE stage = 'extract' AND status = 'done'", 10)
    assert rows(db, "SELECT COUNT(*) FROM requests WHERE stage = 'answer' AND status = 'done'") == [(18,)]
    done_before = rows(db, "SELECT COUNT(*) FROM responses")[0][0]

    result = run_cli("run", str(study), "--db", str(db), "--quiet", timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All 108 requests answered" in result.stdout  # 18 answers + 90 expert replies
    assert "mean expert agreement (Jaccard)" in result.stdout
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(108, 108)]
    assert done_before < 108
    # Every answer has its five expert lists and a voted list.
    assert rows(db, "SELECT COUNT(*) FROM expert_lists") == [(90,)]
    assert rows(db, "SELECT MIN(n), MAX(n) FROM (SELECT COUNT(*) AS n FROM expert_lists GROUP BY response_key)") == [
        (5, 5)
    ]
    # n_experts counts the replies that could be parsed; the others are kept and counted.
    parsed, unparsed = rows(db, "SELECT SUM(parsed), SUM(1 - parsed) FROM expert_lists")[0]
    assert rows(db, "SELECT COUNT(*), SUM(n_experts) FROM mention_lists") == [(18, parsed)]
    # The kill came before any vote, so the resumed run voted (and reported) all 18.
    assert "Extracted ranked lists for 18 answers" in result.stdout
    assert f"90 expert replies, {unparsed} unparseable (kept)" in result.stdout
    assert rows(db, "SELECT COUNT(DISTINCT topic) FROM mention_lists") == [(2,)]
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    topics = {r["topic"] for r in records if r["metric"] == "peir"}
    assert topics == {"running shoes", "smartphones"}
    assert any(r["metric"] == "lor" and r["cluster"] is None for r in records)
