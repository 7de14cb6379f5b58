"""With --limit, the progress line's ETA speaks about this run (which ends at the limit),
not about the whole stage still pending after it."""

from __future__ import annotations

import asyncio

from helpers import write_study

from workbench.audit import prepare, run_prepared
from workbench.run_types import Progress, RunOptions
from workbench.store.db import connect
from workbench.studies.spec import load_study


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
        assert first.eta_text.endswith("(to --limit)")


def test_without_a_limit_the_eta_covers_every_pending_request():
    p = Progress("m", "answer", done=2, failed=0, pending=8, running=0, tokens=0, elapsed_s=2.0, answered_this_run=2)
    assert p.left_this_run == 8 and p.eta_s == 8.0 and p.eta_text == "ETA 0:08"
    capped = Progress(
        "m",
        "answer",
        done=2,
        failed=0,
        pending=8,
        running=1,
        tokens=0,
        elapsed_s=2.0,
        answered_this_run=2,
        budget_left=1,
    )
    assert capped.left_this_run == 2 and capped.eta_s == 2.0 and capped.eta_text == "ETA 0:02 (to --limit)"
