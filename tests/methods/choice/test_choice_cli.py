"""ChoiceEval from the command line: imports, metrics, exports."""

import csv
import json
import math

import pytest
from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig


def write_mentions(path, lists):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for (model, topic, cluster, question, rep), entities in lists.items():
            if not entities:
                writer.writerow([model, topic, cluster, question, rep, "", ""])
            for rank, entity in enumerate(entities, start=1):
                writer.writerow([model, topic, cluster, question, rep, rank, entity])


def test_import_mentions_entities_then_metrics_json(tmp_path):
    db = str(tmp_path / "m.db")
    lists = {}
    for rep in (1, 2):
        for cluster in ("Budget-Conscious", "Convenience", "Health and Wellness"):
            for q in range(4):
                lists["gpt", "shoes", cluster, f"{cluster}-{q}", rep] = ["Nike", "Adidas", "Asics"][: 1 + q % 3]
    lists["gpt", "shoes", "Convenience", "empty", 1] = []
    write_mentions(tmp_path / "mentions.csv", lists)
    (tmp_path / "entities.csv").write_text(
        "name,region,country\nNike,United States,US\nAdidas,Europe,DE\nAsics,Asia,JP\nPuma,Europe,DE\n"
    )

    out = run_cli("import", "mentions", str(tmp_path / "mentions.csv"), "--db", db, "--study", "ext")
    assert out.returncode == 0, out.stderr
    assert "Imported 25 responses" in out.stdout and "1 with no recommendation" in out.stdout
    out = run_cli("import", "entities", str(tmp_path / "entities.csv"), "--db", db)
    assert "Assigned region and attributes to 3 entities" in out.stdout
    assert "1 name matches no entity yet; they are kept and applied when mentions name them: Puma" in out.stdout

    records = json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
    peir = [r for r in records if r["metric"] == "peir" and r["cluster"] is None]
    interval = {
        k: peir[0].pop(k) for k in ("ci_low", "ci_high", "ci_level", "n_boot", "ci_unit", "n_eff", "design_effect")
    }
    assert peir == [
        {
            "convention": "paper",
            "study": "ext",
            "model": "gpt",
            "topic": "shoes",
            "cluster": None,
            "metric": "peir",
            "entity": "Nike",
            "value": 24 / 25,
            "n": 25,
            "runner_up": "Adidas",  # 12 of the 25 answers name it
            "runner_up_value": 12 / 25,
            "stays_preferred": pytest.approx(1.0, abs=0.02),  # no question names Adidas more than Nike
        }
    ]
    assert interval["ci_low"] < 24 / 25 <= interval["ci_high"] <= 1 and interval["ci_level"] == 0.95
    assert interval["ci_unit"] == "question" and interval["n_eff"] > 0  # questions resampled, with their repetitions
    direct = [r for r in records if r["metric"] == "direct_recommendation_rate" and r["cluster"] is None]
    assert direct[0]["value"] == 24 / 25
    lor = [r for r in records if r["metric"] == "lor" and r["cluster"] is None and r["region_b"] == "Europe"][0]
    # Per cluster and repetition the lists are [Nike], [Nike, Adidas], [Nike, Adidas, Asics], [Nike]:
    # Nike (US) holds 8 slots, Adidas (EU) 4 -> ln(8.5/4.5) in each of the 3 clusters (the
    # empty response adds nothing); the values are equal, so the paper's t-test over clusters is
    # undefined, while the interval over questions has its own test (p inverts it)
    assert lor["mean"] == pytest.approx(math.log(8.5 / 4.5))
    assert lor["n_groups"] == 3 and lor["t_paper"] is None and lor["p_paper"] is None
    assert (lor["p"] < 0.05) == (lor["ci_low"] > 0 or lor["ci_high"] < 0)
    assert {r["metric"] for r in records} >= {"spearman", "kruskal_wallis"}
    table = run_cli("metrics", "--db", db).stdout
    assert "Nike 0.96 [" in table and "direct 0.96" in table  # PEIR 24/25 and its interval, as on the screen

    exported = run_cli("export", "--db", db, "--what", "mentions", "--format", "csv").stdout.splitlines()
    assert exported[0].startswith(
        "study,model,topic,cluster,question_id,question,repetition,rank,surface,entity,region"
    )
    assert len(exported) == 1 + 42 + 1  # header, 7 mentions x 3 clusters x 2 repetitions, one empty list
    entities = json.loads(run_cli("export", "--db", db, "--what", "entities", "--format", "json").stdout)
    assert entities[0] == {"name": "Nike", "region": "United States", "mentions": 24, "country": "US"}
    metrics_csv = run_cli("export", "--db", db, "--what", "metrics", "--format", "csv").stdout
    assert metrics_csv.startswith("study,metric,convention,model,topic,cluster")


