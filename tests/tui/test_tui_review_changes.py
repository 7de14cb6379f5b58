"""A reviewer judges the list they read: when the Review screen's refresh changes the list on
view (another reviewer's verdict from the command line, a list taken out of the filter), the
screen says so, marks it, and refuses the next verdict or edit key once; the second press
judges the list as shown now. A blind reviewer's list never changes by others' verdicts."""

import asyncio
import json

from conftest import rows
from helpers import imported_mentions, on_screen, retype_list, shown, wait_for

from workbench.app import WorkbenchApp
from workbench.store.db import connect, opened
from workbench.store.review import verdicts as reviews
from workbench.store.review.validation import validation_sample

VERDICTS = "SELECT reviewer, decision, before_json, after_json, blind FROM verdicts ORDER BY id"


def elsewhere(db, change):
    """A write from another connection, as `workbench review verdict` makes it."""
    with opened(db) as conn:
        return change(conn)


def ready(screen):
    """The pages and the details of the list on view read, nothing being stored."""
    return not screen.store_busy() and "entities" in (screen.page or {})


def said(app, words):
    return any(words in n.message for n in app._notifications)


async def to_filter(pilot, screen, name):
    while screen.filter != name:
        loads = screen.loads
        await pilot.press("f")
        assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)


async def on_list(pilot, screen, list_id):
    while screen.page["id"] != list_id:
        await pilot.press("n")
    assert await wait_for(pilot, lambda: "entities" in screen.page and screen.page["id"] == list_id)


def test_a_list_edited_elsewhere_while_on_screen_is_not_judged_unread(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 3), ("Adidas", 3)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await to_filter(pilot, screen, "all")
            await on_list(pilot, screen, 4)
            read = screen.page["version"]
            elsewhere(db, lambda conn: reviews.review(conn, 4, "bob", "edit", ["Reebok"]))
            # No key: the refresh shows bob's list, and says the list changed while on screen.
            assert await wait_for(pilot, lambda: "entities" in screen.page and screen.page["version"] != read)
            assert await wait_for(pilot, lambda: said(app, "List 4 changed while on screen (bob's edit)"))
            assert await wait_for(pilot, lambda: ready(screen))
            assert "CHANGED" in shown(screen.query_one("#review-status"))
            assert "List 4 changed while on screen (bob's edit)" in shown(screen.query_one("#review-lists"))
            await pilot.press("x")  # refused: ann has not read bob's list yet
            assert said(app, "List 4 changed while on screen (bob's edit): read it, then press again")
            assert rows(db, "SELECT reviewer FROM verdicts ORDER BY id") == [("bob",)]
            assert "CHANGED" not in shown(screen.query_one("#review-status"))
            loads = screen.loads
            await pilot.press("x")  # read now: judged as shown
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, VERDICTS) == [
        ("bob", "edit", '["Adidas"]', '["Reebok"]', 0),
        ("ann", "reject", '["Reebok"]', "[]", 0),
    ]


def test_an_edit_begun_before_a_change_elsewhere_keeps_the_typed_list(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 3),))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await to_filter(pilot, screen, "all")
            await on_list(pilot, screen, 2)
            await pilot.press("e")
            assert await on_screen(pilot, "ListEditor")
            editor = app.screen
            elsewhere(db, lambda conn: reviews.review(conn, 2, "bob", "edit", ["Reebok"]))
            # Under the editor, the screen sees the list change and says so.
            assert await wait_for(pilot, lambda: said(app, "List 2 changed while on screen (bob's edit)"))
            await retype_list(pilot, ["Puma"])
            await pilot.press("enter")  # ann's list was made on Nike's: held back, the editor stays
            assert await wait_for(pilot, lambda: said(app, "List 2 changed while you edited it (bob's edit)"))
            assert app.screen is editor and editor.names == ["Puma"]
            changed = shown(editor.query_one("#list-changed"))
            assert "List 2 changed while you edited it (bob's edit). It is now:" in changed
            assert "1. Reebok" in changed
            assert rows(db, "SELECT reviewer FROM verdicts ORDER BY id") == [("bob",)]
            loads = screen.loads
            await pilot.press("ctrl+s")  # read: ann's list saved in the place of bob's
            assert await on_screen(pilot, "ReviewScreen")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, VERDICTS)[1] == ("ann", "edit", '["Reebok"]', '["Puma"]', 0)


def test_a_typed_list_survives_a_change_that_takes_its_list_out_of_the_filter(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 1)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")  # unreviewed
            screen = app.screen
            assert await wait_for(pilot, lambda: ready(screen) and screen.page["id"] == 1)
            await pilot.press("e")
            assert await on_screen(pilot, "ListEditor")
            editor = app.screen
            await pilot.press(*"Brooks", "enter")
            elsewhere(db, lambda conn: reviews.review(conn, 1, "bob", "edit", ["Saucony"]))
            assert await wait_for(pilot, lambda: screen.page["id"] == 2 and ready(screen))
            await pilot.press("ctrl+s")
            assert await wait_for(pilot, lambda: said(app, "List 1 changed while you edited it (bob's edit)"))
            assert app.screen is editor and editor.names == ["Nike", "Brooks"]
            assert "1. Saucony" in shown(editor.query_one("#list-changed"))
            await pilot.press("ctrl+s")
            assert await on_screen(pilot, "ReviewScreen")
            assert await wait_for(pilot, lambda: len(rows(db, VERDICTS)) == 2 and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, VERDICTS) == [
        ("bob", "edit", '["Nike"]', '["Saucony"]', 0),
        ("ann", "edit", '["Saucony"]', '["Nike", "Brooks"]', 0),
    ]


