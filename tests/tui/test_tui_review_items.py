"""The Review screen at 80x24, by keys: what you saw is what you judge (a verdict on a list
changed since it was shown is refused and the list shown again), lists edited as items
(a name with a comma is one name; a name needs a letter or digit), and adjudication."""

import asyncio
import json

import pytest
from conftest import rows
from helpers import footer_text, imported_mentions, on_screen, retype_list, settled, shown, wait_for

from workbench.app import WorkbenchApp
from workbench.store.db import opened
from workbench.store.review import verdicts as reviews
from workbench.widgets import live
from workbench.widgets.review_text import answer_text, progress_line


async def filtered(pilot, screen, name: str) -> None:
    """Press f until the Review screen shows the filter `name`, its pages read."""
    while screen.filter != name:
        loads = screen.loads
        await pilot.press("f")
        assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)
    assert await wait_for(pilot, lambda: screen.page is None or "entities" in screen.page)


async def judged(pilot, screen, *keys: str) -> None:
    """Keys that store a decision, then wait until it is stored and the pages read again."""
    loads = screen.loads
    await pilot.press(*keys)
    assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)
    assert await wait_for(pilot, lambda: screen.page is None or "entities" in screen.page)


def test_a_verdict_on_a_list_changed_since_it_was_shown_is_refused_and_the_list_shown_again(tmp_path, monkeypatch):
    # The exact sequence of the report: ana's screen shows a list, bo edits it to Zeta from a
    # shell, ana presses a before her screen has looked at the store again.
    monkeypatch.setattr(live, "POLL_S", 3600.0)
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 2)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await filtered(pilot, screen, "all")
            assert screen.page["id"] == 1 and screen.page["entities"] == ["Nike"]
            with opened(db) as conn:
                reviews.review(conn, 1, "bo", "edit", ["Zeta"])
            await judged(pilot, screen, "a")
            assert await wait_for(pilot, lambda: any("changed since" in n.message for n in app._notifications))
            refusal = [n.message for n in app._notifications if "changed since" in n.message]
            assert len(refusal) == 1 and "\n" not in refusal[0]  # one line
            assert screen.page["id"] == 1 and screen.page["entities"] == ["Zeta"]  # shown again, as it is
            assert "bo (edit)" in shown(screen.query_one("#review-lists"))
            await judged(pilot, screen, "a")  # now ana has seen Zeta: recorded

    asyncio.run(scenario())
    verdicts = [
        (who, what, json.loads(after))
        for who, what, after in rows(db, "SELECT reviewer, decision, after_json FROM verdicts ORDER BY id")
    ]
    assert verdicts == [("bo", "edit", ["Zeta"]), ("ana", "accept", ["Zeta"])]


def test_a_list_edited_as_items(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 2)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            await pilot.press("e")
            assert await on_screen(pilot, "ListEditor")
            editor = app.screen
            await pilot.press(*"The second brand, Nike", "enter")  # one name, comma and all
            await pilot.press(*"!!!", "enter")
            assert await wait_for(pilot, lambda: any("'!!!' is not a name" in n.message for n in app._notifications))
            await pilot.press("ctrl+u", *"nike", "enter")  # the rule the store holds too
            assert await wait_for(pilot, lambda: any("'nike' repeats 'Nike'" in n.message for n in app._notifications))
            await pilot.press("ctrl+u", *"adi", "tab", "enter")  # completed from the known entities
            assert editor.names == ["Nike", "The second brand, Nike", "Adidas"]
            await pilot.press("down", "shift+up")  # into the list (Adidas, the last added), one up
            assert editor.names == ["Nike", "Adidas", "The second brand, Nike"]
            await pilot.press("up", "delete")  # Nike out
            assert editor.names == ["Adidas", "The second brand, Nike"]
            assert "2. The second brand, Nike" in shown(editor.query_one("#list-items"))
            await judged(pilot, screen, "ctrl+s")

    asyncio.run(scenario())
    assert rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank") == [
        ("Adidas",),
        ("The second brand, Nike",),
    ]
    assert rows(db, "SELECT reviewer, decision, after_json FROM verdicts") == [
        ("ana", "edit", json.dumps(["Adidas", "The second brand, Nike"]))
    ]


