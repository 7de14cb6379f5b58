"""Human decisions that hold: verdicts, two reviewers, entity decisions and regions,
each through re-extraction, re-imports and other reviewers' work (the exact sequences
that once blocked a study or corrupted a list)."""

from __future__ import annotations

import json

from conftest import rows
from helpers import run_cli, write_study

HEADER = "model,topic,cluster,question_id,repetition,rank,entity\n"


def write_lists(path, lists):
    lines = [HEADER]
    for (model, question, rep), names in lists.items():
        if not names:
            lines.append(f"{model},shoes,Budget,{question},{rep},,\n")
        for rank, name in enumerate(names, start=1):
            lines.append(f"{model},shoes,Budget,{question},{rep},{rank},{name}\n")
    path.write_text("".join(lines))
    return path


def imported(tmp_path, lists=None, name="m.csv"):
    db = tmp_path / "a.db"
    lists = lists or {("gpt", "q1", 1): ["Nike", "Adidas"], ("gpt", "q2", 1): ["Puma"]}
    out = run_cli("import", "mentions", str(write_lists(tmp_path / name, lists)), "--db", str(db), "--study", "s")
    assert out.returncode == 0, out.stderr
    return db


def lists_json(db, *extra):
    out = run_cli("review", "lists", "--db", str(db), "--study", "s", "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def verdict(db, list_id, who, *how):
    return run_cli("review", "verdict", "--db", str(db), "--study", "s", "--list", str(list_id), "--who", who, *how)


def current(db, question="q1"):
    return next(r["current"] for r in lists_json(db) if r["question"] == question)


def peir(db, entity):
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    return next(
        (r["value"] for r in records if r["metric"] == "peir" and r["cluster"] is None and r["entity"] == entity), None
    )


def test_a_verdict_never_blocks_a_rerun_of_an_edited_study(tmp_path, fake_server):
    """Review one list (edit), change the study's temperature, run again: the run asks and
    extracts the new answers, and the verdict, about an answer no longer current, is kept
    and reported as no longer applying (never applied to an answer it did not read)."""
    server = fake_server()
    model = f"openai:m@{server.base_url}"
    study = write_study(tmp_path / "s.toml", models=[model], questions=2, name="s")
    db = tmp_path / "a.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    first = lists_json(db)[0]
    assert verdict(db, first["list_id"], "ana", "--edit", "Hoka").returncode == 0
    assert current(db, first["question"]) == ["Hoka"]

    write_study(tmp_path / "s.toml", models=[model], questions=2, name="s", temperature=0.3)
    again = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert again.returncode == 0, again.stderr
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0  # and every rerun
    listed = lists_json(db)
    assert len(listed) == 2
    redone = next(r for r in listed if r["question"] == first["question"])
    assert redone["current"] == redone["extracted"] != ["Hoka"]
    assert redone["verdicts"] == {} and [v["list"] for v in redone["no_longer_apply"].values()] == [["Hoka"]]
    assert "No ranked lists" not in run_cli("metrics", "--db", str(db)).stdout


def test_a_verdict_survives_a_reimport_of_the_same_lists(tmp_path):
    db = imported(tmp_path)
    list_id = next(r["list_id"] for r in lists_json(db) if r["question"] == "q1")
    assert verdict(db, list_id, "ana", "--edit", "Asics").returncode == 0
    assert peir(db, "Asics") == 0.5
    again = run_cli("import", "mentions", str(tmp_path / "m.csv"), "--db", str(db), "--study", "s")
    assert again.returncode == 0, again.stderr
    again = run_cli("import", "mentions", str(tmp_path / "m.csv"), "--db", str(db), "--study", "s")
    assert again.returncode == 0, again.stderr
    q1 = next(r for r in lists_json(db) if r["question"] == "q1")
    assert q1["current"] == ["Asics"] and q1["extracted"] == ["Nike", "Adidas"]
    assert q1["verdicts"]["ana"]["decision"] == "edit"
    assert peir(db, "Asics") == 0.5
    # Undone after the re-import, the list is the re-imported extraction again.
    assert run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "ana").returncode == 0
    assert current(db) == ["Nike", "Adidas"]


