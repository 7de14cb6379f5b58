"""A reviewed study reproduced on a new database by its report's recipe: the commands the
report prints (run, import entities, export and import decisions, metrics, report), run as
printed but for `--db`, give the report's numbers exactly; `import decisions` keeps who,
when and why, records nothing new the second time, refuses what this store lacks naming the
line, refuses alone a verdict whose answer reads otherwise, and undo takes a replayed
decision back as one made here. The served model is the test's OpenAI server (its answers
follow from the prompt); the store is a real SQLite file."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from html import unescape
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig

BRANDS = [
    ("Nike", "United States"),
    ("Adidas", "Europe"),
    ("Puma", "Europe"),
    ("Asics", "Asia"),
    ("Brooks", "United States"),
    ("Hoka", "Europe"),
    ("New Balance", "United States"),
    ("Saucony", "United States"),
]
QUESTIONS = {
    "running shoes": {
        "Budget-Conscious": ["Which cheap running shoe brand?", "Best value shoe brand?"],
        "Performance and Quality": ["Fastest racer?", "Best marathon shoe?"],
    },
    "headphones": {
        "Budget-Conscious": ["Cheap headphones?", "Value headphones?"],
        "Performance and Quality": ["Best sounding headphones?", "Studio headphones?"],
    },
}


def write_reviewed_study(folder: Path, base_url: str, system: str = "") -> Path:
    """A gazetteer ChoiceEval study of two served models, its brands file giving regions."""
    (folder / "brands.csv").write_text(
        "name,spellings,region\n" + "".join(f"{name},,{region}\n" for name, region in BRANDS)
    )
    topics = ""
    for topic, clusters in QUESTIONS.items():
        topics += f'[[topics]]\nname = "{topic}"\n[topics.questions]\n'
        topics += "".join(f'"{cluster}" = {json.dumps(qs)}\n' for cluster, qs in clusters.items())
    study = folder / "shoes.toml"
    study.write_text(
        'name = "shoes"\nmethod = "choice"\nrepetitions = 2\nseed = 3\n'
        f'models = ["openai:alpha@{base_url}", "openai:beta@{base_url}"]\n'
        "[generation]\ntemperature = 0.7\nmax_tokens = 40\n"
        + (f"system = {json.dumps(system)}\n" if system else "")
        + '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\nk = 3\n'
        '[[clusters]]\nname = "Budget-Conscious"\ndescription = "Wants value."\n'
        '[[clusters]]\nname = "Performance and Quality"\ndescription = "Wants speed."\n' + topics
    )
    return study


def ok(*args) -> str:
    done = run_cli(*map(str, args))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def review(db: Path) -> None:
    """Two reviewers, an adjudication, an undone verdict, a merge of a spelling a reviewer
    typed, a region decision and a rename: every kind the recipe has to carry."""
    base = ("review", "verdict", "--db", db, "--study", "shoes")
    for args in (
        ("--list", 1, "--accept", "--who", "alice", "--why", "matches the answer"),
        ("--list", 3, "--reject", "--who", "alice"),
        ("--list", 4, "--edit", "Nike Inc", "--edit", "Asics", "--who", "alice", "--why", "it says Nike Inc"),
        ("--list", 5, "--accept", "--who", "bob", "--blind"),
        ("--list", 5, "--edit", "Puma", "--who", "alice"),
        ("--list", 6, "--accept", "--who", "alice"),
    ):
        ok(*base, *args)
    ok("review", "undo", "--db", db, "--study", "shoes", "--who", "alice")
    ok("review", "adjudicate", "--db", db, "--study", "shoes", "--list", 5, "--who", "dana", "--take", "bob")
    ok("entities", "merge", "Nike Inc", "Nike", "--into", "Nike", "--db", db, "--who", "carol", "--why", "same firm")
    ok("entities", "region", "Hoka", "--region", "Other", "--db", db, "--who", "carol", "--why", "Deckers")
    ok("entities", "rename", "Asics", "ASICS", "--db", db, "--who", "carol")


def recipe(report_html: str) -> list[list[str]]:
    """The recipe's command blocks as the report prints them, each command as words."""
    part = report_html.split('id="reproduce"', 1)[1].split("</section>", 1)[0]
    blocks = re.findall(r'<pre class="commands"><code>(.*?)</code></pre>', part, re.S)
    return [[line for line in unescape(block).splitlines() if line] for block in blocks]


