"""`import decisions` against a hostile user: a store whose entities were merged the other way,
a file holding every record twice, an import again after undo here, and files or options that
are wrong (no database, a time that is no time, a file cut short, --study). What the user
reads, and what the store holds after, through the real CLI on real SQLite files."""

from __future__ import annotations

import json

from helpers import run_cli
from test_decisions import imported, lists_json, verdict

LISTS = {("gpt", "q1", 1): ["Puma", "On"], ("gpt", "q2", 1): ["On"], ("gpt", "q3", 1): ["On"]}


def ok(*args) -> str:
    done = run_cli(*map(str, args))
    assert done.returncode == 0, done.stdout + done.stderr
    return " ".join(done.stdout.split())


def refused(*args) -> str:
    done = run_cli(*map(str, args))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return " ".join(done.stderr.split())


def stores(tmp_path, lists=None):
    """Two databases holding the same lists (as two runs of one study would)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    return imported(tmp_path / "a", lists), imported(tmp_path / "b", lists)


def entities(db) -> list[str]:
    return ok("entities", "list", "--db", db, "--format", "csv").split()


def log(db) -> list[dict]:
    return json.loads(run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json").stdout)


def exported(db, path):
    ok("export", "--db", db, "--what", "decisions", "--format", "json", "-o", path)
    return path


def test_a_merge_made_the_other_way_here_is_refused_never_swapping_the_names(tmp_path):
    a, b = stores(tmp_path, LISTS)
    ok("entities", "merge", "Puma", "On", "--into", "Puma", "--db", a, "--who", "ana")
    ok("entities", "merge", "Puma", "On", "--into", "On", "--db", b, "--who", "carl")
    before = entities(b)
    assert "On,,4" in before
    said = ok("import", "decisions", exported(a, tmp_path / "d.json"), "--db", b)
    assert (
        f"{tmp_path / 'd.json'}:2: ana's merge Puma, On into Puma refused ('Puma' and 'On' are already one "
        "entity here, named 'On'); nothing recorded for it, the file keeps it"
    ) in said
    assert "Recorded" not in said and entities(b) == before  # On 4, as the raw data says
    assert [r["who"] for r in log(b)] == ["carl"]


def test_a_forbid_of_two_names_that_are_one_entity_here_is_refused_alone(tmp_path):
    a, b = stores(tmp_path, LISTS)
    ok("entities", "forbid", "Puma", "On", "--db", a, "--who", "ana")
    ok("entities", "merge", "Puma", "On", "--into", "On", "--db", b, "--who", "carl")
    said = ok("import", "decisions", exported(a, tmp_path / "d.json"), "--db", b)
    assert (
        f"{tmp_path / 'd.json'}:2: ana's forbid (Puma and On are different) refused ('Puma' and 'On' are one "
        "entity here, named 'On'); nothing recorded for it" in said
    ), said
    assert [r["who"] for r in log(b)] == ["carl"]


def test_the_same_merge_made_here_by_hand_is_in_effect_with_no_import_claimed(tmp_path):
    a, b = stores(tmp_path, LISTS)
    ok("entities", "merge", "Puma", "On", "--into", "Puma", "--db", a, "--who", "ana")
    ok("entities", "merge", "Puma", "On", "--into", "Puma", "--db", b, "--who", "carl")
    said = ok("import", "decisions", exported(a, tmp_path / "d.json"), "--db", b)
    assert "1 already in effect here" in said and "entities import" not in said, said
    assert "Puma,,4" in entities(b)


def _reviewed(tmp_path):
    """a: ana's and bo's verdicts and ana's merge; b: the same lists, no decision."""
    a, b = stores(tmp_path)
    first, second = (r["list_id"] for r in lists_json(a))
    assert verdict(a, first, "ana", "--accept").returncode == 0
    assert verdict(a, second, "bo", "--edit", "Hoka").returncode == 0
    ok("entities", "merge", "Nike", "Adidas", "--into", "Nike", "--db", a, "--who", "ana")
    return a, b


