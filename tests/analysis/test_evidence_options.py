"""`workbench evidence` as a hostile user types it: a region or a pair written another way than
the table's, an unknown one, an option the metric does not take, a list after a merge, a name
the answer writes otherwise than the list counts it, a list of picks read by the gazetteer."""

import json
from pathlib import Path

import pytest
from helpers import run_cli, write_study
from openai_server import ServerConfig

BRANDS = "name,spellings,region\nOn Running,On,Europe\nAdidas,,Europe\nHoka,,United States\nBrooks,,United States\n"


def _imported(tmp_path, merge: bool = False):
    """An imported study (lists without text): 4 answers naming Nike, On, Puma, Asics, regions."""
    db = tmp_path / "a.db"
    lines = ["model,topic,cluster,question_id,repetition,rank,entity"]
    for rep in (1, 2, 3, 4):
        lines += [f"m1,shoes,Budget,B0,{rep},{rank},{name}" for rank, name in enumerate(["On", "Puma", "Asics"], 1)]
    (tmp_path / "m.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "e.csv").write_text("name,region\nOn,Europe\nPuma,Europe\nAsics,Asia\n")
    assert run_cli("import", "mentions", str(tmp_path / "m.csv"), "--db", str(db), "--study", "s").returncode == 0
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    if merge:
        done = run_cli("entities", "merge", "On", "Puma", "--into", "Puma", "--db", str(db), "--who", "ana")
        assert done.returncode == 0, done.stdout + done.stderr
    return str(db)


def _refused(db, *args) -> str:
    done = run_cli("evidence", "--db", db, *args)
    assert done.returncode == 2 and not done.stdout, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def test_a_region_is_matched_as_imports_match_it_and_an_unknown_one_refused(tmp_path):
    db = _imported(tmp_path)
    shown = run_cli("evidence", "--db", db, "--metric", "region_share", "--topic", "shoes", "--region", " europe ")
    assert shown.returncode == 0, shown.stderr
    assert "Europe: 8 of 12 slots (0.67), in 4 of 4 answers" in shown.stdout
    error = _refused(db, "--metric", "region_share", "--topic", "shoes", "--region", "Mars")
    assert "unknown region 'Mars'" in error and "United States, Europe, Asia, Other" in error
    for pair in (["united states", "europe"], ["US", "Europe"]):
        found = run_cli("evidence", "--db", db, "--metric", "lor", "--topic", "shoes", "--pair", *pair)
        assert found.returncode == 0, found.stderr
        assert "United States 0 vs Europe 8 recommendation slots in 4 answers" in found.stdout
    assert "no region pair 'US vs Mars'" in _refused(db, "--metric", "lor", "--topic", "shoes", "--pair", "US", "Mars")


def test_an_option_the_metric_does_not_take_or_an_unknown_value_is_refused(tmp_path, fake_server):
    from test_evidence import _entity_study

    db = _imported(tmp_path)
    error = _refused(db, "--metric", "peir", "--topic", "shoes", "--region", "Europe")
    assert "metric 'peir' takes no --region (it takes: --topic, --model, --cluster)" in error
    assert "takes no --entity" in _refused(db, "--metric", "region_share", "--topic", "shoes", "--entity", "On")
    assert "no cluster of topic 'shoes' 'zzz'" in _refused(
        db, "--metric", "peir", "--topic", "shoes", "--cluster", "zzz"
    )
    assert run_cli("run", str(_entity_study(tmp_path, fake_server)), "--db", db, "--quiet").returncode == 0
    records = json.loads(run_cli("metrics", "--db", db, "--study", "urgency", "--format", "json").stdout)
    entity = next(r for r in records if r["metric"] == "entity_delta")["entity"]
    error = _refused(db, "--study", "urgency", "--metric", "delta", "--entity", entity, "--cluster", "zzz")
    assert "no condition 'zzz'" in error and "· zero_shot_text'" in error  # the table's header, named
    assert "takes no --region" in _refused(db, "--study", "urgency", "--metric", "delta", "--region", "Europe")


def test_divergence_lists_the_shared_items_and_takes_no_cluster(tmp_path):
    db = str(tmp_path / "cs.db")
    lines = ["model,seed,persona_category,persona,rank,item"]
    lines += [f"m,0,,neutral,{rank},{item}" for rank, item in enumerate(["Alien", "Se7en", "Oldboy", "Up"], 1)]
    lines += [f"m,0,gender,a girl,{rank},{item}" for rank, item in enumerate(["Up", "Heat", "Alien", "Jaws"], 1)]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    assert run_cli("import", "rankings", str(tmp_path / "r.csv"), "--db", db, "--study", "cs").returncode == 0
    shown = run_cli("evidence", "--db", db, "--metric", "divergence", "--topic", "gender: a girl")
    assert "2 of 6 items shared with the neutral list (Up, Alien)" in shown.stdout
    assert "mean of 1 seed" in shown.stdout and "1 seeds" not in shown.stdout
    error = _refused(db, "--metric", "divergence", "--topic", "gender: a girl", "--cluster", "zzz")
    assert "metric 'divergence' takes no --cluster (it takes: --topic, --model)" in error


def test_lists_after_a_merge_show_the_names_they_count_now(tmp_path):
    db = _imported(tmp_path, merge=True)
    shown = run_cli("evidence", "--db", db, "--metric", "peir", "--topic", "shoes", "--cluster", "Budget")
    assert "tie: Asics, Puma each named in 4 of 4 answers" in shown.stdout
    assert "list: Puma, Puma, Asics · counted: Puma, Asics" in shown.stdout  # On is Puma now
    assert "list: On" not in shown.stdout


@pytest.fixture
def gazetteer_run(tmp_path, fake_server):
    """A gazetteer run whose answer names On Running as "On" and Adidas misspelt."""
    (tmp_path / "brands.csv").write_text(BRANDS)
    answer = "On, Hoka and Brooks are light. I also like [/x] Adiddas for racing."
    server = fake_server(ServerConfig(reply_text=answer))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2)
    study.write_text(
        study.read_text().replace(
            "[[clusters]]", '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\nk = 5\n[[clusters]]'
        )
    )
    db = str(tmp_path / "g.db")
    assert run_cli("run", str(study), "--db", db, "--quiet").returncode == 0
    assert run_cli("import", "entities", str(tmp_path / "brands.csv"), "--db", db).returncode == 0
    return db


