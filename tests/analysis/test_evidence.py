"""From a number to its evidence: `workbench evidence` lists the answers behind a number of
`workbench metrics` with the count that makes it, and the report links each headline to an
appendix of its answers, measures the extraction against the reviewed lists and lists every
counted brand with its region and who set it. Stores made by real runs against the local
OpenAI-style server (answers with text, extracted by three experts) and by imports."""

import json
import re

import pytest
from helpers import run_cli, write_study
from openai_server import ServerConfig

REGIONS = "name,region\nNike,United States\nBrooks,United States\nAdidas,Europe\nPuma,Europe\nAsics,Asia\n"


@pytest.fixture
def answered(tmp_path, fake_server):
    """24 answers (12 questions x 2 repetitions) of one model, their lists voted by 3 experts, regions."""
    server = fake_server(ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=12, repetitions=2)
    study.write_text(study.read_text() + '\n[extraction]\nmethod = "experts"\nexperts = 3\nk = 3\n')
    db = tmp_path / "audit.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    (tmp_path / "e.csv").write_text(REGIONS)
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    return db


def _metrics(db, metric):
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    return [r for r in records if r["metric"] == metric and not r.get("cluster")]


def _evidence(db, *args):
    done = run_cli("evidence", "--db", str(db), *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_peir_evidence_is_the_count_behind_the_number(answered):
    (peir,) = _metrics(answered, "peir")
    (found,) = _evidence(answered, "--metric", "peir", "--topic", "gadgets")
    held = round(peir["value"] * peir["n"])
    named = sorted([peir["entity"], *peir.get("tied_with", [])])
    assert found["target"] == ", ".join(named)
    assert f"named in {held} of {peir['n']} answers" in found["sentence"]
    assert len(found["answers"]) == peir["n"] == 24
    counting = found["answers"][: found["counting"]]
    assert all(set(a["counted"]) <= set(a["names"]) and a["counted"] for a in counting)
    assert all(not a["counted"] for a in found["answers"][found["counting"] :])
    for answer in counting:  # the counted names are marked where the answer says them
        assert answer["text"].startswith("Here are my picks")
        marked = {answer["text"][s:e] for s, e in answer["marks"]}
        assert marked == set(answer["counted"])
    # one entity's count: the answers holding it, each answer once however often it names it
    first = named[0]
    assert sum(first in a["counted"] for a in found["answers"]) == held


def test_log_odds_and_region_share_evidence_match_the_table(answered):
    lor = {(r["region_a"], r["region_b"]): r for r in _metrics(answered, "lor")}
    for found in _evidence(answered, "--metric", "lor", "--topic", "gadgets"):
        a, b = found["target"].split(" vs ")
        r = lor[a, b]
        side_b = "every other known region" if b == "non-US" else b
        assert f"{a} {r['slots_a']} vs {side_b} {r['slots_b']} recommendation slots in 24 answers" in found["sentence"]
    shares = {r["region"]: r for r in _metrics(answered, "region_share")}
    (europe,) = _evidence(answered, "--metric", "region_share", "--topic", "gadgets", "--region", "Europe")
    slots, total = map(int, re.search(r"Europe: (\d+) of (\d+) slots", europe["sentence"]).groups())
    assert slots / total == pytest.approx(shares["Europe"]["value"])
    assert all({"Adidas", "Puma"} >= set(a["counted"]) for a in europe["answers"])


def test_table_output_marks_the_counted_names_and_help_teaches(answered):
    done = run_cli("evidence", "--db", str(answered), "--metric", "peir", "--topic", "gadgets", "--limit", "2")
    assert done.returncode == 0
    assert re.search(r"named in \d+ of 24 answers", done.stdout)
    assert re.search(r"\[\[(Nike|Brooks|Asics|Adidas|Puma|Hoka|Saucony|New Balance)\]\]", done.stdout)
    assert "... and 22 more" in done.stdout
    helped = run_cli("evidence", "--help")
    assert "examples:" in helped.stdout and "--metric peir --topic" in helped.stdout


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ("--metric", "pier", "--topic", "gadgets"),
            "no metric 'pier' in study 't' (choice); known: peir, region_share, lor",
        ),
        (("--metric", "peir", "--topic", "gizmos"), "no topic 'gizmos' here (known: 'gadgets')"),
        (("--metric", "peir", "--topic", "gadgets", "--model", "gpt"), "no model 'gpt' here (known: 'openai:m@"),
        (("--metric", "lor", "--topic", "gadgets", "--pair", "Asia", "Mars"), "no region pair 'Asia vs Mars'"),
    ],
)
def test_an_unknown_metric_topic_model_or_pair_is_refused_naming_the_known(answered, args, says):
    done = run_cli("evidence", "--db", str(answered), *args)
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_review_changes_the_evidence_and_the_report_measures_the_extraction(answered, tmp_path):
    lists = json.loads(run_cli("review", "lists", "--db", str(answered), "--format", "json").stdout)
    first = [item for item in lists if item["extracted"]][:3]
    machine = [item["extracted"] for item in first]
    db = str(answered)
    assert (
        run_cli(
            "review", "verdict", "--db", db, "--list", str(first[0]["list_id"]), "--accept", "--who", "ana"
        ).returncode
        == 0
    )
    edit = ["--edit", "Sharp", "--edit", machine[1][0]]
    assert (
        run_cli("review", "verdict", "--db", db, "--list", str(first[1]["list_id"]), *edit, "--who", "ana").returncode
        == 0
    )
    assert (
        run_cli(
            "review", "verdict", "--db", db, "--list", str(first[2]["list_id"]), "--reject", "--who", "ana"
        ).returncode
        == 0
    )
    region = ["entities", "region", "Sharp", "--region", "Asia", "--db", db, "--who", "bo", "--why", "Osaka"]
    assert run_cli(*region).returncode == 0
    (found,) = _evidence(answered, "--metric", "region_share", "--topic", "gadgets", "--region", "Asia")
    assert any("Sharp" in a["counted"] for a in found["answers"])  # the reviewer's name counts now
    assert run_cli("report", "--db", db, "--format", "md", "-o", str(tmp_path / "r.md")).returncode == 0
    md = (tmp_path / "r.md").read_text()
    validity = md.split("## Extraction validity")[1].split("\n## ")[0]
    kept = len(machine[0]) + 1  # the accepted list whole, the edit kept one of the machine's names
    names, final = sum(map(len, machine)), len(machine[0]) + 2
    row = next(line for line in validity.splitlines() if line.startswith("| gadgets | 3 |"))
    assert f"{kept / names:.2f} \\[" in row and f"n {names} |" in row  # precision over the machine's names
    assert f"{kept / final:.2f} \\[" in row and f"n {final} |" in row  # recall over the final names
    assert "21 of 24 (0.88)" in row
    assert "Sharp (1)" in validity  # the name the extraction missed
    brands = md.split("## Appendix: counted brands and their regions")[1].split("\n## ")[0]
    assert "| Sharp | Asia | 1 | bo, " in brands and "(Osaka) |" in brands
    assert "| Nike | United States |" in brands and "an import of entities" in brands


