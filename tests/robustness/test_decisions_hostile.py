"""Human decisions against hostile input: ids SQLite cannot hold, blank reviewer names,
a split that names nothing to split off, and an import pointed at a device. Each is
refused in one line (exit status 2) and changes nothing."""

from __future__ import annotations

from helpers import run_cli, write_study
from test_decisions import imported, lists_json, verdict


def test_a_list_id_too_large_for_sqlite_is_refused_in_one_line(tmp_path):
    db = imported(tmp_path)
    for bad in ("99999999999999999999", "0", "-1"):
        out = verdict(db, bad, "ana", "--accept")
        assert out.returncode == 2, out.stderr
        assert "Traceback" not in out.stderr and "--list" in out.stderr
    out = run_cli("review", "sample", "--db", str(db), "--study", "s", "--per-topic", "-5")
    assert out.returncode == 2 and "Traceback" not in out.stderr and "--per-topic" in out.stderr


def test_an_empty_reviewer_name_is_refused_never_replaced_by_the_default(tmp_path):
    db = imported(tmp_path)
    list_id = lists_json(db)[0]["list_id"]
    for blank in ("", "   "):
        out = verdict(db, list_id, blank, "--accept")
        assert out.returncode == 2 and "--who" in out.stderr, out.stderr
        for args in (("merge", "Nike", "Puma"), ("undo",), ("redo",)):
            out = run_cli("entities", *args, "--db", str(db), "--who", blank)
            assert out.returncode == 2 and "--who" in out.stderr, out.stderr
        out = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", blank)
        assert out.returncode == 2, out.stderr
    assert all(r["verdicts"] == {} for r in lists_json(db))
    out = run_cli("export", "--what", "decisions", "--db", str(db), "--format", "json")
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout


def test_a_name_with_spaces_around_it_is_the_same_reviewer_for_undo(tmp_path):
    db = imported(tmp_path)
    list_id = lists_json(db)[0]["list_id"]
    assert verdict(db, list_id, " ana ", "--edit", "Hoka").returncode == 0
    assert lists_json(db)[0]["verdicts"]["ana"]["list"] == ["Hoka"]
    out = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "ana  ")
    assert out.returncode == 0 and "Undid ana's edit" in out.stdout, out.stdout + out.stderr
    assert lists_json(db)[0]["verdicts"] == {}
    assert run_cli("entities", "merge", "Nike", "Adidas", "--db", str(db), "--who", " bo").returncode == 0
    out = run_cli("entities", "undo", "--db", str(db), "--who", "bo ")
    assert out.returncode == 0 and "Undo: merge" in out.stdout, out.stdout + out.stderr


def test_a_split_naming_no_surface_form_is_refused(tmp_path):
    db = imported(tmp_path)
    out = run_cli("entities", "split", "Nike", "--db", str(db), "--who", "ana")
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "surface forms" in out.stderr
    out = run_cli("export", "--what", "decisions", "--db", str(db), "--format", "json")
    assert out.stdout.strip() == "[]"


def test_an_import_from_a_device_is_refused_not_read_forever(tmp_path):
    """/dev/zero would fill the memory; /dev/null is the same kind of file and safe to try."""
    db = imported(tmp_path)
    for what in ("mentions", "entities"):
        out = run_cli("import", what, "/dev/null", "--db", str(db), "--study", "s")
        assert out.returncode == 2 and "is a device" in out.stderr, out.stderr
    assert [r["current"] for r in lists_json(db)] == [["Nike", "Adidas"], ["Puma"]]


