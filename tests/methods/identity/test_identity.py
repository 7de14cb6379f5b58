"""Identity-disclosure templates, sampling, parsing and metrics."""

import random

import pytest
from scipy import stats

from workbench.methods.identity.metrics import compare_to_baseline, coverage, mean_share
from workbench.methods.identity.templates import (
    CONDITIONS,
    TemplateError,
    load_template,
    parse_recommendations,
    render,
    sample_prompts,
)


@pytest.mark.parametrize("name", ["universities", "neighborhoods"])
def test_bundled_scenarios_sample_every_condition_reproducibly(name):
    template = load_template(name)
    prompts = sample_prompts(template, per_group=40, seed=3)
    assert len(prompts) == 40 * len(template.groups)
    assert {(p.group, p.condition) for p in prompts} == {(g, c) for g in template.groups for c in CONDITIONS}
    assert [p.text for p in sample_prompts(template, 40, 3)] == [p.text for p in prompts]
    assert [p.text for p in sample_prompts(template, 40, 4)] != [p.text for p in prompts]
    for p in prompts:
        assert "<" not in p.text and "{" not in p.text.split("Return only")[0]
        assert ("Keep in mind that I am " + p.group) in p.text if p.condition == "explicit" else True
        assert p.text.endswith("explanations.")


def test_conditions_carry_their_signal():
    template = load_template("universities")
    rng = random.Random(1)
    dialect = render(template, "Black", "dialect", rng)
    assert "I be on the school" in dialect.text
    associated = render(template, "Black", "associated", rng)
    assert associated.choices["organization"] in template.associated["Black"]["organization"]
    baseline = render(template, "Black", "baseline", rng)
    assert "I be " not in baseline.text and "Keep in mind" not in baseline.text


def test_templates_are_data_not_code(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        'name = "t"\ngroups = ["A"]\nquestion = "Q {0.__class__} <x>?"\n'
        '[[sentences]]\ntext = "I like <x> {__import__}."\n[slots]\nx = ["{1}", "<y>"]\n'
        '[spots.__import__]\nbaseline = "a lot"\n'
    )
    template = load_template(path)
    text = render(template, "A", "baseline", random.Random(0)).text
    assert "{0.__class__}" in text  # not evaluated
    missing = tmp_path / "m.toml"
    missing.write_text('name = "m"\ngroups = ["A"]\nquestion = "Q"\n[[sentences]]\ntext = "I have <gpa>."\n')
    with pytest.raises(TemplateError, match=r"slot <gpa> has no values"):
        load_template(missing)


def test_parse_recommendations_tolerates_fences_and_prose():
    fenced = 'Sure!\n```json\n[{"university": "MIT", "explanation": "strong"}, {"university": "Yale"}]\n```\nGood luck'
    assert parse_recommendations(fenced, "university") == [
        {"item": "MIT", "explanation": "strong"},
        {"item": "Yale", "explanation": ""},
    ]
    wrapped = '{"recommendations": [{"neighborhood": "Hyde Park", "explanation": "quiet"}]}'
    assert parse_recommendations(wrapped, "neighborhood")[0]["item"] == "Hyde Park"
    assert parse_recommendations("I cannot help with that.", "university") is None


def test_answers_without_json_are_read_from_their_list():
    from workbench.methods.identity.templates import read_recommendations

    items, mode = read_recommendations("Sure!\n1. Howard University\n2) Spelman College\n- MIT", "university")
    assert mode == "list" and [i["item"] for i in items] == ["Howard University", "Spelman College", "MIT"]
    items, mode = read_recommendations('[{"university": "MIT", "explanation": "x"}]', "university")
    assert mode == "json" and items == [{"item": "MIT", "explanation": "x"}]
    assert read_recommendations("I cannot help with that.", "university") == (None, None)


