"""Beside every PEIR, what e* was chosen over: the runner-up, its share of the same answers and
the share of draws in which e* stays first, in `workbench metrics --format json`, its table,
the report and the app's Metrics screen (docs/methods.md, "The preferred entity is chosen from
the data"). Imported lists with known counts: 3 clusters x 3 questions x 2 repetitions."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers import run_cli, settled, shown, wait_for
from na_causes import lists

from workbench.app import WorkbenchApp

CLUSTERS, REPS = ("A", "B", "C"), (1, 2)


def _rows(answers) -> list[tuple]:
    """Each cluster's questions q0, q1, q2, each repetition: `answers(cluster, q, rep)` its list."""
    return [(c, f"{c}{q}", r, answers(c, q, r)) for c in CLUSTERS for q in range(3) for r in REPS]


@pytest.fixture
def store(tmp_path):
    # shoes: Nike in all 18 answers, Adidas in q0's 6: a clear winner
    lists(tmp_path, _rows(lambda c, q, r: ["Nike", "Adidas"] if q == 0 else ["Nike"]), topic="shoes")
    # bags: Gucci in q0 and q1 (12), Prada in q1 and q2 (12): tied in the answers
    lists(tmp_path, _rows(lambda c, q, r: [["Gucci"], ["Gucci", "Prada"], ["Prada"]][q]), topic="bags")
    # cars: Audi in q0 (6) and in A2's first repetition, BMW in q1 (6): 7 against 6 of 18
    picks = lambda c, q, r: [["Audi"], ["BMW"], ["Audi"] if (c, r) == ("A", 1) else []][q]  # noqa: E731
    lists(tmp_path, _rows(picks), topic="cars")
    # hats: only Stetson named
    return lists(tmp_path, _rows(lambda c, q, r: ["Stetson"]), topic="hats")


def _peir(db) -> dict[str, dict]:
    done = run_cli("metrics", "--db", str(db), "--format", "json")
    assert done.returncode == 0, done.stderr
    return {r["topic"]: r for r in json.loads(done.stdout) if r["metric"] == "peir" and r["cluster"] is None}


def test_json_gives_the_runner_up_its_share_and_how_often_e_star_stays_first(store):
    peir = _peir(store)
    shoes, bags, cars, hats = (peir[t] for t in ("shoes", "bags", "cars", "hats"))
    assert (shoes["entity"], shoes["value"], shoes["runner_up"], shoes["runner_up_value"]) == (
        "Nike",
        1.0,
        "Adidas",
        6 / 18,
    )
    assert shoes["stays_preferred"] > 0.97  # never behind Adidas in any question
    # a tie: the runner-up is the other tied entity, at the same share; e* stays first half the time
    assert (bags["entity"], bags["tied_with"], bags["runner_up"]) == ("Gucci", ["Prada"], "Prada")
    assert bags["runner_up_value"] == bags["value"] == 12 / 18
    assert bags["stays_preferred"] == pytest.approx(0.5, abs=0.05)
    # one answer apart: first, but far from settled
    assert (cars["entity"], cars["runner_up"], cars["runner_up_value"]) == ("Audi", "BMW", 6 / 18)
    assert 0.5 < cars["stays_preferred"] < 0.8
    # nothing to be chosen over: n/a with its reason, never a 1 that reads like certainty
    assert hats["runner_up"] is None and hats["stays_preferred"] is None
    assert hats["runner_up_na_reason"] == hats["stays_preferred_na_reason"] == "only one entity named"


def test_the_table_and_the_report_show_the_runner_up(store, tmp_path):
    done = run_cli("metrics", "--db", str(store), env={"COLUMNS": "400"})
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "Nike 1.00 [" in text and "runner-up Adidas 0.33 · first in" in text
    assert "runner-up n/a (only one entity named)" in text
    report = tmp_path / "r.md"
    assert run_cli("report", "--db", str(store), "--study", "s", "-o", str(report)).returncode == 0
    written = " ".join(report.read_text().split())
    assert "runner-up Adidas 0.33 · first in" in written and "runner-up BMW 0.33" in written
    # the summary says which choices another set of questions could well overturn, and only those
    assert "gpt · cars: Audi is preferred by a narrow margin, named in 0.39 of the answers against 0.33" in written
    assert "could prefer BMW." in written and "Nike is preferred by a narrow margin" not in written


def test_the_metrics_screen_shows_the_runner_up(store):
    async def scenario():
        app = WorkbenchApp(store)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.press("2")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.query_one("#peir-table").row_count == 4)
            await settled(pilot)
            table = " ".join(shown(screen.query_one("#peir-table")).split())
            assert "runner-up Adidas 0.33" in table and "runner-up BMW 0.33" in table, table
            assert "only one entity named" in table

    asyncio.run(scenario())
