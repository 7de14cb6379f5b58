"""Every n/a names its real cause and the remedy, where it is shown: for each reason of the
catalog (workbench/display/na_catalog.py) tests/na_causes.py makes the cause with the command line
(imported lists, regions, responses, references and label scores, a run on the real test
server), and the test finds the reason, and what to do about it, in what `workbench metrics`
prints and in its JSON records. A reason no test makes fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import run_cli
from na_causes import CAUSES
from openai_server import ServerConfig

from workbench.display.na_reasons import REASON_FIELDS, REASONS, by_key, find

DOCS = Path(__file__).resolve().parents[2] / "docs" / "methods.md"


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
        ("1 question", "one-question-unit"),
        ("1 seed", "one-seed"),
        ("1 answer", "one-answer"),
    ],
)
def test_each_reason_text_finds_its_own_remedy(text, key):
    assert find(text).key == key


NOTE = "Why some numbers are n/a, and what to do"


def _metrics(db: Path, *args: str, command: str = "metrics") -> str:
    done = run_cli(command, "--db", str(db), *args)
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())  # Rich wraps long cells: one line of words to search


@pytest.mark.parametrize("key", [reason.key for reason in REASONS])
def test_each_reason_is_shown_where_its_cause_is(key, tmp_path, fake_server):
    """The cause made with the command line (tests/na_causes.py); the reason where the number
    would be (in its cell, or the cell's count of units beside it), in the note under the
    tables with its remedy, and in the record's reason field of `--format json`."""
    cause = CAUSES.get(key)
    assert cause is not None, f"no test makes the cause of the n/a reason {key!r}: add one to tests/na_causes.py"
    made = cause(tmp_path, fake_server)
    assert find(made.text) == by_key(key)  # the catalog knows the reason as it is made
    out = _metrics(made.db, *made.args, command=made.command)
    where = [f"n/a ({made.text}", f"n/a: {made.text}", f"no test: {made.text}", *filter(None, [made.beside])]
    assert any(shown in out for shown in where), out
    note = out.split(NOTE, 1)[1]
    assert made.text in note and " ".join(by_key(key).remedy.split()) in note, note
    if made.in_records:
        done = run_cli(made.command, "--db", str(made.db), *made.args, "--format", "json")
        given = {record.get(name) for record in json.loads(done.stdout) for name in REASON_FIELDS}
        assert made.text in given


def test_every_cause_made_is_a_reason_of_the_catalog():
    assert set(CAUSES) <= {reason.key for reason in REASONS}


def test_regions_assigned_but_no_cluster_has_both_is_said_so_not_regions_needed(tmp_path, fake_server):
    """The issue's case: regions were assigned; the United States is named in one cluster,
    Europe in the other. The log-odds, its chart and the note name that, never 'regions needed'."""
    made = CAUSES["no-shared-cluster"](tmp_path, fake_server)
    out = _metrics(made.db, *made.args)
    # where the forest plot would be: the same cause with its remedy
    forest = out.split("Log-odds ratio with 95% intervals")[1].split("Share of recommendation slots")[0]
    assert "(no log-odds:" in forest
    assert "no cluster has slots of both regions: 4 vs 4 slots: more answers per cluster" in forest
    assert "regions needed" not in out


def test_lists_that_name_nothing_are_not_said_to_be_missing(tmp_path, fake_server):
    """Answers in, none naming an entity: the region chart says so, not 'finish the run'."""
    made = CAUSES["no-entity-named"](tmp_path, fake_server)
    chart = _metrics(made.db, *made.args).split("Share of recommendation slots by region, per model")[1]
    assert chart.lstrip().startswith(
        f"(no answer named an entity: {' '.join(by_key('no-entity-named').remedy.split())})"
    )
    assert "no answers" not in chart


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
    assert f"`workbench run {study} --db {db}` resumes the run" in out  # on this database, not ./workbench.db
    assert "import mentions" not in out and "ranked lists" not in out
