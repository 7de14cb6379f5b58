"""Reviewing like an annotation tool, headless and in the store the app calls: a verdict is
recorded only on the list the reviewer was shown, names hold a letter or digit, a third
reviewer's adjudication is a state that empties the queue, the validation sample stays put
as the study grows, and a blind reviewer sees nothing of the others (the exact sequences
that once went wrong)."""

from __future__ import annotations

import json

import pytest
from conftest import rows
from helpers import run_cli, write_study
from test_decisions import imported, lists_json, verdict, write_lists

from workbench.store.db import connect
from workbench.store.review import adjudication
from workbench.store.review import validation as review_validation
from workbench.store.review import verdicts as reviews


def decisions(db) -> list[tuple]:
    log = json.loads(run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json").stdout)
    return [(d["who"], d["action"], d["after"]) for d in log]


def agreement(db, *extra) -> dict:
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
        *extra,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_verdict_on_a_list_changed_since_it_was_shown_is_refused(tmp_path):
    """ana's screen shows a list; bo edits it to Zeta; ana accepts with the version she was
    shown: refused in one line saying what the list is now, nothing logged, the two do not
    count as agreeing. Shown again, her accept is recorded."""
    db = imported(tmp_path)
    shown = next(r for r in lists_json(db) if r["question"] == "q1")
    assert {"version", "answer", "experts", "vote"} <= set(shown)
    assert shown["vote"]["votes"] == [["Nike", None], ["Adidas", None]] and shown["experts"] == []
    assert verdict(db, shown["list_id"], "bo", "--edit", "Zeta").returncode == 0
    stale = verdict(db, shown["list_id"], "ana", "--if-version", shown["version"], "--accept")
    assert stale.returncode == 2, stale.stdout
    assert "changed since it was shown" in stale.stderr and '["Zeta"]' in stale.stderr and "bo's edit" in stale.stderr
    assert len(stale.stderr.strip().splitlines()) == 1
    assert decisions(db) == [("bo", "edit", '["Zeta"]')]
    assert agreement(db, "--rate", "1")["both_reviewed"] == 0  # never "agreeing" on a list ana did not see
    again = next(r for r in lists_json(db) if r["question"] == "q1")
    assert again["version"] != shown["version"] and again["current"] == ["Zeta"]
    assert verdict(db, shown["list_id"], "ana", "--if-version", again["version"], "--accept").returncode == 0
    assert decisions(db)[-1] == ("ana", "accept", '["Zeta"]')


def test_the_store_refuses_a_stale_version_the_app_gives(tmp_path):
    """The function the app calls: a blind reviewer's version is the extraction's, so another
    reviewer's edit does not make it stale; a re-import that changes the list does."""
    db = imported(tmp_path)
    conn = connect(db)
    list_id = lists_json(db)[0]["list_id"]
    seen, seen_blind = reviews.list_version(conn, list_id), reviews.list_version(conn, list_id, blind=True)
    reviews.review(conn, list_id, "ana", "edit", ["Hoka"], if_version=seen)
    with pytest.raises(reviews.StaleVersion) as refused:
        reviews.review(conn, list_id, "cy", "reject", if_version=seen)
    assert refused.value.names == ["Hoka"] and refused.value.version == reviews.list_version(conn, list_id)
    reviews.review(conn, list_id, "bo", "accept", blind=True, if_version=seen_blind)  # the extraction, unchanged
    conn.close()
    write_lists(tmp_path / "m.csv", {("gpt", "q1", 1): ["Puma"], ("gpt", "q2", 1): ["Puma"]})
    assert run_cli("import", "mentions", str(tmp_path / "m.csv"), "--db", str(db), "--study", "s").returncode == 0
    conn = connect(db)
    list_id = next(r["list_id"] for r in lists_json(db) if r["question"] == "q1")
    with pytest.raises(reviews.StaleVersion):
        reviews.review(conn, list_id, "bo", "accept", blind=True, if_version=seen_blind)
    assert rows(db, "SELECT reviewer, decision FROM verdicts ORDER BY id") == [("ana", "edit"), ("bo", "accept")]


def test_a_name_must_hold_a_letter_or_digit(tmp_path):
    """`--edit '...'` alone and `!!!` among names are refused naming the name (nothing
    recorded); a name holding commas is one name."""
    db = imported(tmp_path)
    list_id = lists_json(db)[0]["list_id"]
    for how, named in ((("--edit", "..."),), "'...'"), ((("--edit", "Nike"), ("--edit", "!!!")), "'!!!'"):
        out = verdict(db, list_id, "ana", *[part for pair in how for part in pair])
        assert out.returncode == 2 and named in out.stderr and "letter or digit" in out.stderr, out.stderr
    out = verdict(db, list_id, "ana", "--edit", "  ")
    assert out.returncode == 2 and "at least one name" in out.stderr
    assert decisions(db) == []
    assert verdict(db, list_id, "ana", "--edit", "Adidas, Inc.", "--edit", "Nike").returncode == 0
    assert lists_json(db)[0]["current"] == ["Adidas, Inc.", "Nike"]


def test_an_edit_naming_a_brand_twice_in_two_cases_is_refused(tmp_path):
    """`--edit Nike --edit nike` once exited 0 and the list held two Nike slots (Nike counted
    twice); it is refused in one line naming both spellings, by the key the list editor uses."""
    db = imported(tmp_path)
    list_id = lists_json(db)[0]["list_id"]
    out = verdict(db, list_id, "ana", "--edit", "Nike", "--edit", "nike")
    assert out.returncode == 2, out.stdout
    assert "'nike' repeats 'Nike'" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert decisions(db) == [] and lists_json(db)[0]["current"] == ["Nike", "Adidas"]
    with pytest.raises(reviews.ReviewRefused, match="'ADIDAS' repeats 'Adidas'"):
        reviews.checked_names(["Adidas", "Puma", "ADIDAS"])
    assert verdict(db, list_id, "ana", "--edit", "Nike", "--edit", "Nike", "--edit", "Puma").returncode == 0
    assert lists_json(db)[0]["current"] == ["Nike", "Puma"]  # the same spelling twice is kept once, as before


def test_a_verdict_holding_a_name_without_letters_is_undone_and_so_are_the_earlier_ones(tmp_path):
    """A log written before names were checked: ana edited q2, then q1 to ["Hoka", "!!!"]
    (the list kept Hoka only). Both undo, latest first, and each list is the extraction again."""
    db = imported(tmp_path)
    conn = connect(db)
    by_question = {r["question"]: r["list_id"] for r in lists_json(db)}
    reviews.review(conn, by_question["q2"], "ana", "edit", ["Asics"])
    with reviews.transaction(conn):  # as the old code stored it: the verdict unchecked
        row = reviews.list_row(conn, by_question["q1"])
        reviews.record_verdict(conn, row, "ana", "edit", ["Hoka", "!!!"])
    conn.close()
    assert lists_json(db)[0]["current"] == ["Hoka"]
    for _ in range(2):
        out = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "ana")
        assert out.returncode == 0 and "Undid ana's edit" in out.stdout, out.stderr
    assert [r["current"] for r in lists_json(db)] == [["Nike", "Adidas"], ["Puma"]]


