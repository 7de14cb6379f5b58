"""A column or key named twice is refused: read as a mapping, the last one won without a word.

`model,...,entity,entity` imported 3 mentions of the second entity column (exit 0);
`name,region,region` set the second region; `logprob` twice in `import scores` and
`question` twice in `import questions` kept the last; `spellings` twice in a gazetteer
dropped a spelling; ` entity` and `entity` collided the same way (the spaces around a
column's name are not part of it). A JSON question bank with a key given twice kept the
last list and lost the first questions; a task or catalog likewise. Each is now one line
naming the column (or key) and the file, exit 2, and the store exactly as it was.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import run_cli, write_study
from test_entity import EXAMPLE

MENTIONS = "model,topic,cluster,question_id,repetition,rank,entity"
TASK = EXAMPLE / "urgency.task.json"


def dump(db: Path) -> list[str]:
    """Every table's rows, as SQL (nothing when there is no store): equal twice, the store is as it was."""
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def refused(result, *said: str) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for words in said:
        assert words in result.stderr, result.stderr
    return result.stderr


def stored_store(tmp_path: Path) -> Path:
    """A store holding one imported list and one entity, to see that a refusal leaves it be."""
    db = tmp_path / "a.db"
    first = tmp_path / "first.csv"
    first.write_text(MENTIONS + "\ngpt,shoes,c1,q0,1,1,Puma\n")
    assert run_cli("import", "mentions", first, "--db", db, "--study", "s").returncode == 0
    entities = tmp_path / "first_entities.csv"
    entities.write_text("name,region\nPuma,Europe\n")
    assert run_cli("import", "entities", entities, "--db", db).returncode == 0
    return db


@pytest.mark.parametrize(
    ("header", "column", "columns"),
    [
        (MENTIONS + ",entity", "entity", "7 and 8"),
        (MENTIONS + ", entity", "entity", "7 and 8"),  # spaces around a name are not part of it
        (MENTIONS.replace("entity", " entity ") + ",entity", "entity", "7 and 8"),
        ("rank," + MENTIONS, "rank", "1 and 7"),
    ],
    ids=["entity twice", "entity and ' entity'", "' entity ' and entity", "rank first and sixth"],
)
def test_a_mentions_file_naming_a_column_twice_is_refused_and_stores_nothing(tmp_path, header, column, columns):
    db = stored_store(tmp_path)
    before = dump(db)
    path = tmp_path / "m.csv"
    extra = "1," if header.startswith("rank,") else ""
    tail = "" if extra else ",{second}"
    rows = "".join(
        f"{extra}gpt,shoes,c1,q{i},1,1,Nike{tail.format(second=name)}\n"
        for i, name in enumerate(("Adidas", "Asics", "Brooks"), 1)
    )
    path.write_text(header + "\n" + rows)
    message = refused(run_cli("import", "mentions", path, "--db", db, "--study", "s"))
    assert message.strip() == (
        f"error: {path}: line 1: column {column!r} is named twice (columns {columns}); name each column once"
    )
    assert dump(db) == before


def test_an_entities_file_naming_region_twice_is_refused(tmp_path):
    db = stored_store(tmp_path)
    before = dump(db)
    path = tmp_path / "e.csv"
    path.write_text("name,region,region\nNike,United States,Europe\n")
    refused(run_cli("import", "entities", path, "--db", db), f"{path}: line 1: column 'region' is named twice")
    assert dump(db) == before


def test_trailing_unnamed_columns_still_import(tmp_path):
    """A spreadsheet's trailing commas make columns with no name, never read: not a repeat."""
    path = tmp_path / "e.csv"
    path.write_text("name,region,,\nNike,United States,,\n")
    db = tmp_path / "e.db"
    result = run_cli("import", "entities", path, "--db", db)
    assert result.returncode == 0, result.stderr