def test_tied_with_in_the_metrics_csv_is_a_json_array(tmp_path):
    """`export --what metrics --format csv` wrote tied_with as Python's
    "('Electrolux', 'Frigidaire')"; it is a JSON array, as in the JSON export."""
    db = str(tmp_path / "m.db")
    lists = {
        ("gpt", "fridges", "Convenience", f"q{q}", 1): [name] for q, name in enumerate(["Bosch", "Electrolux"] * 2)
    }
    lists["gpt", "fridges", "Convenience", "q4", 1] = ["Frigidaire"]
    lists["gpt", "fridges", "Convenience", "q5", 1] = ["Frigidaire"]
    write_mentions(tmp_path / "mentions.csv", lists)
    assert run_cli("import", "mentions", str(tmp_path / "mentions.csv"), "--db", db, "--study", "s").returncode == 0
    out = run_cli("export", "--db", db, "--what", "metrics", "--format", "csv")
    peir = [r for r in csv.DictReader(out.stdout.splitlines()) if r["metric"] == "peir" and not r["cluster"]]
    assert [(r["entity"], r["tied_with"]) for r in peir] == [("Bosch", '["Electrolux", "Frigidaire"]')]
    records = json.loads(run_cli("export", "--db", db, "--what", "metrics", "--format", "json").stdout)
    assert [r["tied_with"] for r in records if r["metric"] == "peir" and r["cluster"] is None] == [
        ["Electrolux", "Frigidaire"]
    ]


def test_import_errors_name_the_file_and_line(tmp_path):
    db = str(tmp_path / "m.db")
    bad = tmp_path / "bad.csv"
    bad.write_text("model,topic,cluster,question_id,repetition,rank,entity\ngpt,t,c,q,one,1,Nike\n")
    out = run_cli("import", "mentions", str(bad), "--db", db, "--study", "x")
    assert (
        out.returncode == 2 and f"{bad}: line 2: column 'repetition': expected a whole number, got 'one'" in out.stderr
    )
    assert not (tmp_path / "m.db").exists()  # a failed import leaves nothing behind
    bad.write_text("model,topic\nx,y\n")
    out = run_cli("import", "mentions", str(bad), "--db", db, "--study", "x")
    assert out.returncode == 2 and "missing column(s) cluster, question_id, repetition, rank, entity" in out.stderr


def test_imported_questions_are_asked_by_the_next_run(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    db = str(tmp_path / "q.db")
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2, name="qs")
    assert run_cli("run", str(study), "--db", db, "--quiet").returncode == 0
    (tmp_path / "more.csv").write_text(
        "topic,cluster,question\ngadgets,Budget-Conscious,Cheapest phone?\ngadgets,Budget-Conscious,Cheapest laptop?\n"
    )
    out = run_cli("import", "questions", str(tmp_path / "more.csv"), "--db", db, "--study", "qs")
    assert "Imported 2 new questions" in out.stdout, out.stdout + out.stderr
    again = run_cli("run", str(study), "--db", db, "--quiet")
    assert "All 4 requests answered" in again.stdout
    # The list extractor turned the server's numbered answers into ranked lists.
    assert rows(tmp_path / "q.db", "SELECT COUNT(*), MIN(source) FROM mention_lists") == [(4, "list")]
    assert rows(tmp_path / "q.db", "SELECT COUNT(*) > 4 FROM mentions") == [(1,)]