def test_report_headlines_link_to_their_evidence(answered, tmp_path):
    db = str(answered)
    assert run_cli("report", "--db", db, "--format", "md", "-o", str(tmp_path / "r.md")).returncode == 0
    md = (tmp_path / "r.md").read_text()
    summary = md.split("## Summary")[1].split("\n## ")[0]
    links = re.findall(r"\(\[evidence\]\(#(evidence-\d+)\)\)", summary)
    assert links and len(links) == len(set(links))
    for anchor in links:
        entry = md.split(f'<a id="{anchor}"></a>')[1].split("<a id=")[0]
        assert "**Count:**" in entry and ("recommendation slots in 24 answers" in entry or "named in" in entry)
        assert re.search(r"> .*\*\*[A-Z][\w ]+\*\*", entry)  # an answer quoted, a counted name in bold
    # Hoka, New Balance and Saucony have no region: said where the limits are, as `workbench metrics` says it
    limitations = md.split("## Limitations")[1].split("\n## ")[0]
    assert "have no region (" in limitations and "count as Unknown" in limitations
    assert run_cli("report", "--db", db, "-o", str(tmp_path / "r.html")).returncode == 0
    html = (tmp_path / "r.html").read_text()
    assert '(<a href="#evidence-1">evidence</a>)' in html and 'id="evidence-1"' in html
    assert "<mark>" in html and "<blockquote" in html


def _entity_study(tmp_path, fake_server):
    """The bundled urgency task, 3 templates x 4 countries, scored by the local server."""
    from pathlib import Path

    from workbench.assets import __file__ as assets_init

    example = Path(assets_init).parent / "studies" / "entity"
    entity = tmp_path / "entity.toml"
    entity.write_text(
        f'name = "urgency"\nmethod = "entity"\nmodels = ["openai:m@{fake_server(ServerConfig()).base_url}"]\n'
        f'task = "{example / "urgency.task.json"}"\ntemplates = "{example / "urgency_templates.csv"}"\n'
        f'entities = "{example / "countries.csv"}"\nmax_templates = 3\nmax_entities = 4\n'
    )
    return entity


