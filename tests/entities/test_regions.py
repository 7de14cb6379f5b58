"""Regions as a vocabulary: one spelling per region, in imports, in the app and in the log-odds."""

import asyncio
import csv
import json
import math
import sqlite3

import pytest
from conftest import rows
from helpers import imported_mentions, on_screen, run_cli, wait_for

from workbench.store.entities.regions import (
    DEFAULT_REGIONS,
    RegionError,
    canonical_region,
    canonical_spellings,
    known_regions,
    vocabulary,
)


def test_canonical_region_trims_ignores_case_and_knows_the_us_aliases():
    for typed in ("United States ", "united states", "  UNITED   states", "USA", "usa", "US", "U.S.", "U.S.A.",
                  "United States of America", "united\u00a0states"):  # fmt: skip
        assert canonical_region(typed) == "United States", typed
    assert canonical_region(" europe ") == "Europe" and canonical_region("ASIA") == "Asia"
    assert canonical_region("") is None and canonical_region("   ") is None and canonical_region(None) is None
    with pytest.raises(RegionError) as refused:
        canonical_region("Eurpoe")
    assert refused.value.value == "Eurpoe" and refused.value.suggestion == "Europe"
    assert "unknown region 'Eurpoe' (did you mean 'Europe'?)" in str(refused.value)
    with pytest.raises(RegionError):
        canonical_region("EU")  # not Europe: Norway, Switzerland and the UK are in one and not the other
    assert canonical_region("  Latin   America ", allow_new=True) == "Latin America"
    # A region added before is known in its first spelling, whatever the case typed now.
    assert canonical_region("latin america", [*DEFAULT_REGIONS, "Latin America"]) == "Latin America"


def test_the_vocabulary_is_the_defaults_plus_what_the_store_holds_once_each():
    assert vocabulary() == list(DEFAULT_REGIONS)
    assert vocabulary(["USA", "united states ", "Africa", "africa", "Africa", None, " "]) == [
        *DEFAULT_REGIONS,
        "Africa",  # the spelling most entities carry
    ]
    spelling = canonical_spellings(["United States ", "united states", "USA", "europe", "Africa", "  "])
    assert spelling == {
        "United States ": "United States",
        "united states": "United States",
        "USA": "United States",
        "europe": "Europe",
        "Africa": "Africa",
        "  ": None,
    }


def write_us_variants(tmp_path):
    """Mentions of three US brands and one European one in two clusters; their regions
    spelt three ways for the United States."""
    lists = {
        ("c1", "q0"): ["Nike", "Adidas"],
        ("c1", "q1"): ["Hoka"],
        ("c1", "q2"): ["Brooks", "Adidas"],
        ("c2", "q0"): ["Nike"],
        ("c2", "q1"): ["Hoka", "Brooks"],
        ("c2", "q2"): ["Adidas"],
    }
    mentions = tmp_path / "m.csv"
    with mentions.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for (cluster, question), entities in lists.items():
            for rank, entity in enumerate(entities, 1):
                writer.writerow(["gpt", "shoes", cluster, f"{cluster}{question}", 1, rank, entity])
    entities = tmp_path / "e.csv"
    entities.write_text("name,region\nNike,United States \nHoka,united states\nBrooks,USA\nAdidas,Europe\n")
    return mentions, entities


def us_numbers(db):
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    lor = next(r for r in records if r["metric"] == "lor" and r["cluster"] is None and r.get("region_b") == "Europe")
    shares = {r["region"]: r["value"] for r in records if r["metric"] == "region_share" and r["cluster"] is None}
    return lor["mean"], shares


# Cluster c1: US slots 3 (Nike, Hoka, Brooks), Europe 2; c2: US 3, Europe 1.
US_VS_EUROPE = (math.log(3.5 / 2.5) + math.log(3.5 / 1.5)) / 2


def test_three_spellings_of_the_united_states_import_as_one_region_and_all_count(tmp_path):
    db = tmp_path / "r.db"
    mentions, entities = write_us_variants(tmp_path)
    assert run_cli("import", "mentions", str(mentions), "--db", str(db), "--study", "s").returncode == 0
    out = run_cli("import", "entities", str(entities), "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert rows(db, "SELECT DISTINCT region FROM entities WHERE region IS NOT NULL ORDER BY region") == [
        ("Europe",),
        ("United States",),
    ]
    mean, shares = us_numbers(db)
    assert mean == pytest.approx(US_VS_EUROPE)
    assert shares == {"United States": pytest.approx(2 / 3), "Europe": pytest.approx(1 / 3)}


