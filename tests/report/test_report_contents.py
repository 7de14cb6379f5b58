"""What a report says besides its tables, read back from the HTML (html.parser) and the
Markdown as a client would read them: what was asked (questions, generation settings as
sent, extraction), ties shown as ties, an opening summary, limitations from the data, the
cold-start group shares, identity's n per cell, and a recipe whose model spec is the one run."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from helpers import run_cli
from openai_server import ServerConfig
from test_report import Page, markdown_headings

QUESTIONS = {"Budget": ["Which cheap running shoe brand?", "Best value shoe brand?"], "Speed": ["Fastest racer?"]}


def _report(db: Path, study: str, tmp_path: Path) -> tuple[Page, str, str]:
    html, md = tmp_path / f"{study}.html", tmp_path / f"{study}.md"
    for out in (html, md):
        done = run_cli("report", "--db", str(db), "--study", study, "-o", str(out))
        assert done.returncode == 0, done.stderr
    page = Page(html.read_text())
    return page, " ".join(" ".join(page.text).split()), md.read_text()


def _section_text(markdown: str, title: str) -> str:
    return markdown.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


@pytest.fixture
def choice_run(tmp_path, fake_server) -> tuple[Path, Path]:
    server = fake_server(ServerConfig())
    study = tmp_path / "shoes.toml"
    questions = "".join(f'"{cluster}" = {qs!r}\n'.replace("'", '"') for cluster, qs in QUESTIONS.items())
    study.write_text(
        f'name = "shoes"\nmethod = "choice"\nrepetitions = 2\nseed = 3\nmodels = ["openai:m@{server.base_url}"]\n'
        '[generation]\ntemperature = 0.7\ntop_p = 0.9\nmax_tokens = 40\nsystem = "You are a shopping assistant."\n'
        '[extraction]\nmethod = "list"\nk = 3\n'
        '[[clusters]]\nname = "Budget"\ndescription = "Wants value."\n'
        '[[clusters]]\nname = "Speed"\ndescription = "Wants speed."\n'
        f'[[topics]]\nname = "running shoes"\n[topics.questions]\n{questions}'
    )
    db = tmp_path / "c.db"
    done = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    return study, db


def test_the_report_says_what_was_asked(choice_run, tmp_path):
    study, db = choice_run
    page, text, md = _report(db, "shoes", tmp_path)
    h2 = [title for level, title in page.headings if level == "h2"]
    assert h2[0] == "Summary" and h2[2] == "What was asked" and "Appendix: the questions" in h2[-3:]
    counts = page.table("Questions per topic and cluster (3 in all")
    assert counts[1:] == [["running shoes", "Budget", "2"], ["running shoes", "Speed", "1"], ["all", "", "3"]]
    settings = page.table("Generation settings per model and stage")
    row = dict(zip(settings[0], settings[1]))
    assert row["stage"] == "answer" and row["requests"] == "6"
    assert (row["temperature"], row["top_p"], row["max tokens"]) == ("0.7", "0.9", "40")
    assert row["system prompt"] == "You are a shopping assistant."
    assert row["seeds"] == "2 (3 to 4)" and row["parallel (as run)"] == "1"  # served: one answer at a time
    facts = page.facts()
    assert facts["repetitions"] == "2" and facts["seed"] == "3"
    assert facts["extraction method"] == "list" and facts["extraction k"] == "3"
    assert facts["extraction grounding"] == "drop" and facts["extraction min_votes"].startswith("not set")
    assert page.table("The questions asked")[1:] == [
        ["1", "running shoes", "Budget", "Which cheap running shoe brand?"],
        ["2", "running shoes", "Budget", "Best value shoe brand?"],
        ["3", "running shoes", "Speed", "Fastest racer?"],
    ]
    # the Markdown says the same, under the same headings
    assert [t for level, t in markdown_headings(md) if level == "h2"] == h2
    asked = _section_text(md, "What was asked")
    assert "| running shoes | Budget | 2 |" in asked and "You are a shopping assistant." in asked
    assert "**extraction k:** 3" in asked


def test_summary_and_limitations_come_from_the_records(choice_run, tmp_path):
    study, db = choice_run
    regions = tmp_path / "regions.csv"
    regions.write_text("name,region\nNike,United States\nAdidas,Europe\nAsics,Asia\nBrooks,United States\n")
    assert run_cli("import", "entities", str(regions), "--db", str(db)).returncode == 0
    page, text, md = _report(db, "shoes", tmp_path)
    summary = _section_text(md, "Summary")
    assert "This report covers the choice study `shoes`: 1 model, 6 answers asked here" in summary
    assert "numbers n/a, for" in summary and "What is n/a, why, and what to do" in summary
    effects = re.findall(r"^\d\. .+$", summary, re.MULTILINE)
    assert effects or "No effect could be estimated" in summary
    for line in effects:  # each effect with its interval, or why it has none
        assert re.search(r"\[[-0-9.]+, [-0-9.]+\]", line) or "no interval" in line
    limits = _section_text(md, "Limitations")
    assert "Sample sizes: the smallest cell rests on" in limits
    assert "Unreviewed: 6 of 6 extracted lists (100%) have no person's verdict" in limits
    assert "a served model of unknown size" in limits
    assert "Limitations" in [t for level, t in page.headings if level == "h2"]


def test_a_tie_reads_as_a_tie(tmp_path):
    """1 answer of 18 names Nike, another Adidas, none names anything else: no preferred entity."""
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for q in range(18):
            entity = {0: "Nike", 1: "Adidas"}.get(q, "")
            writer.writerow(["gpt", "shoes", "A", f"q{q}", 1, 1 if entity else "", entity])
    db = tmp_path / "t.db"
    assert run_cli("import", "mentions", str(path), "--db", str(db), "--study", "t").returncode == 0
    page, text, md = _report(db, "t", tmp_path)
    assert "gpt · shoes: a tie, no preferred entity: Adidas, Nike (each in 1 of 18 answers)." in text
    peir = page.table("Preferred entity (PEIR)")
    assert peir[1][1].startswith("tie: Adidas, Nike 0.06")
    assert "tie: Adidas, Nike" in md and "a tie, no preferred entity" in _section_text(md, "Summary")


def test_limitations_count_the_ties_the_report_names_and_name_a_cluster_cell(tmp_path):
    """Limitations said "Ties: 16 of 30 preferred entities are ties" counting clusters no table
    shows, and "the smallest cell rests on 4 answers (llama:default · coffee makers)" of a topic
    with 36: the 4-answer cell is a cluster. Coffee makers: cluster A ties Bosch and Krups in 4
    answers, B prefers Bosch in 32; kettles tie Smeg and Breville in both clusters and overall."""
    answers = {("coffee makers", "A"): ["Bosch", "Krups"] * 2, ("coffee makers", "B"): ["Bosch"] * 20 + ["Krups"] * 12}
    answers |= {("kettles", c): ["Smeg", "Breville"] * 3 for c in ("A", "B")}
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for (topic, cluster), names in answers.items():
            writer.writerows(["gpt", topic, cluster, f"{topic}{cluster}{q}", 1, 1, n] for q, n in enumerate(names))
    db = tmp_path / "t.db"
    assert run_cli("import", "mentions", str(path), "--db", str(db), "--study", "t").returncode == 0
    page, text, md = _report(db, "t", tmp_path)
    limits = _section_text(md, "Limitations")
    assert "the smallest cell rests on 4 answers (gpt · coffee makers · A); the largest on 36 answers" in limits
    assert "Ties: 1 of 2 preferred entities (one per model and topic) are ties, named in the summary." in limits
    assert "gpt · kettles: a tie, no preferred entity: Breville, Smeg (each in 6 of 12 answers)." in text


def test_a_gazetteer_report_shows_no_expert_settings_and_tables_set_code(tmp_path, fake_server):
    """A gazetteer study's report listed extraction temperature, max_tokens and output, which
    only the experts send; and its Markdown tables wrote the remedies' commands as \\`...\\`."""
    server = fake_server(ServerConfig())
    study = tmp_path / "g.toml"
    study.write_text(
        f'name = "g"\nmethod = "choice"\nseed = 1\nmodels = ["openai:m@{server.base_url}"]\n'
        '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\n'
        '[[clusters]]\nname = "A"\ndescription = "a"\n[[topics]]\nname = "shoes"\n[topics.questions]\n'
        '"A" = ["Name a shoe brand.", "Name a running shoe brand."]\n'
    )
    (tmp_path / "brands.csv").write_text("name,spellings,topic\nNike,,\n")
    db = tmp_path / "g.db"
    done = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    page, text, md = _report(db, "g", tmp_path)
    facts = page.facts()
    assert facts["extraction method"] == "gazetteer" and facts["extraction entities"].endswith("brands.csv")
    assert not {"extraction temperature", "extraction max_tokens", "extraction output"} & set(facts), facts
    remedy = "| `repetitions = 2` or more in the study file; `workbench run` then asks only the new ones |"
    assert remedy in _section_text(md, "Summary") and "\\`" not in md