def test_an_undo_refused_names_what_changed_it_since_never_an_earlier_decision(tmp_path):
    """ana sets a region, bo sets another, an import sets a third: bo's undo is refused
    because of the import (not ana's earlier decision, which bo's had replaced)."""
    db = imported(tmp_path)
    for who, region in (("ana", "Asia"), ("bo", "Europe")):
        out = run_cli("entities", "region", "Nike", "--region", region, "--db", str(db), "--who", who)
        assert out.returncode == 0, out.stderr
    regions = tmp_path / "regions.csv"
    regions.write_text("name,region\nNike,USA\n")
    assert run_cli("import", "entities", str(regions), "--db", str(db)).returncode == 0
    out = run_cli("entities", "undo", "--db", str(db), "--who", "bo")
    assert out.returncode == 2 and "an import" in out.stderr and "ana" not in out.stderr, out.stderr
    out = run_cli("entities", "undo", "--db", str(db), "--who", "ana")
    assert out.returncode == 2 and "by bo" in out.stderr, out.stderr


def test_agreement_of_a_reviewer_with_themselves_is_refused(tmp_path):
    db = imported(tmp_path)
    assert verdict(db, lists_json(db)[0]["list_id"], "ana", "--accept").returncode == 0
    for first, second in (("ana", "ana"), ("ana", " ana ")):
        out = run_cli("review", "agreement", "--db", str(db), "--study", "s", "--first", first, "--second", second)
        assert out.returncode == 2 and "two reviewers" in out.stderr, out.stdout + out.stderr
    out = run_cli("review", "agreement", "--db", str(db), "--study", "s", "--first", "ana", "--second", "bo")
    assert out.returncode == 0 and "no list reviewed by both" in out.stdout, out.stderr


def test_the_verdict_that_gives_a_list_is_shown_after_the_study_returns_to_an_earlier_answer(tmp_path, fake_server):
    """ana edits a list, the study is run at another temperature (new answer) and ana edits
    that one too, then the study returns to the first temperature: the first answer is back
    with ana's first verdict applied, and that verdict is the one shown (the newer one, about
    the other answer, is listed as no longer applying), in lists and in agreement."""
    model = f"openai:m@{fake_server().base_url}"
    study = tmp_path / "s.toml"
    db = tmp_path / "a.db"

    def run(temperature):
        write_study(study, models=[model], questions=1, name="s", temperature=temperature)
        out = run_cli("run", str(study), "--db", str(db), "--quiet")
        assert out.returncode == 0, out.stderr
        return lists_json(db)[0]

    assert verdict(db, run(0.7)["list_id"], "ana", "--edit", "First").returncode == 0
    assert verdict(db, run(0.3)["list_id"], "ana", "--edit", "Second").returncode == 0
    back = run(0.7)
    assert back["current"] == ["First"]
    assert back["verdicts"] == {"ana": {"decision": "edit", "list": ["First"], "blind": False}}
    assert [v["list"] for v in back["no_longer_apply"].values()] == [["Second"]]
    assert verdict(db, back["list_id"], "bo", "--blind", "--edit", "First").returncode == 0
    out = run_cli(
        "review", "agreement", "--db", str(db), "--study", "s", "--first", "ana", "--second", "bo", "--rate", "1"
    )
    assert out.returncode == 0 and "1 of 1 final lists the same" in out.stdout, out.stdout


def test_a_redo_refused_names_the_other_reviewers_undo_that_changed_it(tmp_path):
    """ana merges, bo splits, bo undoes, ana undoes her merge: bo's redo is refused, naming
    ana's undo (never "an import or an extraction", which did nothing here)."""
    db = imported(tmp_path)
    steps = (("merge", "Nike", "Puma", "--into", "Nike"), ("split", "Nike", "Puma"))
    for who, step in zip(("ana", "bo"), steps):
        assert run_cli("entities", *step, "--db", str(db), "--who", who).returncode == 0
    for who in ("bo", "ana"):
        assert run_cli("entities", "undo", "--db", str(db), "--who", who).returncode == 0
    out = run_cli("entities", "redo", "--db", str(db), "--who", "bo")
    assert out.returncode == 2 and "undoing #1 by ana" in out.stderr and "import" not in out.stderr, out.stderr
    assert run_cli("entities", "redo", "--db", str(db), "--who", "ana").returncode == 0
    assert run_cli("entities", "redo", "--db", str(db), "--who", "bo").returncode == 0