def test_an_adjudication_resolves_a_disagreement_and_kappa_is_between_the_validators(tmp_path):
    """ana accepts two lists, bo (blind) rejects both: two reviewer disagreements. carla takes
    bo's list on one (`adjudicate --take bo`) and gives her own on the other (a verdict of a
    third reviewer): the queue is empty, both are resolved, ana and bo's agreement is
    unchanged, and the report pairs ana with bo only and says carla adjudicated 2."""
    db = imported(tmp_path)
    ids = {r["question"]: r["list_id"] for r in lists_json(db)}
    for list_id in ids.values():
        assert verdict(db, list_id, "ana", "--accept").returncode == 0
        assert verdict(db, list_id, "bo", "--blind", "--reject").returncode == 0
    queue = lists_json(db, "--only", "reviewer-disagreements")
    assert [r["question"] for r in queue] == ["q1", "q2"]
    before = agreement(db, "--rate", "1")
    refused = run_cli(
        "review", "adjudicate", "--db", str(db), "--study", "s", "--list", ids["q1"], "--who", "ana", "--take", "bo"
    )
    assert refused.returncode == 2 and "a third reviewer adjudicates" in refused.stderr
    nobody = run_cli(
        "review", "adjudicate", "--db", str(db), "--study", "s", "--list", ids["q1"], "--who", "carla", "--take", "dan"
    )
    assert nobody.returncode == 2 and "'dan' has no verdict" in nobody.stderr
    took = run_cli(
        "review", "adjudicate", "--db", str(db), "--study", "s", "--list", ids["q1"], "--who", "carla", "--take", "bo"
    )
    assert took.returncode == 0, took.stderr
    assert verdict(db, ids["q2"], "carla", "--edit", "Puma", "--edit", "Hoka").returncode == 0
    assert lists_json(db, "--only", "reviewer-disagreements") == []
    resolved = {r["question"]: r for r in lists_json(db, "--only", "resolved")}
    assert resolved["q1"]["current"] == [] and resolved["q1"]["adjudication"]["took"] == "bo"
    assert resolved["q2"]["current"] == ["Puma", "Hoka"] and resolved["q2"]["adjudication"]["by"] == "carla"
    after = agreement(db, "--rate", "1")
    assert after["kappa"] == before["kappa"] and after["both_reviewed"] == 2 and after["adjudicated"] == {"carla": 2}
    # A second adjudication of a resolved list supersedes the first.
    again = run_cli(
        "review", "adjudicate", "--db", str(db), "--study", "s", "--list", ids["q1"], "--who", "dan", "--take", "ana"
    )
    assert again.returncode == 0 and lists_json(db, "--only", "resolved")[0]["current"] == ["Nike", "Adidas"]

    from workbench.report.review_facts import review_section

    conn = connect(db)
    section = review_section(conn, "s", 1)
    facts = dict(section.blocks[0].rows)
    assert facts["Adjudicated by carla"] == "2 lists" and facts["Adjudicated by dan"] == "1 list"
    pairs = next(b for b in section.blocks if getattr(b, "title", "").startswith("Two-reviewer"))
    assert [row[:2] for row in pairs.rows] == [["ana", "bo"]]
    assert [r[1] for r in decisions(db) if r[0] in ("carla", "dan")] == [
        "reject (adjudication of ana, bo)",
        "edit (adjudication of ana, bo)",
        "edit (adjudication of ana, bo)",
    ]


