"""Review and entity de-duplication in the app, by keys only."""

import asyncio
import csv
import json

from conftest import rows
from helpers import imported_mentions, on_screen, retype_list, run_cli, settled, shown, wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp


def test_review_ten_responses_with_undo(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=12)
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n')
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    first_list = rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank")

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen

            def status():
                return str(screen.query_one("#review-status").render())

            async def decided(*keys):  # a decision, stored and the pages read again
                loads = screen.loads
                await pilot.press(*keys)
                assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)

            assert await wait_for(
                pilot, lambda: "Here are my picks" in str(screen.query_one("#review-answer").render())
            )
            assert "expert 1" in shown(screen.query_one("#review-lists"))  # the answer, literally, and lists
            await decided("x")  # reject the first: it recommends nothing
            assert rows(db, "SELECT COUNT(*) FROM mentions WHERE list_id = 1") == [(0,)]
            await decided("u")  # undo restores the list exactly
            assert rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank") == first_list
            for _ in range(8):
                assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))  # details read
                await decided("a")
            await pilot.press("e")
            assert await on_screen(pilot, "ListEditor")
            await retype_list(pilot, ["Nike", "Hoka"])
            await decided("enter")  # Enter on the empty line saves the list
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            await decided("a")
            assert "unreviewed: 1/2" in status()
            await decided("f")  # disagreements between experts
            await decided("f")  # disagreements between reviewers (to adjudicate)
            assert "reviewer disagreements: 0/0" in status()
            await decided("f")  # resolved by an adjudication
            await decided("f")  # all
            assert "all: 1/12" in status()
            await decided("t")  # the one topic
            assert "all · gadgets: 1/12" in status()
            await decided("o")  # one model
            await decided("o")  # then all models again
            assert "all · gadgets: 1/12" in status()

    asyncio.run(scenario())
    verdicts = rows(db, "SELECT decision, COUNT(*) FROM verdicts WHERE undone = 0 GROUP BY decision")
    assert dict(verdicts) == {"accept": 9, "edit": 1}
    assert rows(db, "SELECT COUNT(*) FROM verdicts WHERE undone = 1") == [(1,)]
    edited = rows(
        db,
        "SELECT l.id FROM verdicts v JOIN mention_lists l ON l.question = v.question AND l.model = v.model "
        "AND l.repetition = v.repetition WHERE v.decision = 'edit'",
    )[0][0]
    assert rows(db, "SELECT surface FROM mentions WHERE list_id = ? ORDER BY rank", edited) == [("Nike",), ("Hoka",)]
    assert rows(db, "SELECT DISTINCT reviewer FROM verdicts") == [("ana",)]
    exported = json.loads(run_cli("export", "--db", str(db), "--what", "reviews", "--format", "json").stdout)
    assert len(exported) == 11 and exported[0]["decision"] == "reject" and exported[0]["state"] == "undone"
    assert exported[0]["reviewer"] == "ana" and exported[0]["at"] and json.loads(exported[0]["before_json"])


def peir_cell(app):
    table = app.screen.query_one("#peir-table")
    return str(table.get_row_at(0)[1]) if table.row_count else ""


