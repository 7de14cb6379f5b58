"""The Metrics screen's paired comparison (`c`): two models of a study picked by keys, their
differences as `workbench compare` gives them, following the store while shown; one model
only is said in one line."""

import asyncio
import json

import numpy as np
from helpers import imported_mentions, on_screen, run_cli, shown, wait_for

from workbench.app import WorkbenchApp
from workbench.store.db import opened
from workbench.store.entities import decisions as registry
from workbench.widgets.comparison import ComparisonPanel, refusal


def panel_lines(app) -> list[str]:
    return shown(app.screen.query_one("#compare-table")).splitlines()


def row_of(app, topic: str, what: str) -> str:
    return next((line for line in panel_lines(app) if line.startswith(f"{topic} ") and what in line), "")


def test_two_models_compared_on_the_metrics_screen_at_80_columns(metrics_db):
    """gpt names Nike in every answer, gemini never: with gemini as B, B - A of the share naming
    A's Nike is -1 on the 6 questions both answered, its interval named by its unit."""
    cli = run_cli("compare", "--db", metrics_db, "--study", "ext", "--models", "gpt", "gemini", "--format", "json")
    expected = next(r for r in json.loads(cli.stdout) if r["topic"] == "shoes" and r["metric"] == "peir")

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            metrics = app.screen
            await pilot.press("c")
            assert await on_screen(pilot, "PickModels")
            # A: gemini first (name order); moved to gpt. B: gpt by default; moved to gemini.
            await pilot.press("down", "tab", "up", "enter")
            assert await wait_for(pilot, lambda: metrics.compared == 1 and app.screen is metrics)
            title = str(metrics.query_one("#compare-title").render())
            assert title.startswith("ext: gemini (B) - gpt (A)") and "Esc leaves" in title
            assert not metrics.query_one("#metrics-body").display
            text = "\n".join(panel_lines(app))
            assert "95% interval" in text and "by question" in text and "questions" in text and "paired" in text
            row = row_of(app, "shoes", "PEIR (A's e*)")
            assert row.split()[-6:] == [
                "-1.000",
                "[-1.00,",
                f"{expected['ci_high']:.2f}]",  # Newcombe's: no zero-width interval from 12 answers
                f"{expected['p']:.3f}",
                f"{expected['p_holm']:.3f}",
                "6",
            ]
            assert expected["difference"] == -1.0 and expected["n_questions"] == 6
            note = str(metrics.query_one("#compare-note").render())
            assert "Interval unit: question" in note and "Holm" in note
            # Esc leaves the comparison: every metric again.
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: metrics.query_one("#metrics-body").display)
            assert not metrics.query_one(ComparisonPanel).display and metrics.comparing is None

    asyncio.run(scenario())


def test_the_comparison_follows_a_merge_made_elsewhere(metrics_db):
    """Adidas merged into Nike from another connection while the comparison is on view: both
    models now name Nike in every answer, and the difference becomes 0 without a key."""

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            metrics = app.screen
            await pilot.press("c")
            assert await on_screen(pilot, "PickModels")
            await pilot.press("down", "tab", "up", "enter")  # A gpt, B gemini
            assert await wait_for(pilot, lambda: row_of(app, "shoes", "PEIR").split()[-6:-4] == ["-1.000", "[-1.00,"])
            shown_before = metrics.compared
            with opened(metrics_db) as conn:
                registry.merge(conn, ["Nike", "Adidas"], "Nike", who="bo")
            assert await wait_for(pilot, lambda: "+0.000" in row_of(app, "shoes", "PEIR"))
            assert metrics.compared > shown_before and metrics.comparing == ("ext", "gpt", "gemini")
            assert not metrics.query_one(ComparisonPanel).has_class("stale")

    asyncio.run(scenario())


def test_an_entity_study_is_compared_by_template(tmp_path):
    """Model B rates Chad more urgent on every template: on screen, Chad's Delta difference with
    an interval below 0, the interval and the count named by their unit, the template."""
    from test_compare_methods import TASK, _scores

    from workbench.methods.entity.data import import_scores
    from workbench.store.db import connect

    db = tmp_path / "e.db"
    _scores(tmp_path / "scores.csv", np.random.default_rng(5))
    import_scores(connect(db), "urg", tmp_path / "scores.csv", TASK)

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.computed >= 1)
            metrics = app.screen
            await pilot.press("c")
            assert await on_screen(pilot, "PickModels")
            await pilot.press("enter")  # A and B as offered: the first two models
            assert await wait_for(pilot, lambda: metrics.compared == 1 and app.screen is metrics)
            text = "\n".join(panel_lines(app))
            assert "by template" in text and "templates" in text
            chad = row_of(app, "urgency", "Delta · Chad").split()
            low, high = float(chad[-5].strip("[,")), float(chad[-4].rstrip("]"))
            assert low <= float(chad[-6]) <= high < 0 and chad[-1] == "12"
            assert "Interval unit: template" in str(metrics.query_one("#compare-note").render())

    asyncio.run(scenario())


def test_one_model_is_said_in_one_line(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 3), ("Adidas", 2)))

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 1)
            await pilot.press("c")
            said = "Study 's' has one model (gpt): a comparison needs two."
            assert await wait_for(pilot, lambda: any(n.message == said for n in app._notifications))
            assert type(app.screen).__name__ == "MetricsScreen" and app.screen.comparing is None

    asyncio.run(scenario())


def test_why_no_pair_can_be_picked():
    assert refusal({"s": ["a", "b"], "t": ["c"]}) == ""
    assert refusal({}) == refusal({"cs": []}) == "No study has a model with answers yet: a comparison needs two models."
    assert (
        refusal({"s": ["a"], "t": ["b"]})
        == "Each study has one model (s: a; t: b): a comparison needs two in one study."
    )