def test_adjudication_keys_settle_the_queue(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 2)))  # lists 1, 2: Nike; 3, 4: Adidas
    with opened(db) as conn:
        for list_id, edit in ((1, "Adidas"), (3, "Nike")):
            reviews.review(conn, list_id, "ana", "edit", [edit])
            reviews.review(conn, list_id, "bo", "accept", blind=True)  # bo keeps the machine's list

    async def adjudicator():
        app = WorkbenchApp(db, reviewer="carol")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await filtered(pilot, screen, "reviewer disagreements")
            assert "reviewer disagreements: 1/2" in shown(screen.query_one("#review-status"))
            lists = shown(screen.query_one("#review-lists"))
            assert "ana (edit)" in lists and "bo (accept blind)" in lists
            assert "reviewers disagree: [ takes ana's list, ] bo's, e your own" in lists
            await judged(pilot, screen, "right_square_bracket")  # bo's list for list 1
            assert screen.page["id"] == 3, [n.message for n in app._notifications]
            assert "reviewer disagreements: 1/1" in shown(screen.query_one("#review-status"))
            await pilot.press("e")  # carol's own list for list 3
            assert await on_screen(pilot, "ListEditor")
            await retype_list(pilot, ["Puma"])
            await judged(pilot, screen, "enter")
            assert screen.page is None and "reviewer disagreements: 0/0" in shown(screen.query_one("#review-status"))
            await filtered(pilot, screen, "resolved")
            assert "resolved: carol took bo's list (ana and bo)" in shown(screen.query_one("#review-lists"))

    async def validator():  # ana is one of the two: no key to settle her own disagreement
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await filtered(pilot, screen, "reviewer disagreements")
            assert screen.page["id"] == 1
            assert screen.check_action("take", (0,)) is False

    asyncio.run(validator())
    asyncio.run(adjudicator())
    assert rows(db, "SELECT reviewer, took FROM verdicts WHERE adjudicates IS NOT NULL ORDER BY id") == [
        ("carol", "bo"),
        ("carol", None),
    ]
    assert rows(db, "SELECT list_id, surface FROM mentions WHERE list_id IN (1, 3) ORDER BY list_id") == [
        (1, "Nike"),
        (3, "Puma"),
    ]


def test_model_text_is_shown_literally_with_the_names_highlighted():
    text = answer_text("Try [/x] <b>nike</b> or [bold]Adidas[/bold].", ["Nike", "Adidas"])
    assert text.plain == "Try [/x] <b>nike</b> or [bold]Adidas[/bold]."
    assert sorted(text.plain[s.start : s.end] for s in text.spans) == ["Adidas", "nike"]


def test_review_offers_only_the_views_of_the_methods_in_the_store(tmp_path):
    """A ChoiceEval store: identity's probe labels (b) and cold-start's matches (c) are not
    offered on the Review screen, and their keys open nothing."""
    db = imported_mentions(tmp_path, (("Nike", 2),))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.loads > 0 and "a Accept" in footer_text(app))
            assert "Probes" not in footer_text(app)
            await pilot.press("b", "c")
            await settled(pilot)
            assert app.screen is screen
            assert not screen.check_action("review_view", ("workbench.screens.probe_review:ProbeReviewScreen",))

    asyncio.run(scenario())


def test_a_progress_bar_reads_as_done_and_to_do_without_colour():
    """1 of 108 is one heavy cell and nine light ones, not a full bar; full only when all are done."""
    assert progress_line({"ann": 1}, 108, "verdicts").plain == " verdicts: ann ━───────── 1/108"
    assert progress_line({"ann": 0, "bob": 107}, 108, "verdicts").plain == (
        " verdicts: ann ────────── 0/108 · bob ━━━━━━━━━─ 107/108"
    )
    assert progress_line({"ann": 108}, 108, "verdicts").plain == " verdicts: ann ━━━━━━━━━━ 108/108"
    assert progress_line({"ann": 54}, 108, "verdicts").plain == " verdicts: ann ━━━━━───── 54/108"
    assert progress_line({}, 9, "verdicts").plain == " verdicts: nobody has reviewed any of 9"


def test_the_progress_line_wraps_between_reviewers_and_counts_those_left_over():
    """At 80 columns bob, carl and dan are not cut off: a second line, then "+N more"."""
    from rich.console import Console

    def drawn(progress, width):
        console = Console(width=width, record=True, color_system=None)
        console.print(progress_line(progress, 10, "verdicts"))
        return console.export_text().rstrip("\n").split("\n")

    four = {"ann": 1, "bob": 2, "carl": 3, "dan": 4}
    assert drawn(four, 120) == [progress_line(four, 10, "verdicts").plain]
    assert drawn(four, 80) == [
        " verdicts: ann ━───────── 1/10 · bob ━━──────── 2/10 · carl ━━━─────── 3/10",
        "   dan ━━━━────── 4/10",
    ]
    many = {f"r{n}": n for n in range(8)}
    lines = drawn(many, 80)
    assert len(lines) == 2 and lines[1].endswith(" · +2 more") and all(len(line) <= 80 for line in lines)


@pytest.mark.parametrize("keys", ["", "e"])
def test_snapshot_a_disagreement_to_adjudicate(snap_compare, tmp_path, keys):
    """80x24: the lists one name a cell (a name with a comma in one cell), the reviewers' lists
    side by side with the keys that settle them; then the list editor over it."""
    db = imported_mentions(tmp_path, (("The second brand, Nike", 1), ("Adidas", 1)))
    with opened(db) as conn:
        reviews.review(conn, 1, "ana", "edit", ["Adidas", "The second brand, Nike"])
        reviews.review(conn, 1, "bo", "accept", blind=True)

    async def go(pilot):
        await pilot.press("4")
        screen = pilot.app.screen
        await filtered(pilot, screen, "reviewer disagreements")
        for key in keys:
            await pilot.press(key)
        for _ in range(3):
            await settled(pilot)

    assert snap_compare(WorkbenchApp(db, reviewer="carol"), terminal_size=(80, 24), run_before=go)
