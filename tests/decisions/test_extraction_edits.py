"""An edited [extraction] counts as the study file says: the gazetteer file (a brand added),
`k`, `fuzzy` and the method are part of what made each list, so the next run extracts again
the lists made otherwise (asking no model again), says how many and why, and every surface
equals a fresh run of the edited file; a reviewer's verdict on a list still governs it."""

from __future__ import annotations

import pytest
from conftest import rows
from helpers import run_cli
from test_decisions import lists_json, verdict
from test_study_file_truth import BEFORE, assert_as_fresh, write

BRANDS = "name,spellings,region\nNike,,United States\nAdidas,,Europe\nAsics,,Asia\n"
GAZETTEER = 'method = "gazetteer"\nentities = "brands.csv"\nk = 5'


def run_out(study, db) -> str:
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def lists(db) -> list[tuple]:
    return rows(
        db,
        "SELECT l.question, l.repetition, l.source, group_concat(m.surface, '|') FROM mention_lists l "
        "LEFT JOIN mentions m ON m.list_id = l.id GROUP BY l.id ORDER BY l.question, l.repetition",
    )


@pytest.mark.parametrize(
    "before, after, brands, why",
    [
        pytest.param(GAZETTEER, GAZETTEER, BRANDS + "Brooks,,United States\n", "the gazetteer file changed", id="file"),
        pytest.param(GAZETTEER, GAZETTEER.replace("k = 5", "k = 1"), BRANDS, "k changed from 5 to 1", id="k"),
        pytest.param(GAZETTEER, GAZETTEER + "\nfuzzy = false", BRANDS, "fuzzy changed from True to False", id="fuzzy"),
        pytest.param(GAZETTEER, 'method = "list"', BRANDS, "method changed from gazetteer to list", id="to list"),
        pytest.param('method = "list"', GAZETTEER, BRANDS, "method changed from list to gazetteer", id="to gazetteer"),
    ],
)
def test_an_edited_extraction_extracts_again_as_a_fresh_run(tmp_path, fake_server, before, after, brands, why):
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    (tmp_path / "brands.csv").write_text(BRANDS)
    first = run_out(write(study, server.base_url, BEFORE, extraction=before), db)
    assert "extracted again" not in first
    made = lists(db)
    (tmp_path / "brands.csv").write_text(brands)
    write(study, server.base_url, BEFORE, extraction=after)
    asked = server.stats.ok
    out = run_out(study, db)
    assert server.stats.ok == asked, "an extraction edit asked the model again"
    assert f"Of these, 6 lists were extracted again: {why}." in out
    assert lists(db) != made or why.startswith("fuzzy")  # the fake's answers spell every brand right
    assert_as_fresh(tmp_path, study, db)
    assert lists(db) == lists(tmp_path / "fresh0.db")
    assert "extracted again" not in run_out(study, db), "an unchanged study extracted again"


def test_a_reviewers_verdict_governs_the_list_extracted_again(tmp_path, fake_server):
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    (tmp_path / "brands.csv").write_text(BRANDS)
    run_out(write(study, server.base_url, BEFORE, extraction=GAZETTEER), db)
    judged = lists_json(db)[0]
    assert verdict(db, judged["list_id"], "ana", "--edit", "Hoka").returncode == 0
    (tmp_path / "brands.csv").write_text(BRANDS + "Brooks,,United States\nHoka,,United States\n")
    out = run_out(write(study, server.base_url, BEFORE, extraction=GAZETTEER.replace("k = 5", "k = 2")), db)
    assert "Of these, 6 lists were extracted again: k changed from 5 to 2, the gazetteer file changed." in out
    now = next(
        r for r in lists_json(db) if (r["question"], r["repetition"]) == (judged["question"], judged["repetition"])
    )
    assert now["current"] == ["Hoka"], "the verdict no longer governs its list"
    assert len(now["extracted"]) <= 2 and now["extracted"] != judged["extracted"]
    assert list(now["verdicts"]) and not now["no_longer_apply"]


def test_lists_from_before_settings_were_kept_are_extracted_again_once(tmp_path, fake_server):
    """A store whose lists carry no settings (written before they were recorded) extracts them
    again at its next run, with the file's settings, and not at the run after."""
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run_out(write(study, server.base_url, BEFORE), db)
    made = lists(db)
    import sqlite3

    raw = sqlite3.connect(db)
    raw.execute("UPDATE mention_lists SET extracted_with = NULL")
    raw.commit()
    raw.close()
    assert "6 lists were extracted again: made before extraction settings were recorded." in run_out(study, db)
    assert lists(db) == made
    assert "extracted again" not in run_out(study, db)


EXPERTS = 'method = "experts"\nexperts = 3\nk = 3'


@pytest.mark.parametrize(
    "after, why, asks",
    [
        pytest.param(EXPERTS.replace("k = 3", "k = 2"), "k changed from 3 to 2", 18, id="k: new experts' requests"),
        pytest.param(EXPERTS + "\nmin_votes = 1", "min_votes changed from 2 to 1", 0, id="min_votes: the same replies"),
    ],
)
def test_edited_experts_vote_again_on_their_own_replies(tmp_path, fake_server, after, why, asks):
    """Experts whose requests change (k is in their prompt) are asked anew, and only their
    replies are voted; a vote setting alone votes the stored replies again, asking nothing."""
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run_out(write(study, server.base_url, BEFORE, extraction=EXPERTS), db)
    asked = server.stats.ok
    out = run_out(write(study, server.base_url, BEFORE, extraction=after), db)
    assert server.stats.ok - asked == asks
    assert f"Of these, 6 lists were extracted again: {why}." in out
    assert_as_fresh(tmp_path, study, db)
    assert lists(db) == lists(tmp_path / "fresh0.db")
    assert rows(db, "SELECT COUNT(*) FROM expert_lists") == [(18,)], "another settings' experts are still shown"
    assert "extracted again" not in run_out(study, db)


def test_experts_put_back_count_their_stored_replies_again(tmp_path, fake_server):
    server = fake_server()
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    run_out(write(study, server.base_url, BEFORE, extraction=EXPERTS), db)
    run_out(write(study, server.base_url, BEFORE, extraction=EXPERTS.replace("k = 3", "k = 2")), db)
    asked = server.stats.ok
    out = run_out(write(study, server.base_url, BEFORE, extraction=EXPERTS), db)
    assert server.stats.ok == asked, "the first experts were asked again"
    assert "Of these, 6 lists were extracted again: k changed from 2 to 3." in out
    assert_as_fresh(tmp_path, study, db)
    assert lists(db) == lists(tmp_path / "fresh0.db")
