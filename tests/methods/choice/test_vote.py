"""The experts' vote keeps what a majority named and what the answer says (docs/methods.md §1, Extraction)."""

import json
import re
import sqlite3

import pytest
from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig

from workbench.asking.extract import majority_vote
from workbench.methods.choice.extraction import combine, default_min_votes, grounded
from workbench.methods.study_files import load_study
from workbench.studies.spec import StudyError

ANSWER = "For running I would pick Nike, Adidas or Asics."


def surfaces(voted):
    return [v.surface for v in voted]


def test_an_entity_one_expert_of_three_names_is_not_kept_at_min_votes_2():
    experts = [["Nike", "Asics"], ["nike", "Asics"], ["Adidas", "Nike"]]
    combined = combine(experts, ANSWER, k=5, min_votes=2)
    assert surfaces(combined.voted) == ["Nike", "Asics"]
    assert surfaces(combined.below_majority) == ["Adidas"]
    assert default_min_votes(3) == 2 and default_min_votes(5) == 3 and default_min_votes(4) == 3


def test_an_entity_two_experts_name_but_the_answer_does_not_is_dropped_or_flagged():
    experts = [["Nike", "Puma"], ["Puma", "Nike"], ["Nike"]]
    dropped = combine(experts, ANSWER, k=5, min_votes=2, grounding="drop")
    assert surfaces(dropped.voted) == ["Nike"] and surfaces(dropped.ungrounded) == ["Puma"]
    flagged = combine(experts, ANSWER, k=5, min_votes=2, grounding="flag")
    assert surfaces(flagged.voted) == ["Nike", "Puma"] and surfaces(flagged.ungrounded) == ["Puma"]


def test_a_dropped_entity_frees_its_place_for_the_next_kept_one():
    experts = [["Puma", "Nike", "Asics"], ["Puma", "Nike", "Asics"]]
    assert surfaces(combine(experts, ANSWER, k=2, min_votes=2).voted) == ["Nike", "Asics"]


def test_grounding_ignores_case_accents_punctuation_and_spacing():
    assert grounded("Nike", "Try NIKE, Inc. shoes.")
    assert grounded("Nike Inc", "Try NIKE, Inc. shoes.")
    assert grounded("Café Bustelo", "cafe bustelo is cheap")
    assert grounded("Air VaporMax", "the Air Vapor-Max is light")
    assert grounded("Breville Barista Express", "the Breville Barista Expres is great")  # one letter off
    assert not grounded("Puma", ANSWER)
    assert not grounded("Nike Air Max 2090", "Nike")  # more than the answer says
    # Short names count only as whole words.
    assert grounded("LG", "an LG OLED") and not grounded("LG", "a clever algorithm")
    assert not grounded("", ANSWER) and not grounded("Nike", "")


def test_min_votes_1_with_flag_is_the_earlier_vote():
    cases = [
        [["Adidas", "Air VaporMax shoes"], ["Adidas X-Rays", "Nike"], ["Nike 954"]],
        [["A", "B", "C"], ["b", "c", "d"], []],
        [["One"], ["Two"], ["Three"], ["two"]],
        [],
    ]
    for experts in cases:
        for k in (1, 3, 5):
            combined = combine(experts, "an answer naming none of them", k=k, min_votes=1, grounding="flag")
            assert combined.voted == majority_vote(experts, k)
            assert combined.below_majority == []


def write_choice(path, server, extraction):
    study = write_study(path, models=[f"openai:m@{server.base_url}"], questions=4, extra_generation="")
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n' + extraction)
    return study


def expert_lists(db):
    conn = sqlite3.connect(db)
    try:
        answers = dict(conn.execute("SELECT request_key, text FROM responses"))
        out = {}
        for key, entities, parsed in conn.execute(
            "SELECT response_key, entities_json, parsed FROM expert_lists ORDER BY response_key, expert"
        ):
            out.setdefault(key, [])
            if parsed:
                out[key].append(json.loads(entities))
        voted = {}
        for key, surface in conn.execute(
            "SELECT l.response_key, m.surface FROM mention_lists l JOIN mentions m ON m.list_id = l.id "
            "ORDER BY l.id, m.rank"
        ):
            voted.setdefault(key, []).append(surface)
        return answers, out, voted
    finally:
        conn.close()