def test_a_store_holding_variants_from_before_reads_them_as_one_region(tmp_path):
    """Regions written before imports checked them ("united states ", "USA") count as the US."""
    db = tmp_path / "r.db"
    mentions, entities = write_us_variants(tmp_path)
    assert run_cli("import", "mentions", str(mentions), "--db", str(db), "--study", "s").returncode == 0
    conn = sqlite3.connect(db)
    with conn:
        for name, region in (("Nike", "United States "), ("Hoka", "united states"), ("Brooks", "USA")):
            conn.execute("UPDATE entities SET region = ? WHERE name = ?", (region, name))
        conn.execute("UPDATE entities SET region = 'europe ' WHERE name = 'Adidas'")
    conn.close()
    mean, shares = us_numbers(db)
    assert mean == pytest.approx(US_VS_EUROPE)
    assert shares == {"United States": pytest.approx(2 / 3), "Europe": pytest.approx(1 / 3)}
    conn = sqlite3.connect(db)
    assert known_regions(conn) == list(DEFAULT_REGIONS)  # the variants add no region
    conn.close()


def test_an_unknown_region_is_refused_with_its_line_unless_new_regions_are_asked_for(tmp_path):
    db = tmp_path / "r.db"
    good = tmp_path / "good.csv"
    good.write_text("name,region\nNike,United States\n")
    assert run_cli("import", "entities", str(good), "--db", str(db)).returncode == 0
    typo = tmp_path / "typo.csv"
    typo.write_text("name,region\nNike,Asia\nAdidas,Eurpoe\n")
    out = run_cli("import", "entities", str(typo), "--db", str(db))
    assert out.returncode == 2
    assert f"{typo}: line 3: unknown region 'Eurpoe' (did you mean 'Europe'?)" in out.stderr
    assert "pass --new-region to add new regions" in out.stderr
    # Nothing of the refused file was written, not even its good first row.
    assert rows(db, "SELECT region FROM pending_attributes WHERE name = 'Nike'") == [("United States",)]
    assert rows(db, "SELECT COUNT(*) FROM pending_attributes") == [(1,)]

    added = tmp_path / "added.csv"
    added.write_text("name,region\nDangote,Africa\nMTN, africa \n")
    out = run_cli("import", "entities", str(added), "--db", str(db), "--new-region")
    assert out.returncode == 0, out.stderr
    assert rows(db, "SELECT name, region FROM pending_attributes ORDER BY name") == [
        ("Dangote", "Africa"),
        ("MTN", "Africa"),  # one new region, spelt as its first row spells it
        ("Nike", "United States"),
    ]
    again = tmp_path / "again.csv"
    again.write_text("name,region\nSafaricom,AFRICA\n")  # known now: no flag needed
    assert run_cli("import", "entities", str(again), "--db", str(db)).returncode == 0
    assert rows(db, "SELECT region FROM pending_attributes WHERE name = 'Safaricom'") == [("Africa",)]
    help_text = run_cli("import", "--help").stdout
    assert "--new-region" in help_text and "an empty cell keeps the stored value" in help_text


def test_conflicting_rows_for_one_entity_are_refused_naming_both_lines(tmp_path):
    db = tmp_path / "r.db"
    conflict = tmp_path / "c.csv"
    conflict.write_text("name,region,country\nNike,United States,US\nAdidas,Europe,DE\nNIKE ,Asia,\n")
    out = run_cli("import", "entities", str(conflict), "--db", str(db))
    assert out.returncode == 2
    assert (
        f"{conflict}: line 4: 'NIKE' (the same entity as 'Nike') has region 'Asia' here and 'United States' on line 2"
        in out.stderr
    )
    assert not db.exists()  # a refused import leaves nothing behind
    conflict.write_text("name,region,country\nNike,United States,US\nNike,USA,JP\n")
    out = run_cli("import", "entities", str(conflict), "--db", str(db))
    assert out.returncode == 2 and "line 3: 'Nike' has country 'JP' here and 'US' on line 2" in out.stderr

    same = tmp_path / "same.csv"  # the same values twice, or one row filling in what the other left empty
    same.write_text("name,region,country\nNike,United States,US\nnike,USA,\nNike,,US\n")
    out = run_cli("import", "entities", str(same), "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert rows(db, "SELECT name, region, attributes_json FROM pending_attributes") == [
        ("Nike", "United States", '{"country": "US"}')
    ]


