"""With --limit, the progress line's ETA speaks about this run (which ends at the limit),
not about the whole stage still pending after it."""

from __future__ import annotations

import asyncio
import json

from helpers import write_study

from workbench.methods.study_files import load_study
from workbench.pipeline.audit import prepare, run_prepared
from workbench.pipeline.run_types import Progress, RunOptions
from workbench.store.db import connect


def test_the_eta_counts_what_the_limit_lets_this_run_take(tmp_path, fake_server):
    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url}"], questions=10)
    conn = connect(tmp_path / "a.db")
    seen: list[Progress] = []
    prepared = prepare(conn, load_study(study))
    asyncio.run(run_prepared(conn, prepared, RunOptions(limit=3), seen.append))
    answers = [p for p in seen if p.stage == "answer"]
    assert answers and all(p.budget_left is not None and p.left_this_run <= 3 for p in answers)
    last = answers[-1]
    assert (last.done, last.pending) == (3, 7)  # the stage goes on in a later run
    assert last.left_this_run == 0 and last.eta_s == 0.0  # this run is over
    first = answers[0]
    assert first.left_this_run == 3 - first.done - first.failed
    if first.pending > (first.budget_left or 0):
        assert first.eta_text.endswith(" to --limit")


def progress(stage: str = "answer", **counts) -> Progress:
    """One model's stage as the runner reports it, two seconds in, with these counts."""
    fields = {"done": 0, "failed": 0, "pending": 0, "running": 0, "tokens": 0, "answered_this_run": 0}
    return Progress("m", stage, elapsed_s=2.0, **{**fields, **counts})


def test_without_a_limit_the_eta_covers_every_pending_request():
    p = progress(done=2, pending=8, answered_this_run=2)
    assert p.left_this_run == 8 and p.eta_s == 8.0 and p.eta_text == "ETA 0:08"
    capped = progress(done=2, pending=8, running=1, answered_this_run=2, budget_left=1)
    assert capped.left_this_run == 2 and capped.eta_s == 2.0 and capped.eta_text == "ETA 0:02 to --limit"


def test_the_limit_caps_every_request_the_run_sends_over_all_stages(tmp_path, fake_server):
    """--limit 14 on 10 answers with 3 experts each sends 14 requests: the 10 answers and 4 of
    their 30 extractions (was: 10 answers, then 10 extractions more, 20 calls)."""
    from helpers import run_cli

    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=10)
    study.write_text(study.read_text() + '[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n')
    db = tmp_path / "a.db"
    result = run_cli("run", str(study), "--db", str(db), "--quiet", "--limit", "14")
    assert result.returncode == 0, result.stdout + result.stderr
    assert server.stats.ok == 14
    status = {r["stage"]: r for r in json.loads(run_cli("status", "--db", str(db), "--json").stdout)}
    assert (status["answer"]["done"], status["extract"]["done"], status["extract"]["pending"]) == (10, 4, 26)
    assert "Stopped with 26 requests still pending (--limit 14); run again to continue." in result.stdout
    again = run_cli("run", str(study), "--db", str(db), "--quiet", "--limit", "14")
    assert again.returncode == 0 and server.stats.ok == 28  # the next run takes 14 more, extractions only
    help_text = " ".join(run_cli("run", "--help").stdout.split())
    assert "send at most N requests to models in this run, over every stage and model together" in help_text


def test_a_stage_the_spent_limit_leaves_for_a_later_run_says_so():
    waiting = progress("extract", pending=18, budget_left=0)
    assert waiting.eta_text == "next run (--limit)"  # it showed "ETA 0:00 (to --limit)"
