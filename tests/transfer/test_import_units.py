"""Imports replace whole units: a re-imported ranking, scored prompt or answer's list
takes the place of the stored one, nothing of the old one left behind; a file that
cannot be imported as it is is refused in one line naming the file and line, exit
status 2, and the store is left exactly as it was.

Each test is the sequence a user would type: import, re-import, then look at what
`workbench export` and `workbench metrics --format json` show.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

from helpers import run_cli
from test_entity import EXAMPLE

TASK = EXAMPLE / "urgency.task.json"  # labels low/moderate/high/critical_urgency, weights 4/3/2/1
LABELS = ("low_urgency", "moderate_urgency", "high_urgency", "critical_urgency")


def dump(db: Path) -> list[str]:
    """Every table's rows, as SQL: equal twice, the store is exactly as it was."""
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def refused(result, *said: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for words in said:
        assert words in result.stderr, result.stderr


def export(db: Path, what: str, *more: str) -> list[dict]:
    result = run_cli("export", "--db", db, "--what", what, "--format", "json", *more)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def metrics(db: Path) -> list[dict]:
    result = run_cli("metrics", "--db", db, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# -- cold-start rankings -----------------------------------------------------------------


def rankings_csv(path: Path, lists: dict[tuple[str, str], list[str]]) -> Path:
    """lists: (persona_category, persona) -> items in rank order, for model m, seed 0."""
    lines = ["model,seed,persona_category,persona,rank,item"]
    for (category, persona), items in lists.items():
        lines += [f"m,0,{category},{persona},{rank},{item}" for rank, item in enumerate(items, 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def iou(db: Path, persona: str) -> float:
    (record,) = [r for r in metrics(db) if r["metric"] == "iou_similarity" and r["persona"] == persona]
    return record["mean"]


def test_a_reimported_ranking_replaces_the_stored_one_whole(tmp_path):
    db = tmp_path / "cold.db"
    ten = [f"item{i}" for i in range(1, 11)]
    first = rankings_csv(tmp_path / "ten.csv", {("neutral", "neutral"): ten, ("age", "teen"): ten[::-1]})
    assert run_cli("import", "rankings", first, "--db", db, "--study", "c").returncode == 0
    assert iou(db, "teen") == 1.0  # the same ten items
    # The neutral list again, five items long: ranks 6-10 of the ten go with the old list.
    five = rankings_csv(tmp_path / "five.csv", {("neutral", "neutral"): ten[:5]})
    result = run_cli("import", "rankings", five, "--db", db, "--study", "c")
    assert result.returncode == 0 and "5 ranked items in 1 list " in result.stdout, result.stdout + result.stderr
    stored = export(db, "rankings")
    neutral = [r for r in stored if r["persona"] == "neutral"]
    assert [(r["rank"], r["item"]) for r in neutral] == list(enumerate(ten[:5], 1))
    teen = [r["item"] for r in stored if r["persona"] == "teen"]
    assert teen == ten[::-1]  # a ranking the file does not name is kept
    assert iou(db, "teen") == 0.5  # 5 shared of 10: the metric sees the five-item list


def test_a_refused_ranking_import_changes_nothing_not_even_the_catalog(tmp_path):
    db = tmp_path / "cold.db"
    good = rankings_csv(tmp_path / "good.csv", {("neutral", "neutral"): ["a", "b", "c"]})
    assert run_cli("import", "rankings", good, "--db", db, "--study", "c").returncode == 0
    before = dump(db)
    bad = tmp_path / "bad.csv"
    bad.write_text("model,seed,persona_category,persona,rank,item\nm,0,neutral,neutral,1,x\nm,0,neutral,neutral,1,y\n")
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(["a", "b", "c", "x", "y"]))
    result = run_cli("import", "rankings", bad, "--db", db, "--study", "c", "--catalog", catalog)
    refused(result, f"{bad}: line 3: rank 1 appears twice", "first on line 2")
    assert dump(db) == before


# -- label-probability scores ------------------------------------------------------------


def scores_csv(path: Path, rows: list[tuple[str, int, str, float]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["entity", "template_id", "label", "logprob"])
        writer.writerows(rows)
    return path


def prompt_rows(entity: str, template: int, logprobs: tuple[float, ...]) -> list[tuple[str, int, str, float]]:
    return [(entity, template, label, lp) for label, lp in zip(LABELS, logprobs, strict=True)]


def import_scores(db: Path, path: Path, task: Path = TASK):
    return run_cli("import", "scores", path, "--db", db, "--study", "e", "--task", task)


def test_a_reimported_prompt_replaces_the_stored_one_whole(tmp_path):
    db = tmp_path / "entity.db"
    first = prompt_rows("France", 0, (-0.1, -3.0, -4.0, -5.0)) + prompt_rows("Chad", 0, (-5.0, -4.0, -3.0, -0.1))
    assert import_scores(db, scores_csv(tmp_path / "first.csv", first)).returncode == 0
    # France's prompt scored again: its new numbers, and only them.
    again = prompt_rows("France", 0, (-5.0, -4.0, -3.0, -0.1))
    result = import_scores(db, scores_csv(tmp_path / "again.csv", again))
    assert result.returncode == 0, result.stderr
    stored = export(db, "scores")
    france = {r["label"]: r["logprob"] for r in stored if r["entity"] == "France"}
    assert france == dict(zip(LABELS, (-5.0, -4.0, -3.0, -0.1), strict=True))
    for entity in ("France", "Chad"):
        assert abs(sum(r["prob"] for r in stored if r["entity"] == entity) - 1) < 1e-9
    means = {r["entity"]: r["mean"] for r in metrics(db) if r["metric"] == "entity_delta"}
    assert means["France"] == means["Chad"] and means["France"] <= 4.0  # never above the largest weight


def test_a_prompt_without_every_label_is_refused_and_nothing_is_written(tmp_path):
    db = tmp_path / "entity.db"
    full = prompt_rows("France", 0, (-0.1, -3.0, -4.0, -5.0)) + prompt_rows("Chad", 0, (-5.0, -4.0, -3.0, -0.1))
    assert import_scores(db, scores_csv(tmp_path / "full.csv", full)).returncode == 0
    before = dump(db)
    # Chad's prompt again, fine; France's without `low_urgency` (the label it was surest of).
    lacking = prompt_rows("Chad", 0, (-0.1, -3.0, -4.0, -5.0)) + prompt_rows("France", 0, (-0.1, -3.0, -4.0, -5.0))[1:]
    path = scores_csv(tmp_path / "lacking.csv", lacking)
    refused(import_scores(db, path), f"{path}: line 6:", "'France'", "template_id 0", "'low_urgency'")
    assert dump(db) == before
    stored = export(db, "scores")
    assert len(stored) == 8 and abs(sum(r["prob"] for r in stored if r["entity"] == "France") - 1) < 1e-9


def test_a_prompt_scored_under_a_task_with_fewer_labels_keeps_none_of_the_old_ones(tmp_path):
    db = tmp_path / "entity.db"
    assert (
        import_scores(db, scores_csv(tmp_path / "a.csv", prompt_rows("France", 0, (-0.1, -3.0, -4.0, -5.0)))).returncode
        == 0
    )
    task = json.loads(TASK.read_text("utf-8"))
    task["labels"] = [label for label in task["labels"] if label["id"] in ("high_urgency", "critical_urgency")]
    two = tmp_path / "two.task.json"
    two.write_text(json.dumps(task))
    rows = [("France", 0, "high_urgency", -0.7), ("France", 0, "critical_urgency", -0.7)]
    assert import_scores(db, scores_csv(tmp_path / "b.csv", rows), two).returncode == 0
    stored = [r for r in export(db, "scores") if r["entity"] == "France"]
    assert sorted(r["label"] for r in stored) == ["critical_urgency", "high_urgency"]
    assert abs(sum(r["prob"] for r in stored) - 1) < 1e-9


# -- ChoiceEval mentions -----------------------------------------------------------------

HEADER = "model,topic,cluster,question_id,repetition,rank,entity\n"


def import_mentions(db: Path, path: Path, text: str):
    path.write_text(HEADER + text)
    return run_cli("import", "mentions", path, "--db", db, "--study", "s")


def mentions_of(db: Path) -> list[tuple]:
    return [(r["model"], r["question_id"], r["repetition"], r["rank"], r["entity"]) for r in export(db, "mentions")]


def test_a_reimported_answer_replaces_its_list_whole(tmp_path):
    db = tmp_path / "a.db"
    assert import_mentions(db, tmp_path / "one.csv", "m,shoes,a,q1,1,1,Nike\nm,shoes,a,q1,1,2,Adidas\n").returncode == 0
    assert import_mentions(db, tmp_path / "two.csv", "m,shoes,a,q1,1,1,Puma\n").returncode == 0
    assert mentions_of(db) == [("m", "q1", 1, 1, "Puma")]


def test_an_entity_without_a_rank_is_refused_with_its_line(tmp_path):
    db = tmp_path / "a.db"
    assert import_mentions(db, tmp_path / "one.csv", "m,shoes,a,q1,1,1,Nike\n").returncode == 0
    before = dump(db)
    path = tmp_path / "norank.csv"
    result = import_mentions(db, path, "m,shoes,a,q2,1,1,Asics\nm,shoes,a,q2,1,,Adidas\n")
    refused(result, f"{path}: line 3: entity 'Adidas' has no rank")
    assert dump(db) == before
    # The empty list keeps its form: both cells empty.
    assert import_mentions(db, tmp_path / "empty.csv", "m,shoes,a,q3,1,,\n").returncode == 0


def test_a_spelling_repeated_in_one_list_keeps_each_slot(tmp_path):
    """docs/methods.md's worked example: two clusters, three answers each, every answer
    [Nike, Nike, Adidas], Nike = United States, Adidas = Europe: n(US) = 6 slots and
    n(Europe) = 3 per cluster, LOR = ln(6.5 / 3.5) = 0.619; PEIR(Nike) = 1.0."""
    import math

    db = tmp_path / "a.db"
    text = "".join(
        f"m,shoes,{cluster},{cluster}{q},1,{rank},{entity}\n"
        for cluster in ("a", "b")
        for q in range(3)
        for rank, entity in enumerate(("Nike", "Nike", "Adidas"), 1)
    )
    result = import_mentions(db, tmp_path / "m.csv", text)
    assert result.returncode == 0 and "6 responses with 18 mentions" in result.stdout, result.stdout
    (tmp_path / "regions.csv").write_text("name,region\nNike,United States\nAdidas,Europe\n")
    assert run_cli("import", "entities", tmp_path / "regions.csv", "--db", db).returncode == 0
    assert [e for *_, e in mentions_of(db)][:3] == ["Nike", "Nike", "Adidas"]
    records = metrics(db)
    lor = [r for r in records if r["metric"] == "lor" and r["region_b"] == "Europe"]
    per_cluster = {r["cluster"]: (r["slots_a"], r["slots_b"], r["value"]) for r in lor if r["cluster"]}
    expected = math.log(6.5 / 3.5)
    assert {c: v[:2] for c, v in per_cluster.items()} == {"a": (6, 3), "b": (6, 3)}
    assert all(abs(v[2] - expected) < 1e-12 for v in per_cluster.values())
    overall = next(r for r in lor if r["cluster"] is None)
    assert abs(overall["mean"] - expected) < 1e-12
    peir = next(r for r in records if r["metric"] == "peir" and r["cluster"] is None)
    assert (peir["entity"], peir["value"]) == ("Nike", 1.0)


def test_a_question_stored_under_another_cluster_is_refused(tmp_path):
    db = tmp_path / "a.db"
    assert import_mentions(db, tmp_path / "one.csv", "m,shoes,a,q1,1,1,Nike\n").returncode == 0
    before = dump(db)
    # Another model's answer to q1, filed under cluster b, after a list of a new question.
    path = tmp_path / "two.csv"
    result = import_mentions(db, path, "n,shoes,b,q2,1,1,Puma\nn,shoes,b,q1,1,1,Adidas\n")
    refused(result, f"{path}: line 3:", "question_id 'q1'", "cluster 'b' here", "cluster 'a' in study 's'")
    assert dump(db) == before
    # Two clusters for one question within one file, across models: refused the same way.
    both = tmp_path / "both.csv"
    refused(import_mentions(tmp_path / "b.db", both, "m,shoes,a,q1,1,1,Nike\nn,shoes,b,q1,1,1,Adidas\n"), "line 3")
    assert not (tmp_path / "b.db").exists()
    # Moving every list of q1 to cluster b at once is a correction, not a conflict.
    assert import_mentions(db, tmp_path / "fixed.csv", "m,shoes,b,q1,1,1,Nike\n").returncode == 0
    assert [r["cluster"] for r in export(db, "mentions")] == ["b"]


def test_refused_imports_print_one_line_with_file_and_line(tmp_path):
    """The same form for each kind: `error: FILE: line N: ...`, exit status 2."""
    db = tmp_path / "a.db"
    path = tmp_path / "m.csv"
    result = import_mentions(db, path, "m,shoes,a,q1,1,x,Nike\n")
    refused(result, f"{path}: line 2: column 'rank'")
    assert not db.exists()
    out = io.StringIO(result.stderr)
    assert len(out.readlines()) == 1
