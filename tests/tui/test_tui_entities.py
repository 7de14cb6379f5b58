"""The Entities screen as a curator's tool: every entity searched, any set marked and merged,
regions by hand, and one's own decisions listed and undone, by keys only."""

import asyncio
import json

from conftest import rows
from helpers import imported_mentions, on_screen, run_cli, wait_for

from workbench.app import WorkbenchApp

BRANDS = (("Nike", 5), ("NIKE", 1), ("Nike, Inc.", 2), ("Adidas", 7), ("Puma", 3), ("Reebok", 1))


def names_shown(screen):
    table = screen.query_one("#entities-table")
    return [str(table.get_row_at(i)[1]) for i in range(table.row_count)]


def notes(app):
    return [n.message for n in app._notifications]


async def stored(pilot, screen, *keys):
    """Keys that make a decision: wait until it is stored and the screen read the store again."""
    done = screen.clusterings
    await pilot.press(*keys)
    assert await wait_for(pilot, lambda: screen.clusterings > done and not screen.busy)


async def search(pilot, screen, text):
    await pilot.press("slash", "ctrl+u", *text)
    assert await wait_for(pilot, lambda: screen.search == text)
    await pilot.press("enter")  # back to the list, filtered


def entity_of(db, surface_key):
    return rows(
        db, "SELECT e.name FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.surface_key = ?", surface_key
    )