def test_the_validation_sample_stays_put_when_the_study_grows(tmp_path):
    """ana and bo review every sampled list; one question more is imported: every list they
    reviewed is still in the sample and agreement still counts all of them."""
    lists = {("gpt", f"q{i}", rep): ["Nike"] for i in range(40) for rep in (1, 2)}
    db = imported(tmp_path, lists)
    conn = connect(db)
    sample = review_validation.sample_list_ids(conn, "s", 0.5, 7)
    keys = set(rows(db, f"SELECT question, repetition FROM mention_lists WHERE id IN ({','.join(map(str, sample))})"))
    assert 20 < len(sample) < 60 and {(q, 3 - r) for q, r in keys} == keys  # whole questions, both repetitions
    for list_id in sample:
        reviews.review(conn, list_id, "ana", "accept")
        reviews.review(conn, list_id, "bo", "accept", blind=True)
    conn.close()
    assert agreement(db, "--rate", "0.5", "--seed", "7")["both_reviewed"] == len(sample)
    for extra in range(40, 60):
        lists[("gpt", f"q{extra}", 1)] = ["Puma"]
    write_lists(tmp_path / "more.csv", lists)
    assert run_cli("import", "mentions", str(tmp_path / "more.csv"), "--db", str(db), "--study", "s").returncode == 0
    conn = connect(db)
    grown = review_validation.sample_list_ids(conn, "s", 0.5, 7)
    now = set(rows(db, f"SELECT question, repetition FROM mention_lists WHERE id IN ({','.join(map(str, grown))})"))
    assert keys <= now and len(now) > len(keys)
    assert agreement(db, "--rate", "0.5", "--seed", "7")["both_reviewed"] == len(sample)