def test_merge_changes_metrics_undo_and_forbid(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 5), ("Nike, Inc.", 2), ("Adidas", 6), ("Addidas", 1)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Adidas 0.43"))
            await pilot.press("5")
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 2)
            first = app.screen.current()
            assert first.method == "fingerprint" and first.members == ["Nike", "Nike, Inc."]
            await pilot.press("a")  # merge Nike and Nike, Inc.
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 1)
            await pilot.press("2", "r")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Nike 0.50"))  # 7 of 14
            await pilot.press("5", "u")  # undo the merge
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 2)
            await pilot.press("c")  # only key collisions (score 100): the fuzzy Adidas pair hides
            assert app.screen.query_one("#suggestions-table").row_count == 1
            await pilot.press("c", "c", "c")  # back to every score
            await pilot.press("2", "r")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Adidas 0.43"))  # back
            await pilot.press("5")
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 2)
            await pilot.press("down", "x")  # Adidas / Addidas are different
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 1)
            await pilot.press("r")  # re-cluster: the forbidden pair does not come back
            await settled(pilot)
            members = [s.members for s in app.screen.suggestions]
            assert members == [["Nike", "Nike, Inc."]]
            await pilot.press("g")  # a region for every member of the cluster
            assert await on_screen(pilot, "PickRegion")
            await pilot.press("ctrl+u", *"United States", "enter")
            assert await wait_for(
                pilot, lambda: any("Region United States assigned to 2" in n.message for n in app._notifications)
            )

    asyncio.run(scenario())
    assert rows(db, "SELECT name, region FROM entities WHERE name LIKE 'Nike%' ORDER BY name") == [
        ("Nike", "United States"),
        ("Nike, Inc.", "United States"),
    ]
    decisions = json.loads(run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json").stdout)
    assert [(d["action"], d["state"], d["who"]) for d in decisions] == [
        ("merge", "undone", "bo"),
        ("forbid", "active", "bo"),
        ("region", "active", "bo"),  # a region assignment is a decision too: logged, undoable
    ]


def test_chained_cluster_shows_how_each_member_joined_and_drops_one(tmp_path):
    db = imported_mentions(tmp_path, (("Acme", 5), ("Acme Inc.", 2), ("The Acme", 1), ("Acmme", 1)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("5")
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 1)
            cluster = app.screen.current()
            assert cluster.method == "nearest" and len(cluster.members) == 4  # one cluster, not two
            detail = str(app.screen.query_one("#suggestion-detail").render())
            assert "Acme Inc.  (2 mentions, fingerprint)" in detail and "Acmme  (1 mention, misspelling" in detail
            await pilot.press("d")  # keep the strict members only
            assert await wait_for(pilot, lambda: type(app.screen).__name__ == "PickMembers")
            picks = app.screen.query_one("SelectionList")
            picks.highlighted = app.screen.members.index("Acmme")
            await pilot.press("space", "enter")  # untick the misspelling, keep the rest
            assert await wait_for(pilot, lambda: len(app.screen.current().members) == 3)
            await pilot.press("a")  # merged; the dropped member is suggested again on its own
            assert await wait_for(
                pilot, lambda: app.screen.suggestions and app.screen.suggestions[0].members == ["Acme", "Acmme"]
            )
            await pilot.press("x")  # different: never suggested together again
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 0)

    asyncio.run(scenario())
    assert rows(
        db, "SELECT e.name, COUNT(*) FROM aliases a JOIN entities e ON e.id = a.entity_id GROUP BY e.id ORDER BY e.name"
    ) == [("Acme", 3), ("Acmme", 1)]


def test_validation_sample_and_kappa(tmp_path):
    from workbench.store.db import connect
    from workbench.store.review import validation as review_validation
    from workbench.store.review import verdicts as reviews

    assert review_validation.cohen_kappa(["a", "a", "r", "r"], ["a", "a", "r", "r"]) == 1.0
    # one list: chance agreement 1 or 0, so kappa undefined or 0 whatever the reviewers did (it read 0.000)
    assert review_validation.cohen_kappa(["a"], ["r"]) is None and review_validation.cohen_kappa(["a"], ["a"]) is None
    # Hand-computed: po = 0.6, pe = 0.6*0.6 + 0.4*0.4 = 0.52 -> kappa = 0.08 / 0.48 = 1/6.
    assert (
        abs(review_validation.cohen_kappa(["a", "a", "a", "r", "r"] * 2, ["a", "a", "r", "r", "a"] * 2) - 1 / 6) < 1e-9
    )
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for topic in ("shoes", "phones"):
            for q in range(20):
                writer.writerow(["gpt", topic, "c", f"q{q}", 1, 1, "Nike"])
    db = tmp_path / "audit.db"
    run_cli("import", "mentions", str(path), "--db", str(db), "--study", "s")
    conn = connect(db)
    sample = review_validation.sample_list_ids(conn, "s", rate=0.75, seed=1)
    assert 20 < len(sample) < 40 and sample == review_validation.sample_list_ids(conn, "s", rate=0.75, seed=1)
    for n, list_id in enumerate(sample):
        reviews.review(conn, list_id, "ana", "accept")
        reviews.review(conn, list_id, "bo", "accept" if n % 5 else "reject", blind=True)
    conn.close()
    every = ("--rate", "0.75")
    out = run_cli(
        "review",
        "agreement",
        "--db",
        str(db),
        "--study",
        "s",
        "--first",
        "ana",
        "--second",
        "bo",
        "--format",
        "json",
        *every,
    )
    result = json.loads(out.stdout)
    n, rejected = len(sample), (len(sample) + 4) // 5
    assert result["items"] == n and result["both_reviewed"] == n and result["agreement"] == (n - rejected) / n
    assert result["kappa"] == 0.0  # ana always accepts: no agreement beyond chance
    assert (
        "Cohen's kappa"
        in run_cli(
            "review", "agreement", "--db", str(db), "--study", "s", "--first", "ana", "--second", "bo", *every
        ).stdout
    )


def test_metrics_follow_a_merge_without_recomputing_by_hand(tmp_path):
    """After a merge on Entities, showing Metrics again gives the new numbers (no `r`)."""
    db = imported_mentions(tmp_path, (("Nike", 5), ("Nike, Inc.", 2), ("Adidas", 6)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Adidas 0.46"))
            await pilot.press("5")
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count >= 1)
            await pilot.press("a")  # merge Nike and Nike, Inc.: 7 answers name Nike now
            assert await wait_for(pilot, lambda: app.screen.query_one("#suggestions-table").row_count == 0)
            await pilot.press("2")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Nike 0.54"))
            assert not app.screen.query_one("#metrics-body").has_class("stale")

    asyncio.run(scenario())


def test_app_export_names_the_files_and_the_view(tmp_path):
    db = imported_mentions(tmp_path, (("Nike", 5), ("Adidas", 6)))

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: peir_cell(app).startswith("Adidas"))
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")
            await pilot.press("enter")  # the proposed path, beside the database
            assert await wait_for(pilot, lambda: any("Wrote" in n.message for n in app._notifications))
            message = next(n.message for n in app._notifications if "Wrote" in n.message)
            assert str(tmp_path / "audit.metrics.md") in message and "topic: all" in message
            assert "audit.metrics.csv" in message

    asyncio.run(scenario())
    for suffix in ("csv", "json", "md"):
        assert (tmp_path / f"audit.metrics.{suffix}").stat().st_size > 0
    assert not list(tmp_path.glob("*.part"))  # written whole, nothing left behind