def test_mean_share_coverage_and_mann_whitney():
    shares = {"A": 0.5, "B": 0.1}
    assert mean_share(["A", "B", "Unknown"], shares) == pytest.approx(0.3)
    assert mean_share(["Unknown"], shares) is None
    counts = {"A": 500, "B": 100}
    assert coverage(["A", "A", "B"], counts, group_total=10_000) == pytest.approx(0.06)
    condition, baseline = [0.3, 0.4, 0.5, 0.6], [0.1, 0.2, 0.2, 0.3]
    result = compare_to_baseline(condition, baseline)
    expected = stats.mannwhitneyu(condition, baseline, alternative="two-sided")
    assert result["difference"] == pytest.approx(0.25) and result["p"] == pytest.approx(expected.pvalue)
    assert compare_to_baseline([], baseline)["p"] is None


def test_identity_study_through_the_http_engine(tmp_path, fake_server):
    import json as _json

    from conftest import rows
    from helpers import run_cli
    from openai_server import ServerConfig

    from workbench.methods.identity.study import label_probe

    reply = (
        '```json\n[{"university": "Howard University", "explanation": "great community"}, '
        '{"university": "MIT", "explanation": "strong STEM"}]\n```'
    )
    server = fake_server(ServerConfig(reply_text=reply))
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{server.base_url}"]\n'
        'template = "universities"\nper_group = 8\nseed = 2\nstructured = true\n'
    )
    db = tmp_path / "id.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All 64 requests answered" in out.stdout  # 4 groups x 8 prompts, each with its probe
    assert rows(db, "SELECT COUNT(*), SUM(parsed) FROM identity_outputs") == [(32, 32)]
    assert rows(db, "SELECT COUNT(DISTINCT condition) FROM identity_outputs") == [(4,)]
    probe = _json.loads(rows(db, "SELECT payload_json FROM requests WHERE stage = 'probe' LIMIT 1")[0][0])
    assert [m["role"] for m in probe["messages"]] == ["user", "assistant", "user"]  # the same conversation
    answer = _json.loads(rows(db, "SELECT payload_json FROM requests WHERE stage = 'answer' LIMIT 1")[0][0])
    schema = answer["params"]["json_schema"]  # answers constrained to the JSON the prompt asks for
    assert schema["properties"]["recommendations"]["items"]["required"] == ["university", "explanation"]
    assert "json_schema" not in probe["params"]  # the probe is answered in free text
    (tmp_path / "refs.csv").write_text(
        "item,group,share,count,group_total\nHoward University,Black,0.9,9000,100000\n"
        "MIT,Black,0.1,1000,100000\nHoward University,White,0.02,200,500000\n"
        "MIT,White,0.35,3500,500000\n"
    )
    assert (
        "Imported 4 reference shares"
        in run_cli("import", "references", str(tmp_path / "refs.csv"), "--db", str(db), "--study", "unis").stdout
    )
    records = _json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    black = {(r["metric"], r["condition"]): r for r in records if r.get("group") == "Black"}
    assert black["mean_share", "baseline"]["value"] == pytest.approx(0.5)
    assert black["coverage", "explicit"]["value"] == pytest.approx(0.1)
    assert black["mean_share_vs_baseline", "explicit"]["difference"] == pytest.approx(0.0)
    assert black["mean_share", "explicit"]["ci_na_reason"] == "2 prompts, fewer than 8"  # 8 per group / 4
    assert black["parse_rate", "dialect"]["value"] == 1.0
    # The bundled template has dialect variants for Black and Hispanic users only: White users'
    # "dialect" prompts are the baseline's words, and their rows say so.
    white = {(r["metric"], r["condition"]): r for r in records if r.get("group") == "White"}
    assert white["mean_share", "dialect"].get("no_signal") is True
    assert "no_signal" not in black["mean_share", "dialect"] and "no_signal" not in white["mean_share", "baseline"]
    assert "no dialect variants for White, Asian" in run_cli("run", str(study), "--db", str(db), "--quiet").stdout
    assert "Identity disclosure" in run_cli("metrics", "--db", str(db)).stdout
    _recompute_from_the_export(db, records)

    import asyncio

    from helpers import wait_for

    from workbench.app import WorkbenchApp

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            # 4 groups x 4 conditions; mean shares where references exist (Black, White).
            assert await wait_for(pilot, lambda: app.screen.query_one("#identity-table").row_count == 16)
            first = [str(c) for c in app.screen.query_one("#identity-table").get_row_at(0)]
            # no reference share for Asian users: n/a with why, the cell's answers (n) beside it
            no_share = "n/a (no recommended item is in the reference shares)"
            assert first[0] == "Asian · associated" and first[1:4] == [no_share, "2", "1.00"]
            black = [str(c) for c in app.screen.query_one("#identity-table").get_row_at(4)]
            assert (
                black[0] == "Black · associated"
                and black[1].startswith("0.500 · n 2 (+0.000, p n/a")  # 2 prompts: no interval
                and black[2:4] == ["2", "1.00"]
            )

    asyncio.run(scenario())
    assert label_probe("No, your race did not influence my recommendations.") == "denies"
    assert label_probe("Yes, I took it into account.") == "admits"
    assert label_probe("Here are more universities.") == "unclear"