def test_search_every_entity_mark_two_unrelated_and_merge_them(tmp_path):
    db = imported_mentions(tmp_path, BRANDS)

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.clusterings >= 1)
            await search(pilot, screen, "nik")  # every entity, not the suggestions: both Nikes
            assert await wait_for(pilot, lambda: names_shown(screen) == ["Nike", "Nike, Inc."])
            assert screen.view == "all" and screen.focused.id == "entities-table"
            assert "spellings: Nike, NIKE" in str(screen.query_one("#suggestion-detail").render())
            assert "2 of 5 entities match 'nik'" in str(screen.query_one("#entities-status").render())
            await search(pilot, screen, "ADI")  # case ignored
            assert names_shown(screen) == ["Adidas"]
            await pilot.press("space")  # marked, and the mark is shown
            assert str(screen.query_one("#entities-table").get_row_at(0)[0]) == "✓"
            await search(pilot, screen, "puma")
            await pilot.press("space")
            assert list(screen.marked) == ["Adidas", "Puma"]  # no suggested cluster holds them
            assert "2 marked" in str(screen.query_one("#entities-status").render())
            await pilot.press("a")  # the name is asked, the most mentioned offered
            assert await on_screen(pilot, "EditText")
            assert app.screen.query_one("#edit-input").value == "Adidas"
            await stored(pilot, screen, "enter")
            assert screen.marked == {}  # a decision clears the marks
            assert any("Merged 2 into Adidas" in n for n in notes(app))
            await search(pilot, screen, "")
            assert await wait_for(pilot, lambda: "Puma" not in names_shown(screen))
            await search(pilot, screen, "pum")  # a spelling finds the entity that holds it now
            assert names_shown(screen) == ["Adidas"]

    asyncio.run(scenario())
    assert entity_of(db, "puma") == entity_of(db, "adidas") == [("Adidas",)]
    exported = json.loads(run_cli("export", "--db", str(db), "--what", "entities", "--format", "json").stdout)
    assert sorted(e["name"] for e in exported) == ["Adidas", "Nike", "Nike, Inc.", "Reebok"]
    decisions = json.loads(run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json").stdout)
    assert [(d["action"], d["who"], d["state"]) for d in decisions] == [("merge", "ana", "active")]


def test_region_by_hand_is_the_reviewers_decision_and_u_undoes_only_it(tmp_path):
    db = imported_mentions(tmp_path, BRANDS)
    # An older, unrelated decision by another reviewer, from the command line.
    assert run_cli("entities", "merge", "Puma", "Reebok", "--db", str(db), "--who", "cli").returncode == 0

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.clusterings >= 1)
            await search(pilot, screen, "adidas")
            await pilot.press("g")  # the region of the highlighted entity
            assert await on_screen(pilot, "PickRegion")
            assert "Region for 1 entity" in str(app.screen.query_one("#region-title").render())
            await stored(pilot, screen, "ctrl+u", *"europe", "enter")
            assert any("Region Europe assigned to 1 entity" in n for n in notes(app))
            assert rows(db, "SELECT region FROM entities WHERE name = 'Adidas'") == [("Europe",)]
            await stored(pilot, screen, "u")  # the region, not the older merge by cli
            assert any("Undid: region of Adidas: Europe" in n for n in notes(app))
            assert rows(db, "SELECT region FROM entities WHERE name = 'Adidas'") == [(None,)]
            assert entity_of(db, "reebok") == [("Puma",)]
            await stored(pilot, screen, "u")  # nothing of ana's left: cli's merge stays
            assert "Nothing of yours to undo." in notes(app)
            assert entity_of(db, "reebok") == [("Puma",)]
            await stored(pilot, screen, "y")  # made again
            assert rows(db, "SELECT region FROM entities WHERE name = 'Adidas'") == [("Europe",)]

            # Someone else changes it since: the undo is refused, saying by whom.
            assert (
                run_cli("entities", "region", "Adidas", "--region", "Asia", "--db", str(db), "--who", "cli").returncode
                == 0
            )
            await pilot.press("u")
            assert await wait_for(pilot, lambda: any("cannot undo" in n and "by cli" in n for n in notes(app)))
            assert await wait_for(pilot, lambda: not screen.busy)
            assert rows(db, "SELECT region FROM entities WHERE name = 'Adidas'") == [("Asia",)]

    asyncio.run(scenario())
    decisions = json.loads(run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json").stdout)
    assert [(d["action"], d["who"], d["state"]) for d in decisions] == [
        ("merge", "cli", "active"),
        ("region", "ana", "active"),
        ("region", "cli", "active"),
    ]


def test_marked_set_gets_one_region_and_the_history_lists_own_decisions(tmp_path):
    db = imported_mentions(tmp_path, BRANDS)
    assert run_cli("entities", "merge", "Puma", "Reebok", "--db", str(db), "--who", "cli").returncode == 0

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("5")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.clusterings >= 1 and screen.current() is not None)
            assert screen.current().members == ["Nike", "Nike, Inc."]
            await pilot.press("space")  # in the suggestions, space marks the cluster's members
            assert list(screen.marked) == ["Nike", "Nike, Inc."]
            await pilot.press("v")  # every entity
            assert await wait_for(pilot, lambda: screen.view == "all" and "Adidas" in names_shown(screen))
            await pilot.press("space")  # Adidas, the most mentioned, heads the list
            await pilot.press("g")
            assert await on_screen(pilot, "PickRegion")
            assert "Region for 3 entities" in str(app.screen.query_one("#region-title").render())
            await pilot.press(*"Atlantis", "enter")
            assert await on_screen(pilot, "Confirm")  # a new region is asked about
            await stored(pilot, screen, "y")
            assert screen.marked == {}
            await pilot.press("h")  # ana's decisions, latest first
            assert await on_screen(pilot, "DecisionList")
            history = app.screen.query_one("#decisions-table")
            assert [d["who"] for d in app.screen.rows] == ["ana"]  # not cli's merge
            assert [str(c) for c in history.get_row_at(0)][2:4] == ["region", "active"]
            await stored(pilot, screen, "u")  # undone from the list, which shows it
            assert await wait_for(pilot, lambda: str(history.get_row_at(0)[3]) == "undone")
            await pilot.press("escape")
            assert await on_screen(pilot, "EntitiesScreen")

    asyncio.run(scenario())
    assert rows(db, "SELECT COUNT(*) FROM entities WHERE region IS NOT NULL") == [(0,)]
    assert entity_of(db, "reebok") == [("Puma",)]


def test_the_list_view_keys_at_80_columns(tmp_path):
    db = imported_mentions(tmp_path, BRANDS)

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.clusterings >= 1)
            shown = [b.binding.description for b in screen.active_bindings.values() if b.binding.show]
            assert {"Merge", "Forbid", "Undo", "Search", "History"} <= set(shown)
            assert "Mark" not in shown
            await pilot.press("v")
            shown = [b.binding.description for b in screen.active_bindings.values() if b.binding.show]
            assert shown[:3] == ["Mark", "Merge", "Region"] and "Suggestions" in shown and "Forbid" not in shown
            await pilot.press("a")  # nothing marked: it says how
            assert await wait_for(pilot, lambda: any("Mark two entities" in n for n in notes(app)))
            await pilot.press("v")
            assert screen.view == "suggestions" and screen.focused.id == "suggestions-table"

    asyncio.run(scenario())