def test_editing_the_study_supersedes_old_requests(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    db = tmp_path / "e.db"
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=3)
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    write_study(study, models=[f"openai:m@{server.base_url}"], questions=3, temperature=0.2)
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert "All 3 requests answered" in out.stdout
    status = json.loads(run_cli("status", "--db", str(db), "--json").stdout)
    assert status[0]["done"] == 3  # the three answers at temperature 0.7 no longer count
    assert rows(db, "SELECT COUNT(*) FROM requests WHERE superseded = 1") == [(3,)]
    exported = json.loads(run_cli("export", "--db", str(db), "--format", "json").stdout)
    assert len(exported) == 3
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    assert [r["n"] for r in records if r["metric"] == "peir" and r["cluster"] is None] == [3]


def test_expert_extraction_through_the_http_engine(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    db = tmp_path / "x.db"
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=3, extra_generation="")
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "experts"\nexperts = 5\nk = 3\n')
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All 18 requests answered" in out.stdout  # 3 answers + 15 expert replies
    assert "15 expert replies, 0 unparseable" in out.stdout
    # Every expert's list is stored, and the voted list is at most k long, of entities
    # a majority (3 of 5) named: an answer may have none.
    assert rows(db, "SELECT COUNT(*), SUM(parsed) FROM expert_lists") == [(15, 15)]
    assert rows(db, "SELECT MAX(rank) <= 3, MIN(votes) >= 3 FROM mentions") == [(1, 1)]
    assert rows(db, "SELECT COUNT(*) FROM mention_lists") == [(3,)]
    assert rows(db, "SELECT MIN(n_experts) FROM mention_lists") == [(5,)]


def test_regions_imported_before_the_mentions_apply_when_entities_appear(tmp_path):
    """The natural order: the region table first, then the answers that name the brands."""
    db = str(tmp_path / "r.db")
    regions = tmp_path / "regions.csv"
    regions.write_text("name,region,country\nNike,United States,US\nAdidas,Europe,DE\n")
    out = run_cli("import", "entities", str(regions), "--db", db)
    assert out.returncode == 0 and "2 names match no entity yet; they are kept" in out.stdout
    mentions = tmp_path / "m.csv"
    mentions.write_text(
        "model,topic,cluster,question_id,repetition,rank,entity\n"
        "gpt,shoes,c,q1,1,1,NIKE\ngpt,shoes,c,q1,1,2,Adidas\ngpt,shoes,c,q2,1,1,Puma\n"
    )
    assert run_cli("import", "mentions", str(mentions), "--db", db, "--study", "s").returncode == 0
    got = {
        r["name"]: (r["region"], r.get("country"))
        for r in json.loads(run_cli("export", "--db", db, "--what", "entities", "--format", "json").stdout)
    }
    assert got == {"NIKE": ("United States", "US"), "Adidas": ("Europe", "DE"), "Puma": (None, None)}
    shares = {
        r["region"]: r["value"]
        for r in json.loads(run_cli("metrics", "--db", db, "--format", "json").stdout)
        if r["metric"] == "region_share" and r["cluster"] is None
    }
    assert shares == {
        "United States": pytest.approx(1 / 3),
        "Europe": pytest.approx(1 / 3),
        "Unknown": pytest.approx(1 / 3),
    }


def test_the_demo_brings_the_regions_of_its_brands(tmp_path):
    """The demo's log-odds need regions: its brands' home regions wait in the store and
    apply when the model names them."""
    from conftest import rows

    from workbench.cli.tui import seed_demo_regions

    db = tmp_path / "demo.db"
    seed_demo_regions(str(db))
    mentions = tmp_path / "m.csv"
    mentions.write_text(
        "model,topic,cluster,question_id,repetition,rank,entity\n"
        "m,smartphones,Convenience,q1,1,1,Samsung\nm,smartphones,Convenience,q1,1,2,Apple\n"
        "m,smartphones,Convenience,q2,1,1,Nokia\n"
    )
    assert run_cli("import", "mentions", str(mentions), "--db", str(db), "--study", "demo").returncode == 0
    assert rows(db, "SELECT name, region FROM entities ORDER BY name") == [
        ("Apple", "United States"),
        ("Nokia", "Europe"),
        ("Samsung", "Asia"),
    ]
    lor = [
        r for r in json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout) if r["metric"] == "lor"
    ]
    assert lor and any(r.get("value") is not None for r in lor)