def test_coldstart_report_has_the_catalog_group_shares(tmp_path):
    (tmp_path / "cat.csv").write_text("title,origin\nA,Western\nB,Japanese\nC,Western\n")
    path = tmp_path / "r.csv"
    path.write_text(
        "model,seed,persona_category,persona,rank,item\nm,0,,neutral,1,A\nm,0,,neutral,2,B\n"
        "m,0,g,a girl,1,C\nm,0,g,a girl,2,A\n"
    )
    db = tmp_path / "c.db"
    args = ("import", "rankings", str(path), "--db", str(db), "--study", "cs", "--catalog", str(tmp_path / "cat.csv"))
    assert run_cli(*args).returncode == 0
    page, _text, md = _report(db, "cs", tmp_path)
    shares = page.table("Cold-start: share of recommended items per catalog value")
    assert shares[0] == ["catalog value", "persona", "m"]
    # one seed: no spread to give, said as such (not "± 0.00")
    assert ["origin = Western", "neutral", "0.50 · std n/a (1 seed)"] in shares
    assert ["origin = Western", "g: a girl", "1.00 · std n/a (1 seed)"] in shares
    assert "| origin = Japanese | neutral | 0.50 · std n/a (1 seed) |" in md


def test_identity_report_gives_n_per_cell(tmp_path, fake_server):
    reply = '[{"university": "MIT", "explanation": "STEM"}]'
    server = fake_server(ServerConfig(reply_text=reply))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 8\nseed = 2\nstructured = true\n'
    )
    db = tmp_path / "id.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    page, text, _md = _report(db, "unis", tmp_path)
    table = page.table("Identity disclosure")
    assert table[0][:3] == ["group · condition", "m: mean share", "n"]
    assert len(table) == 17 and all(row[2] == "2" for row in table[1:])  # 4 groups x 4 conditions, 2 answers each
    assert table[1][1] == "n/a (no reference shares imported)"
    remedy = page.table("Why some numbers are n/a")
    assert remedy[1][:2] == ["no reference shares imported", "16"]
    assert remedy[1][2].startswith("workbench import references FILE.csv --db DB --study STUDY")  # set as code


