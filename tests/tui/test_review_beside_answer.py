"""Reviewing without leaving the answer: the list editor leaves the answer readable at 80x24
and 120x40, the validation sample is a filter for the first reviewer too (open), agreement and
kappa show on the Review screen, the same verdict given twice is recorded once, and `review
sample` and `review lists` print one shape; the reviewer-disagreements table has the answer."""

import asyncio
import json

import pytest
from conftest import rows
from helpers import on_screen, run_cli, shown, wait_for, write_study
from openai_server import ServerConfig

from workbench.app import WorkbenchApp
from workbench.store.db import connect
from workbench.store.review import validation as review_validation
from workbench.store.review import verdicts as reviews

ANSWER = (
    "For running on a budget I would pick Nike Pegasus first, then Asics Novablast, and "
    "finally Puma Velocity, all three reliable trainers."
)


@pytest.fixture
def study_db(tmp_path, fake_server):
    """Eight answered questions, every answer the same text (so a test can look for it)."""
    server = fake_server(ServerConfig(reply_text=ANSWER))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=8)
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    return db


def lists(db, *extra):
    out = run_cli("review", "lists", "--db", str(db), "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def verdict(db, list_id, who, *how):
    return run_cli("review", "verdict", "--db", str(db), "--list", str(list_id), "--who", who, *how)


def test_the_same_verdict_twice_is_recorded_once(study_db):
    first = lists(study_db)[0]["list_id"]
    assert verdict(study_db, first, "ana", "--accept").returncode == 0
    again = verdict(study_db, first, "ana", "--accept")
    assert again.returncode == 0, again.stderr
    assert "Already recorded: ana's accept on list" in again.stdout and "nothing changed" in again.stdout
    assert rows(study_db, "SELECT COUNT(*) FROM verdicts") == [(1,)]
    # Another decision is a verdict; so is ana's accept again once bo's edit changed the list.
    assert verdict(study_db, first, "ana", "--edit", "Nike").returncode == 0
    assert verdict(study_db, first, "bo", "--edit", "Puma").returncode == 0
    assert "Verdict" in verdict(study_db, first, "ana", "--edit", "Nike").stdout
    assert rows(study_db, "SELECT reviewer, decision FROM verdicts ORDER BY id") == [
        ("ana", "accept"),
        ("ana", "edit"),
        ("bo", "edit"),
        ("ana", "edit"),
    ]


def test_sample_and_lists_print_one_shape_and_the_sample_is_a_filter(study_db):
    conn = connect(study_db)
    sample = review_validation.sample_list_ids(conn, "t")
    conn.close()
    assert 0 < len(sample) < 8
    blind = run_cli("review", "sample", "--db", str(study_db), "--who", "bo", "--format", "json")
    records = json.loads(blind.stdout)
    assert records == [r for r in lists(study_db, "--blind", "--who", "bo") if r["list_id"] in sample]
    assert [r["list_id"] for r in records] == sample
    assert set(records[0]) == set(lists(study_db)[0])  # list_id, version, answer, ...
    assert records[0]["answer"] == ANSWER
    # The first reviewer's way to the same lists, open (her verdicts and others' shown).
    assert verdict(study_db, sample[0], "ana", "--reject").returncode == 0
    opened = lists(study_db, "--only", "sample", "--who", "ana")
    assert [r["list_id"] for r in opened] == sample
    assert opened[0]["verdicts"]["ana"]["decision"] == "reject"
    table = run_cli("review", "lists", "--db", str(study_db), "--only", "sample").stdout
    assert "in the validation sample" in table
    refused = run_cli("review", "lists", "--db", str(study_db), "--only", "sample", "--blind")
    assert refused.returncode == 2 and "review sample" in refused.stderr


def test_the_reviewer_disagreements_table_has_the_answer(study_db):
    first = lists(study_db)[0]["list_id"]
    assert verdict(study_db, first, "ana", "--edit", "Nike Pegasus").returncode == 0
    assert verdict(study_db, first, "bo", "--reject", "--blind").returncode == 0
    out = run_cli("review", "lists", "--db", str(study_db), "--only", "reviewer-disagreements")
    assert out.returncode == 0, out.stderr
    flat = " ".join(out.stdout.replace("│", " ").split())
    assert "answer: For running on a budget" in flat and "Puma" in flat
    every = lists(study_db, "--only", "reviewer-disagreements")
    assert [r["answer"] for r in every] == [ANSWER]  # the full text in JSON


async def _open_editor(pilot, app):
    await pilot.press("4")
    screen = app.screen
    assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
    await pilot.press("e")
    assert await on_screen(pilot, "ListEditor")
    return screen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_editor_leaves_the_answer_readable(study_db, size):
    async def scenario():
        app = WorkbenchApp(study_db, reviewer="ana")
        async with app.run_test(size=size) as pilot:
            await _open_editor(pilot, app)
            editor = app.screen
            pane = editor.query_one("#list-answer")
            assert pane.size.height >= 4  # lines of the answer, not a sliver
            seen = " ".join(shown(editor.query_one("#list-answer-text")).split())
            assert "For running on a budget I would pick Nike Pegasus" in seen
            # The list being edited is on screen with it, and the screen holds both.
            assert editor.query_one("#list-items").region.bottom <= size[1]
            assert pane.region.bottom <= editor.query_one("#list-items").region.y
            assert "PgUp/PgDn scroll the answer" in shown(editor.query_one("#list-keys"))
            await pilot.press("escape")
            assert await on_screen(pilot, "ReviewScreen")

    asyncio.run(scenario())


def test_the_open_sample_filter_agreement_and_a_repeated_verdict_in_the_app(study_db):
    conn = connect(study_db)
    sample = review_validation.sample_list_ids(conn, "t")
    for list_id in sample:  # bo validated the sample blind: rejected every list
        reviews.review(conn, list_id, "bo", "reject", blind=True)
    conn.close()

    async def scenario():
        app = WorkbenchApp(study_db, reviewer="ana")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("4")
            screen = app.screen
            while screen.filter != "validation sample":
                loads = screen.loads
                await pilot.press("f")
                assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            assert [p["id"] for p in screen.pages] == sample and not screen.blind
            progress = " ".join(shown(screen.query_one("#review-progress")).split())
            assert "agree" not in progress  # one reviewer so far: nothing to compare
            loads = screen.loads
            await pilot.press("x")  # ana rejects too: they agree on that list
            assert await wait_for(pilot, lambda: screen.loads > loads and not screen.busy)
            progress = " ".join(shown(screen.query_one("#review-progress")).split())
            assert "ana & bo agree 100% (1 of 1 list), Cohen's kappa n/a (1 list)" in progress
            await pilot.press("p")  # back to the list just rejected: the same verdict again
            assert await wait_for(pilot, lambda: screen.page["id"] == sample[0] and "entities" in screen.page)
            await pilot.press("x")
            assert await wait_for(pilot, lambda: any("Already recorded" in str(n.message) for n in app._notifications))
            # A blind reviewer is never shown the agreement (it would tell them the other's list).
            while screen.filter != "validation sample (blind)":
                loads = screen.loads
                await pilot.press("f")
                assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)
            assert "agree" not in shown(screen.query_one("#review-progress"))

    asyncio.run(scenario())
    assert rows(study_db, "SELECT COUNT(*) FROM verdicts WHERE reviewer = 'ana'") == [(1,)]


def test_the_same_verdict_with_a_new_reason_is_recorded(study_db):
    """A reason given again, other than the one recorded, corrects the record: it was dropped
    ('Already recorded ... nothing changed') and the old reason stood."""
    first = lists(study_db)[0]["list_id"]
    assert verdict(study_db, first, "ana", "--accept", "--why", "first").returncode == 0
    same = verdict(study_db, first, "ana", "--accept", "--why", "first")
    assert "Already recorded" in same.stdout
    assert "Already recorded" in verdict(study_db, first, "ana", "--accept").stdout  # no reason given: no change
    corrected = verdict(study_db, first, "ana", "--accept", "--why", "second, a correction")
    assert corrected.returncode == 0 and "Already recorded" not in corrected.stdout
    assert rows(study_db, "SELECT why FROM verdicts ORDER BY id") == [("first",), ("second, a correction",)]
