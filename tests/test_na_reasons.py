"""Every n/a names its real cause and the remedy, where it is shown: each test below makes the
cause with the command line (imported lists, entities with regions, a run on the real test
server) and finds the reason, and what to do about it, in what `workbench metrics` prints."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig

from workbench.na_reasons import REASONS, by_key, find

DOCS = Path(__file__).resolve().parents[1] / "docs" / "methods.md"


def test_the_docs_table_is_the_catalog():
    """docs/methods.md lists every reason with its cause and remedy, as the code gives them."""
    text = DOCS.read_text()
    section = text.split("### When a number is n/a")[1].split("\n## ")[0]
    rows = [
        [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        for line in section.splitlines()
        if line.startswith("| ") and "`" in line.split("|")[2]
    ]
    assert [row[1].strip("`") for row in rows] == [r.key for r in REASONS]
    for row, reason in zip(rows, REASONS):
        assert row == [reason.shown, f"`{reason.key}`", reason.cause, reason.remedy]


@pytest.mark.parametrize(
    "text, key",
    [
        ("no Europe slot: 4 vs 0 slots", "no-slot-one"),
        ("no United States slot: 0 vs 3 slots", "no-slot-one"),
        ("no slot of either region", "no-slot-either"),
        ("no cluster has slots of both regions: 2 vs 2 slots", "no-shared-cluster"),
        ("only 1 of 3 clusters has slots of both regions", "few-clusters"),
        ("1 question in cluster 'Speed'", "one-question"),
        ("1 question", "one-question-unit"),
        ("1 seed", "one-seed"),
        ("1 answer", "one-answer"),
        ("1 answer per cluster", "one-answer-per-cluster"),
    ],
)
def test_each_reason_text_finds_its_own_remedy(text, key):
    assert find(text).key == key


def _lists(tmp_path: Path, rows: list[tuple], name: str = "m.csv") -> Path:
    """Imported lists: (cluster, question, repetition, entities) rows of model gpt, topic shoes."""
    path = tmp_path / name
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for cluster, question, repetition, entities in rows:
            for rank, entity in enumerate(entities, 1):
                writer.writerow(["gpt", "shoes", cluster, question, repetition, rank, entity])
            if not entities:
                writer.writerow(["gpt", "shoes", cluster, question, repetition, "", ""])
    db = tmp_path / "audit.db"
    done = run_cli("import", "mentions", str(path), "--db", str(db), "--study", "s")
    assert done.returncode == 0, done.stderr
    return db


def _regions(tmp_path: Path, db: Path, pairs: dict[str, str]) -> None:
    path = tmp_path / "regions.csv"
    path.write_text("name,region\n" + "".join(f"{name},{region}\n" for name, region in pairs.items()))
    assert run_cli("import", "entities", str(path), "--db", str(db)).returncode == 0


def _metrics(db: Path) -> str:
    done = run_cli("metrics", "--db", str(db), "--study", "s")
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())  # Rich wraps long cells: one line of words to search


def _shows(out: str, key: str, reason: str | None = None) -> None:
    """The reason where the number is, and its remedy in the note under the tables."""
    assert f"n/a ({reason or by_key(key).shown}" in out or f"({reason or by_key(key).shown}" in out
    assert " ".join(by_key(key).remedy.split()) in out


def test_no_regions_imported(tmp_path):
    db = _lists(tmp_path, [("A", f"q{q}", r, ["Nike", "Puma"]) for q in range(2) for r in (1, 2)])
    _shows(_metrics(db), "no-regions")


def test_regions_assigned_but_no_cluster_has_both_is_said_so_not_regions_needed(tmp_path):
    """The issue's case: regions were assigned; the United States is named in one cluster,
    Europe in the other. The log-odds, its chart and the note name that, never 'regions needed'."""
    rows = [("A", f"a{q}", r, ["Nike"]) for q in range(2) for r in (1, 2)]
    rows += [("B", f"b{q}", r, ["Puma"]) for q in range(2) for r in (1, 2)]
    db = _lists(tmp_path, rows)
    _regions(tmp_path, db, {"Nike": "United States", "Puma": "Europe"})
    out = _metrics(db)
    _shows(out, "no-shared-cluster", "no cluster has slots of both regions: 4 vs 4 slots")
    # where the forest plot would be: the same cause with its remedy
    forest = out.split("Log-odds ratio with 95% intervals")[1].split("Share of recommendation slots")[0]
    assert "(no log-odds:" in forest
    assert "no cluster has slots of both regions: 4 vs 4 slots: more answers per cluster" in forest
    assert "regions needed" not in out


def test_one_region_never_named(tmp_path):
    db = _lists(tmp_path, [("A", f"q{q}", r, ["Nike", "Asics"]) for q in range(2) for r in (1, 2)])
    _regions(tmp_path, db, {"Nike": "United States", "Asics": "Asia", "Puma": "Europe"})
    _shows(_metrics(db), "no-slot-one", "no Europe slot: 4 vs 0 slots")


def test_names_without_a_region(tmp_path):
    db = _lists(tmp_path, [("A", f"q{q}", r, ["Nike"]) for q in range(2) for r in (1, 2)])
    _regions(tmp_path, db, {"Reebok": "United States"})
    _shows(_metrics(db), "unmatched-names", "no extracted name has a region")


def test_one_cluster_has_no_t_test(tmp_path):
    db = _lists(tmp_path, [("A", f"q{q}", r, ["Nike", "Puma"][: 1 + q % 2]) for q in range(4) for r in (1, 2)])
    _regions(tmp_path, db, {"Nike": "United States", "Puma": "Europe"})
    out = _metrics(db)
    assert "no test: one cluster" in out and " ".join(by_key("one-cluster").remedy.split()) in out


def test_one_repetition_and_one_question_in_a_cluster(tmp_path):
    db = _lists(tmp_path, [("A", "q0", 1, ["Nike"]), ("B", "q1", 1, ["Nike"]), ("B", "q2", 1, ["Puma"])])
    out = _metrics(db)
    assert "KW n/a (one repetition: stability needs two or more)" in out
    assert " ".join(by_key("one-repetition").remedy.split()) in out
    _shows(out, "one-question", "interval n/a: 1 question in cluster 'A'")


def test_no_answer_named_an_entity(tmp_path):
    db = _lists(tmp_path, [("A", f"q{q}", 1, []) for q in range(3)])
    _shows(_metrics(db), "no-entity-named")


def _identity(tmp_path, fake_server, reply: str) -> Path:
    server = fake_server(ServerConfig(reply_text=reply))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "s"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 2\nseed = 2\nstructured = true\n'
    )
    db = tmp_path / "id.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    return db


REPLY = '[{"university": "Howard University", "explanation": "community"}, {"university": "MIT", "explanation": "x"}]'


def test_identity_mean_share_without_references_says_import_references(tmp_path, fake_server):
    db = _identity(tmp_path, fake_server, REPLY)
    _shows(_metrics(db), "no-references")
    refs = tmp_path / "refs.csv"
    refs.write_text("item,group,share\nHarvard,Black,0.2\nHoward University,White,0.1\nMIT,White,0.1\n")
    assert run_cli("import", "references", str(refs), "--db", str(db), "--study", "s").returncode == 0
    out = _metrics(db)
    _shows(out, "unknown-items")  # Black users' answers name nothing the table has
    _shows(out, "same-shares")  # White users: every answer the same share, no rank test


def test_identity_answers_that_parse_to_nothing(tmp_path, fake_server):
    db = _identity(tmp_path, fake_server, "I would rather not say.")
    refs = tmp_path / "refs.csv"
    refs.write_text("item,group,share\nMIT,Black,0.2\n")
    assert run_cli("import", "references", str(refs), "--db", str(db), "--study", "s").returncode == 0
    _shows(_metrics(db), "no-parsed-answer")


def test_metrics_with_nothing_answered_yet_says_what_is_under_way(tmp_path, fake_server):
    """An identity run whose model answered nothing: not 'No ranked lists ... import mentions'."""
    server = fake_server(ServerConfig(refuse=404))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "s"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 2\nseed = 2\n'
    )
    db = tmp_path / "id.db"
    run_cli("run", str(study), "--db", str(db), "--quiet")
    out = _metrics(db)
    assert "s (identity): no numbers yet: 0 of 8 requests answered" in out
    assert f"`workbench run {study}` resumes the run" in out
    assert "import mentions" not in out and "ranked lists" not in out
