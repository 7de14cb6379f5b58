"""One rule for a reviewer's name, however it enters (--who, $USER, tui --reviewer), and one
person however the name is spelt (`Ann`, `ANN`, `ann` + a zero-width space): the exact
sequences that once went wrong, through the CLI and in the app."""

from __future__ import annotations

import asyncio

import pytest
from conftest import rows
from helpers import run_cli, wait_for
from test_decisions import imported, lists_json

from workbench.app import WorkbenchApp
from workbench.store.review.reviewer_names import clean_reviewer, reviewer_key

ZWSP = "\u200b"


def _verdict(db, list_id, *how, env=None):
    return run_cli("review", "verdict", "--db", str(db), "--study", "s", "--list", str(list_id), *how, env=env)


def _adjudicate(db, list_id, who):
    return run_cli(
        "review", "adjudicate", "--db", str(db), "--study", "s", "--list", str(list_id), "--who", who, "--take", "bo"
    )


@pytest.mark.parametrize("login", ["ann\x1b[31m", "ann\nbo", "x" * 101])
def test_the_login_name_and_tui_reviewer_meet_the_rule_of_who(tmp_path, login):
    db = imported(tmp_path)
    out = _verdict(db, 1, "--accept", env={"USER": login})
    assert out.returncode == 2 and out.stderr.startswith("error: $USER takes a person's name")
    assert len(out.stderr.strip().splitlines()) == 1 and "\x1b" not in out.stderr
    tui = run_cli("tui", "--db", str(db), "--reviewer", login)
    assert tui.returncode == 2 and tui.stderr.startswith("error: --reviewer takes a person's name")
    assert rows(db, "SELECT COUNT(*) FROM verdicts") == [(0,)]  # nothing recorded under such a name


def test_ann_spelt_three_ways_is_one_person(tmp_path):
    db = imported(tmp_path)
    q1, q2 = (next(r["list_id"] for r in lists_json(db) if r["question"] == q) for q in ("q1", "q2"))
    assert _verdict(db, q1, "--who", "Ann", "--edit", "Puma").returncode == 0
    assert _verdict(db, q1, "--who", "bo", "--blind", "--edit", "Reebok").returncode == 0
    # ann may not settle her own disagreement by spelling herself otherwise.
    for alias in ("ANN", f"ann{ZWSP}", "\uff41\uff4e\uff4e"):  # upper case, a zero-width space, full width
        refused = _adjudicate(db, q1, alias)
        assert refused.returncode == 2 and "is Ann, one of the reviewers who disagree" in refused.stderr, alias
    assert _adjudicate(db, q1, "cy").returncode == 0
    # Recorded as typed, cleaned: the zero-width space is gone; still one reviewer on q2.
    assert _verdict(db, q2, "--who", f"ann{ZWSP}", "--blind", "--edit", "Hoka").returncode == 0
    assert _verdict(db, q2, "--who", "ANN", "--edit", "Asics").returncode == 0
    assert rows(db, "SELECT reviewer FROM verdicts ORDER BY id")[-2:] == [("ann",), ("ANN",)]
    listed = next(r for r in lists_json(db) if r["list_id"] == q2)
    assert list(listed["verdicts"]) == ["ANN"]  # one person, under the name of her latest verdict
    assert lists_json(db, "--only", "reviewer-disagreements") == []
    same = run_cli("review", "agreement", "--db", str(db), "--study", "s", "--first", "ann", "--second", "ANN")
    assert same.returncode == 2 and "are one" in same.stderr
    undone = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "aNn")
    assert undone.returncode == 0 and "edit" in undone.stdout
    assert rows(db, "SELECT reviewer FROM verdicts WHERE undone = 1") == [("ANN",)]


def test_the_rule_and_the_key():
    assert clean_reviewer(f"  Ann{ZWSP}  Lee ") == "Ann Lee"
    assert reviewer_key("ANN") == reviewer_key(f"a{ZWSP}nn") == reviewer_key("\uff21nn") == "ann"
    assert reviewer_key("Ann") != reviewer_key("Anne")


def test_in_the_app_ann_spelt_otherwise_cannot_take_a_list_of_her_own_disagreement(tmp_path):
    db = imported(tmp_path)
    q1 = next(r["list_id"] for r in lists_json(db) if r["question"] == "q1")
    assert _verdict(db, q1, "--who", "ann", "--edit", "Puma").returncode == 0
    assert _verdict(db, q1, "--who", "bo", "--blind", "--edit", "Reebok").returncode == 0

    async def reviewing(who: str) -> tuple[list[str], str, dict]:
        app = WorkbenchApp(db, reviewer=who)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4")
            screen = app.screen
            for _ in range(6):
                if screen.filter == "reviewer disagreements":
                    break
                loads = screen.loads
                await pilot.press("f")
                assert await wait_for(pilot, lambda before=loads: screen.loads > before and not screen.busy)
            assert await wait_for(pilot, lambda: screen.page is not None and screen.page["id"] == q1)
            return screen.validators(screen.page), app.reviewer, screen.progress["by"]

    takes, shown, by = asyncio.run(reviewing(f"ANN{ZWSP}"))
    assert takes == [] and shown == "ANN"  # she is one of the two: no list of theirs to take
    assert sorted(by) == ["ann", "bo"]
    takes, _, _ = asyncio.run(reviewing("cy"))
    assert takes == ["ann", "bo"]