def test_explanation_words_hand_computed():
    from workbench.methods.identity.metrics import explanation_words

    explanations = [("Black", "strong community and a vibrant culture", set())] * 3 + [
        ("White", "strong research and the campus", {"campus"})
    ] * 3
    words = explanation_words(explanations, min_count=3)
    black = {w: (score, n) for w, score, n in words["Black"]}
    assert black["community"] == ((3 + 1) / (3 + 2), 3)  # all its uses are Black's
    assert black["strong"] == ((3 + 1) / (6 + 2), 6)  # shared evenly
    assert "campus" not in {w for w, _, _ in words["White"]}  # a query word, excluded
    assert "and" not in black  # stopword
    assert words["Black"][0][0] in ("community", "culture", "vibrant")


def test_probe_labels_from_an_llm_judge_and_a_reviewer(tmp_path, fake_server):
    """A judge model labels every probe answer; a reviewer's label wins in the metrics,
    survives a rerun, and undoing it brings the judge's label back."""
    import json as _json

    from conftest import rows
    from helpers import run_cli
    from openai_server import ServerConfig

    reply = '[{"university": "MIT", "explanation": "strong STEM"}]'
    audited = fake_server(ServerConfig(reply_text=reply))
    judge = fake_server(ServerConfig())  # structured output: one of the schema's labels
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "unis"\nmethod = "identity"\nmodels = ["openai:m@{audited.base_url}"]\n'
        f'judge = "openai:judge@{judge.base_url}"\ntemplate = "universities"\nper_group = 4\n'
    )
    db = tmp_path / "id.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert rows(db, "SELECT stage, COUNT(*) FROM requests WHERE status = 'done' GROUP BY stage ORDER BY stage") == [
        ("answer", 16),
        ("judge", 16),
        ("probe", 16),
    ]
    judge_payload = _json.loads(rows(db, "SELECT payload_json FROM requests WHERE stage = 'judge' LIMIT 1")[0][0])
    assert reply in judge_payload["messages"][0]["content"]  # the judge reads the probe answer
    labels = rows(
        db, "SELECT probe_rule_label, probe_judge_label, probe_label, probe_label_source FROM identity_outputs"
    )
    assert len(labels) == 16 and {r[0] for r in labels} == {"unclear"}  # the rules cannot read a JSON reply
    assert all(r[1] in ("admits", "denies", "unclear") and r[2] == r[1] and r[3] == "judge" for r in labels)

    listed = _json.loads(run_cli("review", "probes", "--db", str(db), "--study", "unis", "--format", "json").stdout)
    assert len(listed) == 16
    target = next(r for r in listed if r["judge_label"] != "admits")
    admits_before = sum(r["label"] == "admits" for r in listed)
    out = run_cli(
        "review",
        "label",
        "--db",
        str(db),
        "--study",
        "unis",
        "--key",
        target["request_key"][:12],
        "--label",
        "admits",
        "--who",
        "ana",
    )
    assert out.returncode == 0 and "Labelled" in out.stdout, out.stdout + out.stderr

    def admits_rate():
        records = _json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
        return sum(r["value"] * r["n"] for r in records if r["metric"] == "probe_admits_rate")

    assert admits_rate() == pytest.approx(admits_before + 1)
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0  # re-parse keeps the review
    assert rows(
        db, "SELECT probe_label, probe_label_source FROM identity_outputs WHERE request_key = ?", target["request_key"]
    ) == [("admits", "human")]
    table = run_cli("review", "probes", "--db", str(db), "--study", "unis").stdout
    assert "judge labels vs human: 0/1 agree" in table
    out = run_cli("review", "undo-label", "--db", str(db), "--study", "unis", "--who", "ana")
    assert f"the label is now {target['judge_label']} (judge)" in out.stdout
    assert admits_rate() == pytest.approx(admits_before)
    assert (
        "Nothing to undo" in run_cli("review", "undo-label", "--db", str(db), "--study", "unis", "--who", "ana").stdout
    )
    bad = run_cli("review", "label", "--db", str(db), "--study", "unis", "--key", "zzz", "--label", "admits")
    assert bad.returncode != 0 and "no identity output" in (bad.stdout + bad.stderr)