def numbers(db: Path) -> list[dict]:
    return json.loads(ok("metrics", "--db", db, "--study", "shoes", "--format", "json"))


@pytest.fixture
def reviewed(tmp_path, fake_server, monkeypatch):
    server = fake_server(ServerConfig())
    monkeypatch.chdir(tmp_path)  # the recipe writes decisions.json where it is run
    study = write_reviewed_study(tmp_path, server.base_url)
    db = tmp_path / "audit.db"
    ok("run", study, "--db", db, "--quiet")
    ok("import", "entities", tmp_path / "brands.csv", "--db", db)
    review(db)
    ok("report", "--db", db, "--study", "shoes", "-o", tmp_path / "report.html")
    return study, db, tmp_path


def test_the_recipe_on_a_new_database_gives_the_reports_numbers_exactly(reviewed):
    study, db, folder = reviewed
    html = (folder / "report.html").read_text()
    exports, steps = recipe(html)
    verbs = [" ".join(shlex.split(c)[1:3]) for c in steps]
    assert verbs == ["run " + str(study), "import entities", "import decisions", "metrics --db", "report --db"]
    assert exports == [f"workbench export --db {db} --what decisions --format json -o decisions.json"]
    # every later step names a new database beside this one, not the one reported on
    assert all(f"--db {db.with_name(db.stem + '-reproduced.db')}" in step for step in steps)
    fresh = folder / "fresh.db"
    for command in exports + steps:  # as printed, but for the new database and the new report's name
        words = shlex.split(command)[1:]
        if words[0] != "export":
            words[words.index("--db") + 1] = str(fresh)
        if words[0] == "report":
            words[words.index("-o") + 1] = str(folder / "fresh.html")
        ok(*words)
    assert numbers(fresh) == numbers(db)
    table = re.compile(r"<table>.*?</table>", re.S)  # every table of findings, figure for figure
    findings = lambda text: table.findall(text.split('id="findings"', 1)[1].split('id="limitations"', 1)[0])  # noqa: E731
    assert findings((folder / "fresh.html").read_text()) == findings(html)
    logged = lambda path: [  # noqa: E731
        {k: r[k] for k in ("kind", "action", "who", "at", "why", "study", "scope", "before", "after", "state")}
        for r in json.loads(ok("export", "--db", path, "--what", "decisions", "--format", "json"))
    ]
    assert logged(fresh) == logged(db)  # who, when, why, before and after: as decided
    again = ok("import", "decisions", folder / "decisions.json", "--db", fresh)
    assert "Nothing new from decisions.json" in again and logged(fresh) == logged(db)


def test_undo_after_import_takes_back_a_replayed_decision_as_one_made_by_hand(reviewed):
    study, db, folder = reviewed
    ok("export", "--db", db, "--what", "decisions", "--format", "json", "-o", folder / "d.json")
    fresh = folder / "fresh.db"
    ok("run", study, "--db", fresh, "--quiet")
    ok("import", "entities", folder / "brands.csv", "--db", fresh)
    said = ok("import", "decisions", folder / "d.json", "--db", fresh)
    assert "Recorded 10 decisions from d.json: 7 verdicts and 3 entity decisions" in " ".join(said.split())
    assert "1 taken back in the other database" not in said  # an undone verdict is kept, as undone
    for path in (db, fresh):
        assert "Undo: rename Asics to ASICS" in " ".join(ok("entities", "undo", "--db", path, "--who", "carol").split())
        undone = " ".join(ok("review", "undo", "--db", path, "--study", "shoes", "--who", "dana").split())
        assert "Undid dana's edit" in undone
    assert numbers(fresh) == numbers(db)