def test_a_file_holding_each_record_twice_records_each_once(tmp_path):
    a, b = _reviewed(tmp_path)
    records = json.loads(exported(a, tmp_path / "d.json").read_text())
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(records + records, indent=0))
    said = ok("import", "decisions", twice, "--db", b)
    assert "Recorded 3 decisions from twice.json: 2 verdicts and 1 entity decision" in said, said
    assert "3 already in this database, not recorded again" in said and "entities import" not in said
    assert len(log(b)) == 3
    ok("review", "undo", "--db", b, "--study", "s", "--who", "ana")
    assert "ana" not in lists_json(b)[0]["verdicts"]  # no second copy left standing
    assert "Nothing new from d.json" in ok("import", "decisions", tmp_path / "d.json", "--db", b)


def test_what_was_undone_here_after_an_import_stays_undone_when_imported_again(tmp_path):
    a, b = _reviewed(tmp_path)
    d = exported(a, tmp_path / "d.json")
    ok("import", "decisions", d, "--db", b)
    ok("entities", "undo", "--db", b, "--who", "ana")
    ok("review", "undo", "--db", b, "--study", "s", "--who", "ana")
    ok("review", "undo", "--db", b, "--study", "s", "--who", "bo")
    held = (log(b), entities(b), lists_json(b))
    said = ok("import", "decisions", d, "--db", b)
    assert said.startswith("Nothing new from d.json.") and "Recorded" not in said, said
    assert "3 taken back here since: kept undone" in said, said
    assert (log(b), entities(b), lists_json(b)) == held
    assert all(r["verdicts"] == {} or all(v.get("undone") for v in r["verdicts"].values()) for r in held[2])


def test_an_import_into_a_database_that_does_not_exist_says_so_and_creates_none(tmp_path):
    a, _ = _reviewed(tmp_path)
    d = exported(a, tmp_path / "d.json")
    missing = tmp_path / "nope.db"
    assert "nope.db: no such database" in refused("import", "decisions", d, "--db", missing)
    assert not missing.exists()


def test_a_time_that_is_no_iso_time_is_refused_naming_line_and_key(tmp_path):
    a, b = _reviewed(tmp_path)
    records = json.loads(exported(a, tmp_path / "d.json").read_text())
    for bad in (None, "yesterday", 5):
        broken = tmp_path / "broken.json"
        broken.write_text(
            "[\n" + ",\n".join(json.dumps({**r, "at": bad} if i == 1 else r) for i, r in enumerate(records)) + "\n]\n"
        )
        said = refused("import", "decisions", broken, "--db", b)
        assert f"{broken}:3: `at` takes the ISO time the decision was made" in said and repr(bad) in said, said
    assert log(b) == []


def test_a_file_cut_short_names_its_line_and_column(tmp_path):
    a, b = _reviewed(tmp_path)
    text = exported(a, tmp_path / "d.json").read_text()
    cut = tmp_path / "cut.json"
    lines = text.splitlines()
    cut.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])
    said = refused("import", "decisions", cut, "--db", b)
    assert f"{cut}:3:" in said and "not JSON (Unterminated string starting at line 3 column" in said, said
    assert said.endswith("--format json -o decisions.json`")
    assert log(b) == []


def test_study_is_refused_since_each_decision_names_its_own(tmp_path):
    a, b = _reviewed(tmp_path)
    d = exported(a, tmp_path / "d.json")
    for study in ("Nope", "s"):
        said = refused("import", "decisions", d, "--db", b, "--study", study)
        assert "import decisions takes no --study: each decision names its own study" in said
    assert log(b) == []


def test_a_catalog_match_undone_here_after_an_import_stays_undone(tmp_path):
    (tmp_path / "cat.csv").write_text("title,origin\nAlpha,Western\nCharlie,Western\n")
    (tmp_path / "r.csv").write_text("model,seed,persona_category,persona,rank,item\nm,0,age,a teacher,1,Charly\n")
    first, second = tmp_path / "one.db", tmp_path / "two.db"
    for db in (first, second):
        ok("import", "rankings", tmp_path / "r.csv", "--db", db, "--study", "cs", "--catalog", tmp_path / "cat.csv")
    ok(
        "review",
        "match",
        "--db",
        first,
        "--study",
        "cs",
        "--key",
        "m/0/age/a teacher/1",
        "--item",
        "Charlie",
        "--who",
        "erin",
    )
    d = exported(first, tmp_path / "d.json")
    assert "Recorded 1 decision from d.json: 1 correction" in ok("import", "decisions", d, "--db", second)
    ok("review", "undo-match", "--db", second, "--study", "cs", "--who", "erin")
    held = ok("metrics", "--db", second, "--study", "cs", "--format", "json")
    said = ok("import", "decisions", d, "--db", second)
    assert said.startswith("Nothing new from d.json.") and "1 taken back here since: kept undone" in said, said
    assert ok("metrics", "--db", second, "--study", "cs", "--format", "json") == held