def test_two_spellings_of_one_merged_entity_conflict_too(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 3), ("Nike, Inc.", 1)))
    assert run_cli("entities", "merge", "Nike", "Nike, Inc.", "--into", "Nike", "--db", str(db)).returncode == 0
    both = tmp_path / "b.csv"
    both.write_text('name,region\nNike,United States\n"Nike, Inc.",Europe\n')
    out = run_cli("import", "entities", str(both), "--db", str(db))
    assert out.returncode == 2
    assert (
        "line 3: 'Nike, Inc.' (the same entity as 'Nike') has region 'Europe' here and 'United States' on line 2"
        in (out.stderr)
    )


def test_an_empty_cell_keeps_the_stored_value(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 1)))
    first = tmp_path / "first.csv"
    first.write_text("name,region,country\nNike,United States,US\nAdidas,Europe,DE\nPuma,Europe,DE\n")
    assert run_cli("import", "entities", str(first), "--db", str(db)).returncode == 0
    sparse = tmp_path / "sparse.csv"  # a second file that fills in one column only
    sparse.write_text("name,region,country,sector\nNike,,,sport\nAdidas,  ,DE,\nPuma,,,sport\n")
    out = run_cli("import", "entities", str(sparse), "--db", str(db))
    assert out.returncode == 0, out.stderr
    got = {
        r["name"]: (r["region"], r.get("country"), r.get("sector"))
        for r in json.loads(run_cli("export", "--db", str(db), "--what", "entities", "--format", "json").stdout)
    }
    assert got == {"Nike": ("United States", "US", "sport"), "Adidas": ("Europe", "DE", None)}
    # Kept for a name no entity has yet, the same way.
    assert rows(db, "SELECT region, attributes_json FROM pending_attributes WHERE name = 'Puma'") == [
        ("Europe", '{"country": "DE", "sector": "sport"}')
    ]


def test_the_region_dialog_completes_canonicalises_and_asks_before_adding_a_region(tmp_path):
    from workbench.app import WorkbenchApp

    db = imported_mentions(tmp_path, (("Nike", 5), ("Nike, Inc.", 2), ("Adidas", 6), ("Addidas", 1)))

    def region_of(name):
        return rows(db, "SELECT region FROM entities WHERE name = ?", name)[0][0]

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 2)
            assert app.screen.current().members == ["Nike", "Nike, Inc."]
            screen = app.screen

            async def assigned(region, count):
                assert await wait_for(
                    pilot,
                    lambda: (
                        any(f"Region {region} assigned to {count}" in n.message for n in app._notifications)
                        and not screen.busy
                    ),
                )

            await pilot.press("g")
            assert await on_screen(pilot, "PickRegion")
            dialog = app.screen
            # Nothing cut at 80 columns: the title and the known regions are on screen whole.
            for widget_id, text in (
                ("#region-title", "Region for 2 entities"),
                ("#region-known", "Known: United States, Europe, Asia, Other"),
            ):
                widget = dialog.query_one(widget_id)
                shown = " ".join(
                    "".join(segment.text for segment in line).strip()
                    for line in widget.render_lines(widget.region.reset_offset)
                )
                assert shown == text and widget.region.right <= app.size.width
            await pilot.press(*"Eurpoe", "enter")  # a typo: asked, not taken
            assert await on_screen(pilot, "Confirm")
            question = str(app.screen.query_one("#confirm-question").render())
            assert "Add new region 'Eurpoe'?" in question and "closest known region is Europe" in question
            await pilot.press("n")  # no: back to the text, to mend it
            assert await on_screen(pilot, "PickRegion")
            assert region_of("Nike") is None  # nothing stored yet
            await pilot.press("ctrl+u", *"eu", "tab")  # the completion, in its one spelling
            assert app.screen.query_one("#region-input").value == "Europe"
            await pilot.press("enter")
            await assigned("Europe", 2)
            assert region_of("Nike") == region_of("Nike, Inc.") == "Europe"

            await pilot.press("g")
            assert await on_screen(pilot, "PickRegion")
            await pilot.press(*" usa ", "enter")  # an alias: the United States, nothing asked
            await assigned("United States", 2)
            assert region_of("Nike") == "United States"

            await pilot.press("g")
            assert await on_screen(pilot, "PickRegion")
            await pilot.press(*"Oceania", "enter")
            assert await on_screen(pilot, "Confirm")
            await pilot.press("y")  # yes: added deliberately
            await assigned("Oceania", 2)
            await pilot.press("g")
            assert await on_screen(pilot, "PickRegion")  # offered from now on
            assert "Oceania" in str(app.screen.query_one("#region-known").render())
            await pilot.press("escape")

    asyncio.run(scenario())
    assert rows(db, "SELECT name, region FROM entities WHERE name LIKE 'Nike%' ORDER BY name") == [
        ("Nike", "Oceania"),
        ("Nike, Inc.", "Oceania"),
    ]