def test_a_run_votes_by_majority_keeps_grounded_names_and_reports_the_rest(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    db = tmp_path / "v.db"
    out = run_cli("run", str(write_choice(tmp_path / "s.toml", server, "")), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    answers, lists, voted = expert_lists(db)
    assert len(lists) == 4
    ungrounded = 0
    for key, experts in lists.items():
        expected = combine(experts, answers[key], k=3, min_votes=2, grounding="drop")
        assert voted.get(key, []) == surfaces(expected.voted)
        assert all(grounded(name, answers[key]) for name in voted.get(key, []))
        ungrounded += len(expected.ungrounded)
    assert ungrounded > 0 and sum(map(len, voted.values())) > 0  # the server's experts name brands the answer lacks
    assert f"; {ungrounded} voted entities not found in the answer (dropped)" in out.stdout
    assert rows(db, "SELECT COALESCE(MIN(votes), 2) >= 2 FROM mentions") == [(1,)]


def test_a_run_with_min_votes_1_and_flag_stores_the_earlier_vote(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    db = tmp_path / "v.db"
    study = write_choice(tmp_path / "s.toml", server, 'min_votes = 1\ngrounding = "flag"\n')
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "voted entities not found in the answer (kept, flagged)" in out.stdout
    _answers, lists, voted = expert_lists(db)
    for key, experts in lists.items():
        assert voted.get(key, []) == surfaces(majority_vote(experts, 3))


@pytest.mark.parametrize(
    ("extraction", "message", "detail"),
    [
        ("min_votes = 0", "key 'extraction.min_votes'", "expected a whole number of the experts (experts = 3)"),
        ("min_votes = 4", "key 'extraction.min_votes'", "between 1 and 3, got 4"),
        ("min_votes = true", "key 'extraction.min_votes'", "got a boolean"),
        ('min_votes = "2"', "key 'extraction.min_votes'", "got a string '2'"),
        ('grounding = "maybe"', "key 'extraction.grounding'", "expected 'drop' or 'flag', got 'maybe'"),
    ],
)
def test_the_extraction_keys_are_checked(tmp_path, fake_server, extraction, message, detail):
    server = fake_server(ServerConfig())
    study = write_choice(tmp_path / "s.toml", server, extraction + "\n")
    with pytest.raises(StudyError, match=re.escape(message) + ".*" + re.escape(detail)):
        load_study(study)
    out = run_cli("run", str(study), "--db", str(tmp_path / "x.db"), "--quiet")
    assert out.returncode == 2 and message in out.stderr and detail in out.stderr
    assert not (tmp_path / "x.db").exists()


def test_the_defaults_are_a_majority_and_drop(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    settings = load_study(write_choice(tmp_path / "s.toml", server, "")).extraction
    assert settings.min_votes is None and settings.grounding == "drop"
    settings = load_study(write_choice(tmp_path / "t.toml", server, 'min_votes = 3\ngrounding = "flag"\n')).extraction
    assert settings.min_votes == 3 and settings.grounding == "flag"


def test_names_not_in_the_answer_are_kept_with_the_list_counted_in_status_and_shown_on_review(
    tmp_path, fake_server, capsys
):
    from workbench.cli import main
    from workbench.store.db import connect
    from workbench.store.entities.grounding import ungrounded_counts
    from workbench.store.review.verdicts import review_detail, review_items

    server = fake_server(ServerConfig())
    db = tmp_path / "v.db"
    assert main(["run", str(write_choice(tmp_path / "s.toml", server, "")), "--db", str(db), "--quiet"]) == 0
    answers, lists, voted = expert_lists(db)
    expected = {
        key: surfaces(combine(experts, answers[key], k=3, min_votes=2, grounding="drop").ungrounded)
        for key, experts in lists.items()
    }
    stored = dict(rows(db, "SELECT response_key, ungrounded_json FROM mention_lists"))
    assert {k: json.loads(v) if v else [] for k, v in stored.items()} == expected
    total = sum(map(len, expected.values()))
    conn = connect(str(db), False)
    [count] = ungrounded_counts(conn)
    assert (count["lists"], count["names"]) == (4, total)
    item = next(i for i in review_items(conn, "t") if expected[i["response_key"]])
    detail = review_detail(conn, item)
    assert detail["ungrounded"] == expected[item["response_key"]]
    assert not set(detail["ungrounded"]) & set(detail["entities"])  # dropped: not in the list
    capsys.readouterr()
    assert main(["status", "--db", str(db)]) == 0
    status = capsys.readouterr().out
    assert "Voted entities not found in the answer" in status
    tail = status[status.index("Voted entities not found") :]
    assert any(
        line.split()[-3:] == ["4", str(count["lists_with"]), str(total)] for line in tail.splitlines() if line.strip()
    )
