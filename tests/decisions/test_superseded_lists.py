"""A list whose answer the study no longer asks for is the study's no more: fewer
repetitions after a run leave the other repetition's lists stored (for the log and for
going back), but the mentions export, the review pages, the entity list, the status's
grounding counts and the report read only the lists that count now, as the metrics do."""

import csv
import io
import json

from helpers import run_cli, write_study


def test_lists_of_a_superseded_repetition_are_read_by_nothing(tmp_path, fake_server):
    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2, repetitions=2)
    db = str(tmp_path / "s.db")
    assert run_cli("run", str(study), "--db", db, "--quiet").returncode == 0
    before = list(csv.DictReader(io.StringIO(run_cli("export", "--db", db, "--what", "mentions").stdout)))
    assert {row["repetition"] for row in before} == {"1", "2"}

    study.write_text(study.read_text().replace("repetitions = 2", "repetitions = 1"))
    assert run_cli("run", str(study), "--db", db, "--quiet").returncode == 0

    mentions = list(csv.DictReader(io.StringIO(run_cli("export", "--db", db, "--what", "mentions").stdout)))
    assert mentions and {row["repetition"] for row in mentions} == {"1"}
    reviewable = json.loads(run_cli("review", "lists", "--db", db, "--study", "t", "--format", "json").stdout)
    assert len(reviewable) == 2 and all(item["repetition"] == 1 for item in reviewable)
    named = sum(1 for row in mentions if row["entity"])
    entities = list(csv.DictReader(io.StringIO(run_cli("entities", "list", "--db", db).stdout)))
    assert sum(int(row["mentions"]) for row in entities) == named
    report = run_cli("report", "--db", db, "--study", "t", "--format", "md", "-o", str(tmp_path / "r.md"))
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "r.md").read_text()
    assert "**Extracted lists:** 2\n" in text  # 4 stored, 2 of them the study's now