def test_undo_across_two_reviewers_never_brings_back_an_undone_edit(tmp_path):
    """ana edits a list to [Nike], bo to [Adidas, Puma]; ana's undo is refused, naming bo's
    edit (the list is no longer what ana made it); bo undoes: ana's edit, still standing,
    gives the list; ana undoes: the extraction is back."""
    db = imported(tmp_path)
    list_id = next(r["list_id"] for r in lists_json(db) if r["question"] == "q1")
    assert verdict(db, list_id, "ana", "--edit", "Nike").returncode == 0
    assert verdict(db, list_id, "bo", "--edit", "Adidas", "--edit", "Puma").returncode == 0
    refused = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "ana")
    assert refused.returncode == 2 and "bo's edit" in refused.stderr and "changed this list since" in refused.stderr
    assert current(db) == ["Adidas", "Puma"]
    assert run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "bo").returncode == 0
    q1 = next(r for r in lists_json(db) if r["question"] == "q1")
    assert q1["current"] == ["Nike"] and list(q1["verdicts"]) == ["ana"]
    assert run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "ana").returncode == 0
    assert current(db) == ["Nike", "Adidas"]
    nothing = run_cli("review", "undo", "--db", str(db), "--study", "s", "--who", "ana")
    assert nothing.returncode == 0 and "Nothing of ana's to undo" in nothing.stdout


def test_two_reviewers_agree_on_final_lists_and_the_second_works_blind(tmp_path):
    """5 of 6 identical final lists, reached by different verdicts (an accept and an edit
    giving the same list agree): agreement 5/6. The second reviewer, blind, sees the
    machine's list, never the first reviewer's, and changes nothing metrics read."""
    lists = {("gpt", f"q{i}", 1): ["Nike", "Adidas"] for i in range(6)}
    db = imported(tmp_path, lists)
    ids = [r["list_id"] for r in lists_json(db)]
    for n, list_id in enumerate(ids):
        if n == 0:
            assert verdict(db, list_id, "ana", "--edit", "Nike").returncode == 0
        else:
            assert verdict(db, list_id, "ana", "--accept").returncode == 0
    blind = lists_json(db, "--who", "bo", "--blind")
    assert all(r["current"] == ["Nike", "Adidas"] and r["verdicts"] == {} for r in blind)  # never ana's
    for n, list_id in enumerate(ids):
        how = ("--edit", "Nike") if n == 0 else ("--accept",) if n < 5 else ("--reject",)
        assert verdict(db, list_id, "bo", "--blind", *how).returncode == 0
    # The edit to [Nike, Adidas] by another route agrees with an accept of that list.
    assert current(db, "q0") == ["Nike"] and current(db, "q5") == ["Nike", "Adidas"]  # bo's reject not applied
    every = ("--rate", "1")  # every list in the sample
    out = run_cli("review", "agreement", "--db", str(db), "--study", "s", "--first", "ana", "--second", "bo", *every)
    assert "Agreement 83.3% (5 of 6 final lists the same)" in out.stdout, out.stdout
    result = json.loads(
        run_cli(
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
        ).stdout
    )
    assert result["both_reviewed"] == 6 and result["same_list"] == 5
    # lists [Nike]x1, [Nike, Adidas]x5 (ana) against [Nike]x1, [Nike, Adidas]x4, []x1 (bo)
    expected = (1 / 6 * 1 / 6) + (5 / 6 * 4 / 6)
    assert abs(result["kappa"] - (5 / 6 - expected) / (1 - expected)) < 1e-12
    # To adjudicate: the one list where the reviewers' final lists differ.
    disputed = lists_json(db, "--only", "reviewer-disagreements")
    assert [r["question"] for r in disputed] == ["q5"]