def test_the_app_imports_decisions_with_its_open_study_in_the_hidden_field(tmp_path):
    """The import dialog holds the open study; decisions take none, so the field is hidden and
    its value not passed on (the command line refuses --study for decisions)."""
    import asyncio

    from helpers import on_screen, settled, wait_for
    from textual.widgets import Select

    from workbench.app import WorkbenchApp

    a, b = _reviewed(tmp_path)
    d = exported(a, tmp_path / "d.json")

    async def scenario():
        app = WorkbenchApp(str(b))
        async with app.run_test(size=(100, 30)) as pilot:
            app.action_import_file()
            assert await on_screen(pilot, "ImportDialog")
            assert await wait_for(pilot, lambda: app.screen.query("#import-file"))
            app.screen.query_one("#import-kind", Select).value = "decisions"
            await pilot.pause()
            field = app.screen.query_one("#import-study")
            field.value = "s"  # as the dialog holds the open study
            assert not field.display
            await pilot.click("#import-file")
            await pilot.press(*str(d), "enter")
            await settled(pilot)
            assert await wait_for(pilot, lambda: len(log(b)) == 3)

    asyncio.run(scenario())


def test_a_merge_whose_entity_was_merged_with_a_third_here_is_refused_never_splitting_it(tmp_path):
    lists = {**LISTS, ("gpt", "q4", 1): ["Nike"]}
    a, b = stores(tmp_path, lists)
    ok("entities", "merge", "Puma", "On", "--into", "Puma", "--db", a, "--who", "ana")
    ok("entities", "merge", "Nike", "On", "--into", "Nike", "--db", b, "--who", "carl")
    before = entities(b)
    said = ok("import", "decisions", exported(a, tmp_path / "d.json"), "--db", b)
    assert (
        f"{tmp_path / 'd.json'}:2: ana's merge Puma, On into Puma refused (the spelling 'on' is in 'Nike' here, "
        "with 'nike': made again, the merge would split it); nothing recorded for it" in said
    ), said
    assert entities(b) == before and "Nike,,4" in before


def test_a_probe_label_moves_to_another_run_of_the_study_and_an_undo_here_stays(tmp_path, fake_server):
    """Identity's probe labels are decisions of the log too (the method's `decision_kinds`): a
    reviewer's label made in one run of a study is made again in another run by `import
    decisions`, once; taken back there, importing the file again does not bring it back."""
    from openai_server import ServerConfig

    server = fake_server(ServerConfig(reply_text='[{"university": "MIT", "explanation": "strong STEM"}]'))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 1\n'
    )
    first, second = tmp_path / "one.db", tmp_path / "two.db"
    for db in (first, second):
        ok("run", study, "--db", db, "--quiet")
    listed = json.loads(ok("review", "probes", "--db", first, "--study", "unis", "--format", "json"))
    key = listed[0]["request_key"]
    other = next(label for label in ("admits", "denies") if label != listed[0]["label"])
    ok("review", "label", "--db", first, "--study", "unis", "--key", key, "--label", other, "--who", "erin")
    d = exported(first, tmp_path / "d.json")
    assert [r["kind"] for r in log(first)] == ["probe label"]
    assert "Recorded 1 decision from d.json: 1 correction" in ok("import", "decisions", d, "--db", second)

    def label_in_second() -> tuple[str, str]:
        rows = json.loads(ok("review", "probes", "--db", second, "--study", "unis", "--format", "json"))
        row = next(r for r in rows if r["request_key"] == key)
        return row["label"], row["source"]

    assert label_in_second() == (other, "human")
    assert ok("import", "decisions", d, "--db", second).startswith("Nothing new from d.json: every decision")
    ok("review", "undo-label", "--db", second, "--who", "erin")
    assert label_in_second()[1] != "human"
    said = ok("import", "decisions", d, "--db", second)
    assert said.startswith("Nothing new from d.json.") and "kept undone" in said, said
    assert label_in_second()[1] != "human"