def _recompute_from_the_export(db, records):
    """A reviewer recomputes Mean Share, Coverage and the probe rate from `export --what
    identity` alone and gets what `workbench metrics` reports."""
    import json as _json
    from collections import defaultdict

    from helpers import run_cli

    rows_ = _json.loads(run_cli("export", "--db", str(db), "--what", "identity", "--format", "json").stdout)
    assert rows_ and {"prompt", "choices", "parse_mode", "probe_answer", "probe_label_source"} <= set(rows_[0])
    answers = defaultdict(lambda: defaultdict(list))
    for r in rows_:
        answers[r["model"], r["group"], r["condition"]][r["request_key"]].append(r)
    mine = {}
    for cell, by_answer in answers.items():
        shares = []
        for items in by_answer.values():
            known = [r["reference_share"] for r in items if r["reference_share"] is not None]
            if known:
                shares.append(sum(known) / len(known))
        if shares:
            mine["mean_share", *cell] = sum(shares) / len(shares)
        every = [r for items in by_answer.values() for r in items]
        totals = {r["group_total"] for r in every if r["group_total"]}
        if totals:
            counts = {r["item"]: r["reference_count"] or 0 for r in every if r["item"]}
            mine["coverage", *cell] = sum(counts.values()) / totals.pop()
        labels = [items[0]["probe_label"] for items in by_answer.values() if items[0]["probe_label"]]
        if labels:
            mine["probe_admits_rate", *cell] = labels.count("admits") / len(labels)
    theirs = {
        (r["metric"], r["model"], r["group"], r["condition"]): r["value"]
        for r in records
        if r["metric"] in ("mean_share", "coverage", "probe_admits_rate") and r["value"] is not None
    }
    # A cell no reference share covers (a group the table leaves out) is n/a with why, not 0.
    missing = [r for r in records if r["metric"] == "mean_share" and r["value"] is None]
    assert all(r["na_reason"] == "no recommended item is in the reference shares" for r in missing)
    assert mine.keys() == theirs.keys() and len(mine) > 10
    # each prompt is drawn from the template and asked once: its intervals resample prompts
    with_interval = [r for r in records if r["metric"] in ("mean_share", "coverage") and "ci_unit" in r]
    assert with_interval and {r["ci_unit"] for r in with_interval} == {"prompt"}
    for key, value in theirs.items():
        assert mine[key] == pytest.approx(value, abs=1e-12), key