def test_counted_names_written_otherwise_are_marked(gazetteer_run):
    db = gazetteer_run
    args = ["evidence", "--db", db, "--metric", "region_share", "--topic", "gadgets", "--region", "Europe"]
    table = run_cli(*args).stdout
    assert "counted: On Running, Adidas" in table
    assert "[[On]], Hoka and Brooks are light. I also like [/x] [[Adiddas]] for racing." in table
    (found,) = json.loads(run_cli(*args, "--format", "json").stdout)
    answer = found["answers"][0]
    assert [answer["text"][s:e] for s, e in answer["marks"]] == ["On", "Adiddas"]
    out = Path(db).parent / "r.html"  # the report's appendix marks them alike
    assert run_cli("report", "--db", db, "-o", str(out)).returncode == 0
    html = out.read_text()
    assert "<mark>On</mark>, " in html and "<mark>Adiddas</mark>" in html


def test_a_list_of_picks_is_counted_without_flags(tmp_path, fake_server):
    (tmp_path / "brands.csv").write_text(BRANDS + "New Balance,,United States\nPuma,,Europe\n")
    server = fake_server(ServerConfig(reply_text="Here are my picks:\n1. Brooks\n2. New Balance\n3. Puma"))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2)
    study.write_text(
        study.read_text().replace(
            "[[clusters]]", '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\nk = 5\n[[clusters]]'
        )
    )
    db = str(tmp_path / "g.db")
    out = run_cli("run", str(study), "--db", db, "--quiet")
    assert out.returncode == 0, out.stderr
    assert "0 near spellings and 0 common-word matches are flagged for review" in out.stdout
    listed = json.loads(run_cli("review", "lists", "--db", db, "--study", "t", "--format", "json").stdout)
    assert [item["flagged"] for item in listed] == [[], []]
    assert all(item["extracted"] == ["Brooks", "New Balance", "Puma"] for item in listed)
