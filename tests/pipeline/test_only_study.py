"""A command about one study may leave out --study when the database holds only one; with
several it names them; a refusal never leaves an empty new database behind."""

from __future__ import annotations

from helpers import write_study

from workbench.cli import main


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def run(capsys, tmp_path, server, db, name: str) -> None:
    study = write_study(
        tmp_path / f"{name}.toml", models=[f"openai:test-model@{server.base_url}"], questions=2, name=name
    )
    code, out, err = cli(capsys, "run", study, "--db", db, "--quiet")
    assert code == 0, out + err


def test_the_only_study_is_the_default_and_several_are_named(tmp_path, fake_server, capsys):
    server, db = fake_server(), tmp_path / "a.db"
    run(capsys, tmp_path, server, db, "shoes")
    code, out, _ = cli(capsys, "report", "--db", db)
    assert code == 0 and "shoes" in out and "## " in out
    code, out, _ = cli(capsys, "questions", "--db", db, "--format", "json")
    assert code == 0 and out.count('"text"') == 2
    code, out, _ = cli(capsys, "review", "lists", "--db", db, "--format", "json")
    assert code == 0 and out.strip().startswith("[")

    run(capsys, tmp_path, server, db, "phones")
    for args in (["report"], ["questions"], ["review", "lists"]):
        code, _, err = cli(capsys, *args, "--db", db)
        assert code == 2, args
        assert "holds 2 studies: name one with --study (phones, shoes)" in err, err
    code, out, _ = cli(capsys, "report", "--db", db, "--study", "phones")
    assert code == 0 and "phones" in out
    code, _, err = cli(capsys, "report", "--db", db, "--study", "cars")
    assert code == 2 and "no study named 'cars'" in err and "phones, shoes" in err


def test_marking_questions_in_a_missing_database_creates_nothing(tmp_path, capsys):
    db = tmp_path / "missing.db"
    code, _, err = cli(capsys, "questions", "--db", db, "--study", "s", "--verify-all")
    assert code == 2 and "no such database" in err
    assert not db.exists()


def test_an_import_without_a_study_goes_into_the_only_one(tmp_path, fake_server, capsys):
    server, db = fake_server(), tmp_path / "a.db"
    questions = tmp_path / "q.csv"
    questions.write_text("topic,cluster,question\ngadgets,Budget-Conscious,Which charger would you buy?\n")
    code, _, err = cli(capsys, "import", "questions", questions, "--db", db)
    assert code == 2 and "import questions needs --study NAME (a new study's name)" in err
    run(capsys, tmp_path, server, db, "shoes")
    code, out, err = cli(capsys, "import", "questions", questions, "--db", db)
    assert code == 0, err
    assert "shoes" in out
    run(capsys, tmp_path, server, db, "phones")
    code, _, err = cli(capsys, "import", "questions", questions, "--db", db)
    assert code == 2 and "needs --study NAME (this database holds 2 studies: phones, shoes)" in err


def test_an_import_of_a_folder_or_a_missing_file_says_so_once(tmp_path, capsys):
    code, _, err = cli(capsys, "import", "questions", tmp_path, "--db", tmp_path / "x.db", "--study", "s")
    assert code == 2 and err == f"error: {tmp_path}: is a directory, not a question file\n"
    code, _, err = cli(capsys, "import", "questions", tmp_path / "q.json", "--db", tmp_path / "x.db", "--study", "s")
    assert code == 2 and err == f"error: {tmp_path / 'q.json'}: no such file\n"
    assert not (tmp_path / "x.db").exists()


def test_a_reviewer_name_is_a_name(tmp_path, capsys):
    from helpers import imported_mentions

    db = imported_mentions(tmp_path, (("Nike", 2),))
    for who in ("x" * 101, "ann\x1b[31m"):
        code, _, err = cli(capsys, "review", "verdict", "--db", db, "--list", "1", "--who", who, "--accept")
        assert code == 2 and "--who takes a person's name: " in err
    code, _, err = cli(capsys, "review", "verdict", "--db", db, "--list", "1", "--who", "x" * 100, "--accept")
    assert code == 0, err