def test_entity_undo_is_the_reviewers_own_and_takes_back_a_region(tmp_path):
    """A region assignment, then undo: the region is taken back, never another reviewer's
    older merge; the region is in the decision log."""
    db = imported(tmp_path, {("gpt", "q1", 1): ["Nike", "NIKE Inc", "Adidas"], ("gpt", "q2", 1): ["Puma"]})
    assert run_cli("entities", "merge", "Nike", "NIKE Inc", "--db", str(db), "--who", "cli").returncode == 0
    assert (
        run_cli("entities", "region", "Adidas", "--region", "europe", "--db", str(db), "--who", "ana").returncode == 0
    )
    assert rows(db, "SELECT region FROM entities WHERE name = 'Adidas'") == [("Europe",)]
    out = run_cli("entities", "undo", "--db", str(db), "--who", "ana")
    assert out.returncode == 0 and "region of Adidas" in out.stdout
    assert rows(db, "SELECT region FROM entities WHERE name = 'Adidas'") == [(None,)]
    assert rows(db, "SELECT COUNT(DISTINCT entity_id) FROM aliases WHERE surface_key IN ('nike', 'nike inc')") == [(1,)]
    assert "Nothing of ana's to undo" in run_cli("entities", "undo", "--db", str(db), "--who", "ana").stdout
    log = json.loads(run_cli("export", "--db", str(db), "--what", "decisions", "--format", "json").stdout)
    assert [(d["kind"], d["action"], d["who"], d["state"]) for d in log] == [
        ("entity", "merge", "cli", "active"),
        ("entity", "region", "ana", "undone"),
    ]
    typo = run_cli("entities", "region", "Adidas", "--region", "Eurpoe", "--db", str(db), "--who", "ana")
    assert typo.returncode == 2 and "Eurpoe" in typo.stderr and "Europe" in typo.stderr


def test_entity_undo_and_redo_hold_after_imports(tmp_path):
    """Merge, split, then an import naming the split-off entity: undo works (the entity
    keeps what the import gave it). Split, undo, an import that would once have taken the
    freed id, redo: works."""
    db = imported(tmp_path, {("gpt", "q1", 1): ["Nike", "Nike Air", "Adidas"]})
    assert run_cli("entities", "merge", "Nike", "Nike Air", "--into", "Nike", "--db", str(db)).returncode == 0
    assert run_cli("entities", "split", "Nike", "Nike Air", "--as", "Air", "--db", str(db)).returncode == 0
    more = write_lists(tmp_path / "more.csv", {("gpt", "q9", 1): ["Air", "Air Max"]})
    assert run_cli("import", "mentions", str(more), "--db", str(db), "--study", "s").returncode == 0
    undone = run_cli("entities", "undo", "--db", str(db))
    assert undone.returncode == 0, undone.stderr
    assert rows(
        db, "SELECT e.name FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.surface_key = 'nike air'"
    ) == [("Nike",)]
    assert run_cli("entities", "undo", "--db", str(db)).returncode == 0  # the merge too
    assert run_cli("entities", "redo", "--db", str(db)).returncode == 0

    (tmp_path / "second").mkdir()
    db2 = imported(tmp_path / "second", {("gpt", "q1", 1): ["Nike", "Nike Air"]})
    assert run_cli("entities", "merge", "Nike", "Nike Air", "--into", "Nike", "--db", str(db2)).returncode == 0
    assert run_cli("entities", "split", "Nike", "Nike Air", "--as", "Air", "--db", str(db2)).returncode == 0
    assert run_cli("entities", "undo", "--db", str(db2)).returncode == 0
    new = write_lists(tmp_path / "new.csv", {("gpt", "q7", 1): ["Reebok"]})
    assert run_cli("import", "mentions", str(new), "--db", str(db2), "--study", "s").returncode == 0
    redone = run_cli("entities", "redo", "--db", str(db2))
    assert redone.returncode == 0, redone.stderr
    owners = dict(rows(db2, "SELECT a.surface_key, e.name FROM aliases a JOIN entities e ON e.id = a.entity_id"))
    assert owners["nike air"] == "Air" and owners["reebok"] == "Reebok" and owners["nike"] == "Nike"