def test_a_list_a_verdict_elsewhere_takes_out_of_the_filter_leaves_the_next_unjudged(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 2)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ann")
        async with app.run_test(size=(100, 30)) as pilot:
            notices = []  # every notice, expired or not
            told = app.notify
            app.notify = lambda message, *a, **k: (notices.append(message), told(message, *a, **k))[1]
            await pilot.press("4")  # unreviewed
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.page is not None and "entities" in screen.page)
            assert screen.page["id"] == 1
            elsewhere(db, lambda conn: reviews.review(conn, 1, "bob", "accept"))
            # List 1 is reviewed now: list 2 takes its place on screen, said and marked.
            assert await wait_for(pilot, lambda: screen.page["id"] == 2 and "entities" in screen.page)
            on_screen_now = "List 1 left this filter (bob's accept): list 2 is on screen now"
            assert said(app, f"{on_screen_now}; read it before judging it.")
            # One notice: the change to list 1 that its detail read saw first is not said apart.
            assert not any("List 1 changed while on screen" in m for m in notices)
            assert await wait_for(pilot, lambda: ready(screen))
            assert "CHANGED" in shown(screen.query_one("#review-status"))
            await pilot.press("a")
            assert said(app, f"{on_screen_now}; read it, then press again")
            assert [m for m in notices if "List 1" in m] == [
                f"{on_screen_now}; read it before judging it.",
                f"{on_screen_now}; read it, then press again",
            ]
            assert rows(db, "SELECT reviewer FROM verdicts ORDER BY id") == [("bob",)]
            loads = screen.loads
            await pilot.press("a")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, "SELECT reviewer, decision FROM verdicts ORDER BY id") == [("bob", "accept"), ("ann", "accept")]
    assert rows(db, "SELECT question FROM verdicts WHERE reviewer = 'ann'") == [("q1",)]


def test_own_decisions_and_moving_away_and_back_are_no_change(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2),))

    async def scenario():
        app = WorkbenchApp(db, reviewer="ann")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await to_filter(pilot, screen, "all")
            await on_list(pilot, screen, 2)  # the last: a verdict stays on it
            loads = screen.loads
            await pilot.press("x")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)
            assert await wait_for(pilot, lambda: "entities" in screen.page and screen.page["entities"] == [])
            loads = screen.loads
            await pilot.press("u")  # ann's own undo of the list on view: no news either
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)
            assert await wait_for(pilot, lambda: "entities" in screen.page and screen.page["entities"] == ["Nike"])
            elsewhere(db, lambda conn: reviews.review(conn, 2, "bob", "edit", ["Reebok"]))
            assert await wait_for(pilot, lambda: said(app, "List 2 changed while on screen (bob's edit)"))
            assert await wait_for(pilot, lambda: ready(screen))
            await pilot.press("p")
            assert await wait_for(pilot, lambda: "entities" in screen.page and screen.page["id"] == 1)
            await pilot.press("n")  # away and back: read as shown
            assert await wait_for(pilot, lambda: "entities" in screen.page and screen.page["id"] == 2)
            assert "CHANGED" not in shown(screen.query_one("#review-status"))
            loads = screen.loads
            await pilot.press("a")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, "SELECT reviewer, decision, undone FROM verdicts ORDER BY id") == [
        ("ann", "reject", 1),
        ("bob", "edit", 0),
        ("ann", "accept", 0),
    ]
    assert json.loads(rows(db, "SELECT before_json FROM verdicts WHERE id = 3")[0][0]) == ["Reebok"]


def test_a_blind_reviewers_list_does_not_change_by_others_verdicts(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 10), ("Adidas", 10)))
    conn = connect(db)
    sampled = validation_sample(conn)[0]
    conn.close()

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            screen = app.screen
            await to_filter(pilot, screen, "validation sample (blind)")
            await on_list(pilot, screen, sampled)
            read, machine = screen.page["version"], screen.page["entities"]
            loads = screen.loads
            elsewhere(db, lambda conn: reviews.review(conn, sampled, "ann", "edit", ["Reebok"]))
            # The refresh read the list again: the machine's list, the same version, nothing said.
            assert await wait_for(pilot, lambda: screen.loads > loads and ready(screen))
            assert screen.page["version"] == read and screen.page["entities"] == machine
            assert not said(app, "changed while on screen") and "ann" not in shown(screen.query_one("#review-lists"))
            assert "Reebok" not in shown(screen.query_one("#review-lists"))
            loads = screen.loads
            await pilot.press("x")
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

    asyncio.run(scenario())
    assert rows(db, "SELECT reviewer, decision, blind FROM verdicts ORDER BY id") == [
        ("ann", "edit", 0),
        ("bo", "reject", 1),
    ]
