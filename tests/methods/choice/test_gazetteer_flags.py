"""A name the gazetteer found only by a near spelling or by common words at a sentence's start
is flagged: the run counts them, the list keeps them (mention_lists.flagged_json), and the
Review screen and `workbench review lists` show each, so a reviewer can reject it with the
usual verdicts."""

from __future__ import annotations

import asyncio
import json

from conftest import rows
from helpers import run_cli, shown, wait_for, write_study
from openai_server import ServerConfig

ANSWER = "On balance, Asics is best. On is lighter, and Hoka and the Salomn Speedcross follow."


def _run(tmp_path, fake_server):
    (tmp_path / "brands.csv").write_text(
        "name,spellings,region\nOn Running,On,Europe\nAsics,,Asia\nHoka,,United States\nSalomon,,Europe\n"
    )
    server = fake_server(ServerConfig(reply_text=ANSWER))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2)
    study.write_text(
        study.read_text().replace(
            "[[clusters]]", '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\nk = 5\n[[clusters]]'
        )
    )
    db = tmp_path / "g.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    return db, out


def test_the_run_counts_and_the_list_keeps_each_flagged_name(tmp_path, fake_server):
    db, out = _run(tmp_path, fake_server)
    assert "names sought: the gazetteer's 4; 2 near spellings and 2 common-word matches are flagged for review" in (
        out.stdout
    )
    # "On balance" named no On: On Running is the second sentence's "On,".
    assert rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank") == [
        ("Asics",),
        ("On Running",),
        ("Hoka",),
        ("Salomon",),
    ]
    (stored,) = rows(db, "SELECT flagged_json FROM mention_lists WHERE id = 1")[0]
    assert [(f["name"], f["text"], f["kind"]) for f in json.loads(stored)] == [
        ("On Running", "On", "common word"),
        ("Salomon", "Salomn", "near spelling"),
    ]
    listed = json.loads(run_cli("review", "lists", "--db", str(db), "--study", "t", "--format", "json").stdout)
    assert [f["text"] for f in listed[0]["flagged"]] == ["On", "Salomn"]
    table = run_cli("review", "lists", "--db", str(db), "--study", "t").stdout
    assert "⚑ common word: 'On' counted as On Running" in table
    assert "⚑ near spelling: 'Salomn' counted as Salomon" in table


def test_the_review_screen_shows_each_flag_and_a_reviewer_can_take_it_out(tmp_path, fake_server):
    from workbench.app import WorkbenchApp

    db, _ = _run(tmp_path, fake_server)

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: "entities" in (screen.page or {}))
            lists = shown(screen.query_one("#review-lists"))
            assert "found by a near spelling or a common word" in lists
            assert "⚑ common word: 'On' counted as On Running" in lists
            assert "⚑ near spelling: 'Salomn' counted as Salomon" in lists
            answer = screen.query_one("#review-answer").render()
            marked = [answer.plain[s.start : s.end] for s in answer.spans if "yellow" in str(s.style)]
            assert marked == ["On", "Salomn"]  # where each was found: the second sentence's On, not "On balance"

    asyncio.run(scenario())
    # The reviewer disagrees with the machine's On: an edited list without it, by the usual verdict.
    done = run_cli(
        "review", "verdict", "--db", str(db), "--study", "t", "--list", "1",
        "--edit", "Asics", "--edit", "Hoka", "--edit", "Salomon", "--who", "ana",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert rows(db, "SELECT surface FROM mentions WHERE list_id = 1 ORDER BY rank") == [
        ("Asics",),
        ("Hoka",),
        ("Salomon",),
    ]