def test_what_import_decisions_refuses(reviewed, tmp_path_factory):
    study, db, folder = reviewed
    ok("export", "--db", db, "--what", "decisions", "--format", "json", "-o", folder / "d.json")
    records = (folder / "d.json").read_text()
    empty = folder / "empty.db"  # no run here: the first verdict's list is missing, named by its line
    ok("import", "entities", folder / "brands.csv", "--db", empty)
    refused = run_cli("import", "decisions", folder / "d.json", "--db", empty)
    assert refused.returncode == 2 and f"{folder / 'd.json'}:2: no study 'shoes'" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert sqlite3.connect(empty).execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 0
    # An answer that reads otherwise here: that verdict alone is refused and said; the rest recorded.
    fresh = folder / "fresh.db"
    ok("run", study, "--db", fresh, "--quiet")
    conn = sqlite3.connect(fresh)
    key = json.loads(json.loads(records.splitlines()[1].rstrip(","))["scope"])["answer_key"]
    conn.execute("UPDATE responses SET text = text || ' (asked again)' WHERE request_key = ?", (key,))
    conn.commit()
    conn.close()
    said = " ".join(ok("import", "decisions", folder / "d.json", "--db", fresh).split())
    assert f"{folder / 'd.json'}:2: alice's accept on openai:alpha@" in said
    assert "refused (the answer here reads otherwise); nothing recorded for it, the file keeps it" in said
    assert "Recorded 9 decisions" in said
    bad = folder / "bad.json"
    bad.write_text('[\n{"kind": "verdict"}\n]\n')
    refused = run_cli("import", "decisions", bad, "--db", fresh)
    assert refused.returncode == 2 and f"{bad}:2: not a decision" in refused.stderr
    csv_file = folder / "d.csv"
    csv_file.write_text("kind\n")
    refused = run_cli("import", "decisions", csv_file, "--db", fresh)
    assert refused.returncode == 2 and "--format json" in refused.stderr


def test_init_names_the_entities_import_where_the_study_needs_regions(tmp_path):
    """The demo's brands file gives the regions its log-odds compare: init's next steps import it."""
    said = " ".join(ok("init", "choice", tmp_path / "mine.toml").split())
    assert f"workbench run {tmp_path / 'mine.toml'} --db audit.db" in said
    assert f"workbench import entities {tmp_path / 'demo_brands.csv'} --db audit.db" in said
    plain = " ".join(ok("init", "identity", tmp_path / "who.toml").split())
    assert "import entities" not in plain


def test_a_catalog_match_correction_replays_and_undoes(tmp_path):
    """A cold-start study's lists imported into two databases: a reviewer's catalog match in the
    first, exported and imported into the second, gives the same numbers; undo takes it back."""
    (tmp_path / "cat.csv").write_text("title,origin\nAlpha,Western\nBravo,Japanese\nCharlie,Western\n")
    (tmp_path / "r.csv").write_text(
        "model,seed,persona_category,persona,rank,item\nm,0,,neutral,1,Alpha\nm,0,,neutral,2,Bravo\n"
        "m,0,age,a teacher,1,Charly\nm,0,age,a teacher,2,Alpha\n"
    )
    first, second = tmp_path / "one.db", tmp_path / "two.db"
    for db in (first, second):
        ok("import", "rankings", tmp_path / "r.csv", "--db", db, "--study", "cs", "--catalog", tmp_path / "cat.csv")
    key = "m/0/age/a teacher/1"
    ok("review", "match", "--db", first, "--study", "cs", "--key", key, "--item", "Charlie", "--who", "erin")
    ok("export", "--db", first, "--what", "decisions", "--format", "json", "-o", tmp_path / "d.json")
    said = " ".join(ok("import", "decisions", tmp_path / "d.json", "--db", second).split())
    assert "Recorded 1 decision from d.json: 1 correction" in said
    metrics = lambda db: ok("metrics", "--db", db, "--study", "cs", "--format", "json")  # noqa: E731
    assert metrics(second) == metrics(first)
    assert "Nothing new" in ok("import", "decisions", tmp_path / "d.json", "--db", second)
    assert "back to Charly" in " ".join(
        ok("review", "undo-match", "--db", second, "--study", "cs", "--who", "erin").split()
    )