def test_an_undo_refused_names_the_later_decision(tmp_path):
    db = imported(tmp_path, {("gpt", "q1", 1): ["Nike", "NIKE Inc", "Adidas"]})
    assert run_cli("entities", "rename", "Adidas", "adidas AG", "--db", str(db), "--who", "ana").returncode == 0
    assert run_cli("entities", "rename", "adidas AG", "Adidas AG", "--db", str(db), "--who", "bo").returncode == 0
    refused = run_cli("entities", "undo", "--db", str(db), "--who", "ana")
    assert refused.returncode == 2
    assert "by bo (rename adidas AG to Adidas AG) changed it since" in refused.stderr
    assert rows(db, "SELECT COUNT(*) FROM entities WHERE name = 'Adidas AG'") == [(1,)]


def test_a_store_from_before_keeps_its_verdicts_and_decisions(tmp_path):
    """A store written by the previous schema (reviews by list id, entity decisions with a
    forbidden pair): opened now, its verdicts are kept by what they judge, the list they
    edited can still be undone to what the machine extracted, and the decisions stand."""
    import sqlite3

    from workbench.store.db import _statements, connect
    from workbench.store.schema import MIGRATIONS

    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.execute("PRAGMA foreign_keys = ON")
    for number, migration in enumerate(MIGRATIONS[:18]):
        for statement in _statements(migration):
            old.execute(statement)
        old.execute(f"PRAGMA user_version = {number + 1}")
    old.executescript(
        """
        INSERT INTO studies VALUES (1, 's', 'choice', NULL, '{}', 'then', 'then');
        INSERT INTO entities (id, name, created_at) VALUES (1, 'Nike', 'then'), (2, 'Adidas', 'then'),
            (3, 'Hoka', 'then');
        INSERT INTO aliases VALUES ('nike', 1), ('adidas', 2), ('hoka', 3);
        INSERT INTO mention_lists (id, study_id, model, topic, cluster, question, repetition, source)
            VALUES (7, 1, 'gpt', 'shoes', 'Budget', 'q1', 1, 'import');
        INSERT INTO mentions VALUES (7, 1, 'Hoka', 'hoka', NULL);
        INSERT INTO reviews (list_id, reviewer, decision, before_json, after_json, at)
            VALUES (7, 'ana', 'edit', '["Nike", "Adidas"]', '["Hoka"]', 'then');
        INSERT INTO entity_decisions (id, action, summary, changes_json, who, at)
            VALUES (1, 'forbid', 'Nike and Adidas are different', '[{"op": "forbid", "a": 1, "b": 2}]', 'bo', 'then');
        INSERT INTO forbidden_pairs VALUES (1, 2, 1);
        """
    )
    old.close()
    connect(path).close()
    assert rows(path, "SELECT model, question, reviewer, decision, after_json FROM verdicts") == [
        ("gpt", "q1", "ana", "edit", '["Hoka"]')
    ]
    assert rows(path, "SELECT COUNT(*) FROM forbidden_pairs") == [(1,)]
    assert rows(path, "PRAGMA foreign_key_check") == []
    q1 = lists_json(path)[0]
    assert q1["current"] == ["Hoka"] and q1["extracted"] == ["Nike", "Adidas"]
    assert run_cli("review", "undo", "--db", str(path), "--study", "s", "--who", "ana").returncode == 0
    assert current(path) == ["Nike", "Adidas"]
    assert run_cli("entities", "undo", "--db", str(path), "--who", "bo").returncode == 0
    assert rows(path, "SELECT COUNT(*) FROM forbidden_pairs") == [(0,)]