def test_a_scores_file_naming_logprob_twice_is_refused(tmp_path):
    path = tmp_path / "scores.csv"
    labels = ("low_urgency", "moderate_urgency", "high_urgency", "critical_urgency")
    path.write_text(
        "entity,template_id,label,logprob,logprob\n" + "".join(f"France,0,{label},-9.0,-0.1\n" for label in labels)
    )
    db = tmp_path / "e.db"
    refused(
        run_cli("import", "scores", path, "--db", db, "--study", "e", "--task", TASK),
        f"{path}: line 1: column 'logprob' is named twice (columns 4 and 5)",
    )
    assert dump(db) == []


def test_a_questions_file_naming_question_twice_is_refused(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("topic,cluster,question,question\nshoes,Budget-Conscious,Which shoe?,Which boot?\n")
    db = tmp_path / "q.db"
    refused(
        run_cli("import", "questions", path, "--db", db, "--study", "s"),
        f"{path}: line 1: column 'question' is named twice",
    )
    assert dump(db) == []


def test_a_gazetteer_naming_spellings_twice_is_refused_before_any_request(tmp_path):
    (tmp_path / "brands.csv").write_text("name,spellings,spellings\nApple,iPhone,Macbook\n")
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=2)
    study.write_text(
        study.read_text().replace(
            "[[clusters]]", '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\n[[clusters]]'
        )
    )
    db = tmp_path / "g.db"
    refused(
        run_cli("run", study, "--db", db, "--quiet"),
        "brands.csv: line 1: column 'spellings' is named twice (columns 2 and 3)",
    )
    assert not db.exists() or 'INSERT INTO "requests"' not in "\n".join(dump(db))


# -- JSON: a key given twice ----------------------------------------------------------------


def test_a_question_bank_giving_a_cluster_twice_is_refused(tmp_path):
    """The bank's second list of a cluster replaced the first: 1 question imported of 2."""
    bank = tmp_path / "shoes.json"
    bank.write_text(
        '{\n  "Budget-Conscious": ["Which shoe is cheapest?"],\n  "Budget-Conscious": ["Which lasts?"]\n}\n'
    )
    db = stored_store(tmp_path)
    before = dump(db)
    message = refused(run_cli("import", "questions", bank, "--db", db, "--study", "s"))
    assert message.strip() == (
        f"error: {bank}: key 'Budget-Conscious' is given twice in the object that opens on line 1; "
        "the first value would be lost: give each key once"
    )
    assert dump(db) == before


def test_a_task_giving_a_key_twice_is_refused(tmp_path):
    task = tmp_path / "t.json"
    text = TASK.read_text("utf-8")
    assert '"id": "urgency"' in text  # the example task names itself; here it is named twice
    task.write_text(text.replace('"labels"', '"id": "again", "labels"', 1))
    scores = tmp_path / "s.csv"
    scores.write_text("entity,template_id,label,logprob\nFrance,0,low_urgency,-0.1\n")
    db = tmp_path / "e.db"
    refused(
        run_cli("import", "scores", scores, "--db", db, "--study", "e", "--task", task),
        f"--task: {task}: key 'id' is given twice",
    )
    assert dump(db) == []


def test_a_catalog_giving_a_name_twice_in_one_item_is_refused(tmp_path):
    catalog = tmp_path / "c.json"
    catalog.write_text('[{"name": "Alien"},\n {"name": "Heat", "name": "Ronin"}]\n')
    rankings = tmp_path / "r.csv"
    rankings.write_text("model,seed,persona_category,persona,rank,item\nm,0,neutral,neutral,1,Alien\n")
    db = tmp_path / "r.db"
    message = refused(run_cli("import", "rankings", rankings, "--db", db, "--study", "c", "--catalog", catalog))
    assert message.strip() == (
        f"error: {catalog}: key 'name' is given twice in the object that opens on line 2; "
        "the first value would be lost: give each key once"
    )
    assert dump(db) == []