def test_a_superseded_list_is_never_sampled(tmp_path, fake_server):
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{fake_server().base_url}"], questions=2, repetitions=2)
    db = str(tmp_path / "s.db")
    assert run_cli("run", str(study), "--db", db, "--quiet").returncode == 0
    study.write_text(study.read_text().replace("repetitions = 2", "repetitions = 1"))
    assert run_cli("run", str(study), "--db", db, "--quiet").returncode == 0
    out = run_cli("review", "sample", "--db", db, "--study", "t", "--rate", "1", "--format", "json")
    assert [r["repetition"] for r in json.loads(out.stdout)] == [1, 1]


def test_a_blind_reviewer_sees_nothing_of_the_others(tmp_path):
    """`review sample` shows "edit|ana" to ana only; bo's blind lists and progress hold none
    of ana's work, not even her verdicts that no longer apply."""
    db = imported(tmp_path)
    list_id = lists_json(db)[0]["list_id"]
    assert verdict(db, list_id, "ana", "--edit", "Hoka").returncode == 0

    def sample(who):
        out = run_cli(
            "review", "sample", "--db", str(db), "--study", "s", "--rate", "1", "--who", who, "--format", "json"
        )
        return [{who: v["decision"] for who, v in r["verdicts"].items()} for r in json.loads(out.stdout)]

    assert sample("ana") == [{"ana": "edit"}, {}] and sample("bo") == [{}, {}]
    # One shape with `review lists --blind`: list_id, the version for `review verdict
    # --if-version`, the answer, ...; the table is `review lists`' table.
    out = run_cli("review", "sample", "--db", str(db), "--study", "s", "--rate", "1", "--who", "bo", "--format", "json")
    assert json.loads(out.stdout) == lists_json(db, "--blind", "--who", "bo")
    table = run_cli("review", "sample", "--db", str(db), "--study", "s", "--rate", "1", "--who", "bo").stdout
    assert "list / version" in table and "," not in table.splitlines()[0] and "Hoka" not in table
    blind = lists_json(db, "--blind", "--who", "bo")
    assert "ana" not in json.dumps(blind) and "Hoka" not in json.dumps(blind)
    conn = connect(db)
    mine = reviews.review_progress(conn, "bo", "unreviewed", blind=True)
    assert mine == {"total": 2, "mine": 0, "reviewed": None, "resolved": None}
    reviews.review(conn, list_id, "bo", "reject", blind=True)
    assert reviews.review_progress(conn, "bo", "unreviewed", blind=True)["mine"] == 1
    assert reviews.review_progress(conn, "ana", "all", topic="shoes") == {
        "total": 2,
        "mine": 1,
        "reviewed": 1,
        "resolved": 0,
    }


def test_each_review_verb_has_its_own_options_and_an_example(tmp_path):
    for verb in ("lists", "verdict", "undo", "adjudicate", "sample", "agreement", "probes", "label", "matches"):
        out = run_cli("review", verb, "--help")
        assert out.returncode == 0 and f"workbench review {verb} " in out.stdout.split("example:")[1], verb
    db = imported(tmp_path)
    wrong = run_cli("review", "undo", "--db", str(db), "--study", "s", "--format", "json")
    assert wrong.returncode == 2 and "--format is not an option of `workbench review undo`" in wrong.stderr
    old = run_cli(
        "review", "agreement", "--db", str(db), "--study", "s", "--first", "a", "--second", "b", "--per-topic", "15"
    )
    assert old.returncode == 2 and "--rate" in old.stderr
    before = run_cli("review", "--db", str(db), "--study", "s", "lists", "--format", "json")  # options before the verb
    assert before.returncode == 0 and len(json.loads(before.stdout)) == 2
    assert adjudication.OWN == "own"