def test_the_mentions_export_holds_question_ids_and_texts(tmp_path, fake_server):
    import csv

    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=3)
    db = tmp_path / "a.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    out = run_cli("export", "--db", str(db), "--what", "mentions", "--format", "csv").stdout
    exported = list(csv.DictReader(out.splitlines()))
    assert exported and all(r["question_id"].isdigit() for r in exported)  # the question's id, not its text
    assert {r["question"] for r in exported} == {
        f"Which brand of item number {i} would you recommend?" for i in range(3)
    }


def test_an_edited_list_is_exported_as_the_reviewers(tmp_path, fake_server):
    import csv

    from workbench.store.db import connect
    from workbench.store.review import verdicts as reviews

    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2)
    db = tmp_path / "a.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    conn = connect(db)
    reviews.review(conn, 1, "ana", "edit", ["Nike", "Hoka"])
    conn.close()
    out = run_cli("export", "--db", str(db), "--what", "mentions", "--format", "csv").stdout
    edited = [r for r in csv.DictReader(out.splitlines()) if r["review"] == "edit"]
    assert [r["entity"] for r in edited] == ["Nike", "Hoka"]
    assert {(r["source"], r["reviewer"]) for r in edited} == {("review", "ana")}


def test_import_mentions_refuses_a_question_in_two_clusters_and_a_rank_twice(tmp_path):
    """Lists are one answer each: the same question id under two clusters, or two entities
    at one rank, is a mix-up in the file, refused with its line before anything is stored."""
    header = "model,topic,cluster,question_id,repetition,rank,entity\n"
    two_clusters = tmp_path / "clusters.csv"
    two_clusters.write_text(header + "m,shoes,a,1,1,1,Nike\nm,shoes,b,1,1,1,Adidas\n")
    result = run_cli("import", "mentions", str(two_clusters), "--db", str(tmp_path / "a.db"), "--study", "s")
    assert result.returncode == 2
    assert "line 3" in result.stderr and "cluster 'b'" in result.stderr and "line 2" in result.stderr
    twice = tmp_path / "twice.csv"
    twice.write_text(header + "m,shoes,a,1,1,1,Nike\nm,shoes,a,1,1,1,Adidas\n")
    result = run_cli("import", "mentions", str(twice), "--db", str(tmp_path / "b.db"), "--study", "s")
    assert result.returncode == 2 and "line 3: rank 1 appears twice" in result.stderr
    assert not (tmp_path / "a.db").exists() and not (tmp_path / "b.db").exists()  # nothing stored


def test_a_name_too_long_to_be_one_is_refused_naming_its_line(tmp_path):
    """A whole answer pasted into the name column: refused in one line (the store would keep and
    index it, every screen carry it), and the message quotes only its start."""
    db = str(tmp_path / "m.db")
    (tmp_path / "entities.csv").write_text("name,region\nNike,United States\n" + "Adidas " * 10_000 + ",Europe\n")
    out = run_cli("import", "entities", str(tmp_path / "entities.csv"), "--db", db)
    assert out.returncode == 2
    assert "line 3: column 'name': 69,999 characters is no name (at most 1,000" in out.stderr
    assert len(out.stderr) < 400


def test_a_name_holding_a_control_character_is_refused(tmp_path):
    db = str(tmp_path / "m.db")
    (tmp_path / "entities.csv").write_text("name,region\nNike,United States\nAdi\x00das,Europe\n")
    out = run_cli("import", "entities", str(tmp_path / "entities.csv"), "--db", db)
    assert out.returncode == 2 and "line 3: column 'name'" in out.stderr and "control character ('\\x00')" in out.stderr
