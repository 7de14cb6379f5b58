"""Screens follow the store while shown: a merge, a verdict or an import made from another
connection (a second terminal, a headless command) shows on Metrics, Entities and Review
without a key, and the Review screen never stays on a list an import replaced."""

import asyncio

from conftest import rows
from helpers import imported_mentions, run_cli, shown, table_text, wait_for

from workbench.app import WorkbenchApp
from workbench.store.db import opened
from workbench.store.entities import decisions as registry
from workbench.store.review import verdicts as reviews


def peir_cell(app):
    table = app.screen.query_one("#peir-table")
    return str(table.get_row_at(0)[1]) if table.row_count else ""


def elsewhere(db, change):
    """A write from another connection, as another process makes it."""
    with opened(db) as conn:
        return change(conn)


def test_metrics_follow_a_merge_made_elsewhere_while_shown(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 5), ("Nike, Inc.", 2), ("Adidas", 6)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Adidas 0.46"))
            screen, computed = app.screen, app.screen.computed
            elsewhere(db, lambda conn: registry.merge(conn, ["Nike", "Nike, Inc."], "Nike", who="bo"))
            # No key pressed: the screen saw the store move, and recomputed.
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Nike 0.54"))
            assert screen.computed == computed + 1 and not screen.query_one("#metrics-body").has_class("stale")

    asyncio.run(scenario())


def test_the_list_of_every_entity_follows_decisions_made_elsewhere(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 5), ("Nike, Inc.", 2), ("Adidas", 6)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 1)
            await pilot.press("v")  # every entity
            assert await wait_for(pilot, lambda: app.screen.query_one("#entities-table").row_count == 3)
            await pilot.press("down")  # Nike highlighted (6 Adidas, 5 Nike, 2 Nike, Inc.)
            assert app.screen.highlighted_entity().name == "Nike"
            elsewhere(db, lambda conn: registry.merge(conn, ["Nike", "Nike, Inc."], "Nike", who="bo"))
            assert await wait_for(pilot, lambda: app.screen.query_one("#entities-table").row_count == 2)
            names = [row[1] for row in table_text(app, "#entities-table")]
            assert names == ["Nike", "Adidas"]  # 7 mentions now, first
            assert app.screen.highlighted_entity().name == "Nike"  # the same entity stays highlighted
            assert app.screen.query_one("#suggestions-table").row_count == 0  # nothing left to merge
            elsewhere(db, lambda conn: registry.set_region(conn, ["Adidas"], "Europe", who="bo"))
            assert await wait_for(
                pilot, lambda: ["Adidas", "Europe"] in [r[1:4:2] for r in table_text(app, "#entities-table")]
            )
            assert not app.screen.query(".stale")

    asyncio.run(scenario())


def test_review_follows_another_reviewers_verdict_and_leaves_a_replaced_list(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 2)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            while screen.filter != "all":  # unreviewed, disagreements, reviewer disagreements, resolved, all
                loads = screen.loads
                await pilot.press("f")
                assert await wait_for(pilot, lambda before=loads: screen.loads > before)
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            await pilot.press("n")  # list 2
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}) and screen.page["id"] == 2)
            elsewhere(db, lambda conn: reviews.review(conn, 2, "bo", "edit", ["Zeta"]))
            assert await wait_for(pilot, lambda: "bo (edit)" in shown(screen.query_one("#review-lists")))
            assert "Zeta" in shown(screen.query_one("#review-lists")) and screen.page["id"] == 2
            assert "bo" in shown(screen.query_one("#review-progress"))  # bo's progress on this filter: 1 of 4
            # The study imported again from another process: every list has a new id.
            csv = tmp_path / "m.csv"
            assert run_cli("import", "mentions", str(csv), "--db", str(db), "--study", "s").returncode == 0
            assert await wait_for(pilot, lambda: screen.page is not None and screen.page["id"] != 2)
            assert screen.page["question"] == "q1"  # the same answer's new list
            assert await wait_for(pilot, lambda: any("List 2 was replaced" in n.message for n in app._notifications))
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}) and not screen.store_busy())
            await pilot.press("a")  # the list in its place is not read yet: refused once, nothing recorded
            assert any("List 2 was replaced" in n.message and "press again" in n.message for n in app._notifications)
            assert rows(db, "SELECT reviewer FROM verdicts") == [("bo",)]
            loads = screen.loads
            await pilot.press("a")  # judged on the list as it is now: recorded
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, "SELECT reviewer, decision FROM verdicts ORDER BY id") == [("bo", "edit"), ("ana", "accept")]