def test_every_method_offers_its_evidence(tmp_path, fake_server):
    db = str(tmp_path / "audit.db")
    rankings = tmp_path / "rankings.csv"
    lines = ["model,seed,persona_category,persona,rank,item"]
    for seed in (0, 1):
        lines += [f"m,{seed},,neutral,{rank},{item}" for rank, item in enumerate("ABC", 1)]
        lines += [f"m,{seed},gender,a girl,{rank},{item}" for rank, item in enumerate("CBX" if seed else "ABC", 1)]
    rankings.write_text("\n".join(lines) + "\n")
    assert run_cli("import", "rankings", str(rankings), "--db", db, "--study", "cs").returncode == 0
    (found,) = _evidence(db, "--study", "cs", "--metric", "divergence", "--topic", "gender: a girl")
    assert found["sentence"].startswith("IOU divergence 0.25") and "mean of 2 seeds" in found["sentence"]
    assert found["details"] == ["seed 0: 3 of 3 shared", "seed 1: 2 of 4 shared"]
    assert found["answers"][1]["counted"] == ["C", "B"]  # X is not in the neutral list
    assert run_cli("run", str(_entity_study(tmp_path, fake_server)), "--db", db, "--quiet").returncode == 0
    records = json.loads(run_cli("metrics", "--db", db, "--study", "urgency", "--format", "json").stdout)
    delta = next(r for r in records if r["metric"] == "entity_delta")
    (found,) = _evidence(db, "--study", "urgency", "--metric", "delta", "--entity", delta["entity"])
    assert f"Delta of {delta['entity']} {delta['value']:+.3f}" in found["sentence"]
    assert len(found["answers"]) == delta["n"]
    assert all(delta["entity"] in a["text"] and a["marks"] for a in found["answers"])  # the prompt, the entity marked


def test_every_number_of_the_metrics_tables_opens_its_evidence(metrics_db, tmp_path, fake_server):
    """What Enter on a cell asks the core: each method's table cells as the Metrics screen draws
    them (ChoiceEval's PEIR, log-odds and region shares, cold-start's divergences, identity's mean
    shares, entity's Deltas) lead to the answers of the cell's model and row."""
    from workbench import methods
    from workbench.analysis.evidence import EvidenceError, for_cell
    from workbench.methods.registry import filters_of
    from workbench.store.db import reading

    db = str(metrics_db)
    rankings = tmp_path / "rankings.csv"
    lines = ["model,seed,persona_category,persona,rank,item"]
    lines += [f"m,{seed},,neutral,{rank},{item}" for seed in (0, 1) for rank, item in enumerate("ABC", 1)]
    lines += [f"m,{seed},gender,a girl,{rank},{item}" for seed in (0, 1) for rank, item in enumerate("CBX", 1)]
    rankings.write_text("\n".join(lines) + "\n")
    assert run_cli("import", "rankings", str(rankings), "--db", db, "--study", "cs").returncode == 0
    reply = '[{"university": "Howard University", "explanation": "community"}, {"university": "MIT", "explanation": "STEM"}]'
    identity = tmp_path / "id.toml"
    identity.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{fake_server(ServerConfig(reply_text=reply)).base_url}"]\n'
        'template = "universities"\nper_group = 2\nseed = 2\n'
    )
    assert run_cli("run", str(identity), "--db", db, "--quiet").returncode == 0
    (tmp_path / "refs.csv").write_text("item,group,share\nHoward University,Black,0.9\nMIT,Black,0.1\n")
    assert run_cli("import", "references", str(tmp_path / "refs.csv"), "--db", db, "--study", "unis").returncode == 0
    assert run_cli("run", str(_entity_study(tmp_path, fake_server)), "--db", db, "--quiet").returncode == 0
    opened = {}
    with reading(db) as conn:
        for name, records in methods.metric_records_by_method(conn).items():
            method = methods.get(name)
            choices = {f.name: f.options(records)[0] for f in filters_of(method)}
            for panel in methods.panels_of(method, records, choices):
                if panel.table is None:
                    continue
                header, rows = panel.table
                for row in rows:
                    for column in range(1, len(header)):
                        try:
                            found = for_cell(conn, name, panel.id, header, row, column, choices)
                        except EvidenceError:  # a label, or a number with no answers of its own
                            continue
                        assert found and all(e.answers for e in found)
                        opened.setdefault(panel.id, found[0])
    tables = {"peir-table", "lor-table", "region-table", "coldstart-table", "identity-table", "entity-table"}
    assert tables <= set(opened)
    assert "named in 12 of 12 answers" in opened["peir-table"].sentence
    assert opened["identity-table"].sentence.startswith("mean share")
    assert opened["coldstart-table"].topic == "gender: a girl"
    assert opened["entity-table"].sentence.startswith(f"Delta of {opened['entity-table'].target} ")