@pytest.mark.slow
def test_the_recipe_gives_the_spec_as_run_with_parallel(tmp_path):
    """Answers decoded 2 at a time on the bundled model: the recipe's --model says parallel=2."""
    study = tmp_path / "p.toml"
    study.write_text(
        'name = "p"\nmethod = "choice"\nseed = 1\nmodels = ["llama:default,n_ctx=256"]\n'
        '[generation]\nmax_tokens = 8\n[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\n'
        '[[clusters]]\nname = "A"\ndescription = "a"\n[[topics]]\nname = "shoes"\n[topics.questions]\n'
        '"A" = ["Name a shoe brand.", "Name a running shoe brand."]\n'
    )
    (tmp_path / "brands.csv").write_text("name,spellings,topic\nNike,,\n")
    db = tmp_path / "p.db"
    done = run_cli("run", str(study), "--db", str(db), "--quiet", "--model", "llama:default,n_ctx=256,parallel=2")
    assert done.returncode == 0, done.stdout + done.stderr
    page, text, md = _report(db, "p", tmp_path)
    models = page.table("Models and seeds")
    assert models[1][1] == "llama:default,n_ctx=256,parallel=2"
    new = db.with_name("p-reproduced.db")
    assert f"workbench run {study} --db {new} --model llama:default,n_ctx=256,parallel=2" in md


def test_a_summary_effect_carries_what_it_rests_on_and_its_adjusted_test():
    """The summary led with "+0.97 [0.29, 2.20]: the 95% interval excludes 0" for a log-odds
    resting on 2 of 9 clusters whose Holm-adjusted p was 0.306: every effect now carries its n,
    p and Holm p, and an interval the adjusted test does not back is not called a finding."""
    from workbench.report.summary import EFFECTS, effect_sentence

    lor = next(e for e in EFFECTS if e.metric == "lor")
    row = {
        "model": "m", "topic": "coffee makers", "region_a": "United States", "region_b": "Asia",
        "mean": 0.97, "ci_low": 0.29, "ci_high": 2.20, "p": 0.012, "p_holm": 0.306,
        "n_clusters": 2, "n_total": 9, "slots_a": 19, "slots_b": 2,
    }  # fmt: skip
    said = effect_sentence(lor, row)
    assert said.startswith("m · coffee makers: log-odds United States vs Asia: +0.97 [0.29, 2.20] ")
    assert "(2 of 9 clusters, 19 vs 2 slots; p 0.012; Holm 0.306)" in said
    assert said.endswith("does not reject no effect.")
    backed = effect_sentence(lor, {**row, "p": 0.001, "p_holm": 0.004})
    assert backed.endswith("(2 of 9 clusters, 19 vs 2 slots; p 0.001; Holm 0.004): the 95% interval excludes 0.")


def test_a_report_of_imported_scores_says_they_were_imported_and_answered(tmp_path):
    """Label scores imported: the summary said "40 answers asked here" and the requests part
    "No answers yet: every request is pending or failed" above a table of all answered."""
    from na_causes import scored, scores

    db = scores(tmp_path, scored())
    page, text, md = _report(db, "s", tmp_path)
    assert "answers imported" in md and "asked here" not in md
    assert "No answers yet" not in md
