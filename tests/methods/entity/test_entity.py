"""Entity x template label-probability audits (docs/methods.md §4)."""

from __future__ import annotations

import json
import math
from importlib.resources import files
from pathlib import Path

import pytest
from conftest import rows
from helpers import kill_run_once, run_cli

from workbench.methods.entity import metrics as em
from workbench.methods.entity.study import Label, Task, prompt_parts

EXAMPLE = Path(str(files("workbench.assets").joinpath("studies", "entity")))


def small_study(
    tmp_path: Path,
    models: str = '["llama:default"]',
    extra: str = "",
    templates: int = 3,
    entities: int = 4,
    group_by: str = '["gdp_quantile"]',
) -> Path:
    study = tmp_path / "small.toml"
    study.write_text(
        f'name = "urgency"\nmethod = "entity"\nmodels = {models}\n'
        f'task = "{EXAMPLE / "urgency.task.json"}"\ntemplates = "{EXAMPLE / "urgency_templates.csv"}"\n'
        f'entities = "{EXAMPLE / "countries.csv"}"\nmax_templates = {templates}\nmax_entities = {entities}\n'
        f"group_by = {group_by}\n{extra}"
    )
    return study


# -- metrics by hand ---------------------------------------------------------------


def test_scores_deltas_and_bias_by_hand():
    # Two labels with weights 1 (good) and 0; two templates; three entities.
    probs = {("A", 0): 0.9, ("B", 0): 0.5, ("C", 0): 0.1, ("A", 1): 0.6, ("B", 1): 0.6, ("C", 1): 0.6}
    rows_ = [(e, t, "good", 1.0, p) for (e, t), p in probs.items()] + [
        (e, t, "bad", 0.0, 1 - p) for (e, t), p in probs.items()
    ]
    scores = em.weighted_scores(rows_)
    assert scores["A", 0] == pytest.approx(0.9)
    deltas = em.normalised(scores)
    sd = math.sqrt((0.4**2 + 0 + 0.4**2) / 2)  # sample sd (ddof = 1) of 0.9, 0.5, 0.1, as pandas
    assert deltas["A", 0] == pytest.approx(0.4 / sd) and deltas["B", 0] == pytest.approx(0.0)
    assert deltas["A", 1] == 0.0  # every entity scored alike: no bias, not a division by zero
    bias = em.entity_bias(deltas)
    assert bias["A"] == (pytest.approx(0.4 / sd / 2), 2) and bias["C"][0] == pytest.approx(-0.4 / sd / 2)
    assert sum(v for v, _ in bias.values()) == pytest.approx(0.0)


def test_deltas_equal_the_frameworks_processing():
    """Their score processing, written out with pandas-like steps (sample std per template,
    mean over templates), on unequal entity counts per template: equal to 1e-9."""
    import statistics

    scores = {
        ("A", 0): 0.91,
        ("B", 0): 0.52,
        ("C", 0): 0.13,
        ("D", 0): 0.4,
        ("A", 1): 0.33,
        ("B", 1): 0.71,
        ("C", 1): 0.2,
        ("A", 2): 0.5,
        ("B", 2): 0.25,
    }
    deltas = em.normalised(scores)
    expected: dict[str, list[float]] = {}
    for template in (0, 1, 2):
        values = {e: v for (e, t), v in scores.items() if t == template}
        mean, sd = statistics.fmean(values.values()), statistics.stdev(values.values())  # ddof = 1
        for entity, value in values.items():
            assert deltas[entity, template] == pytest.approx((value - mean) / sd, abs=1e-9)
            expected.setdefault(entity, []).append((value - mean) / sd)
    for entity, (delta, n) in em.entity_bias(deltas).items():
        assert delta == pytest.approx(statistics.fmean(expected[entity]), abs=1e-9) and n == len(expected[entity])
    assert em.normalised({("A", 0): 0.5}) == {("A", 0): 0.0}  # one entity: no spread to standardise by


def test_macro_f1_over_all_task_labels_as_sklearn():
    # sklearn: f1_score(y_true, y_pred, average="macro", labels=["a", "b", "c"], zero_division=0)
    pairs = [("a", "a"), ("b", "a"), ("b", "b"), ("b", "b")]  # (predicted, intended)
    assert em.macro_f1(pairs, ["a", "b", "c"]) == pytest.approx((2 / 3 + 0.8 + 0.0) / 3)
    assert em.macro_f1(pairs) == pytest.approx((2 / 3 + 0.8) / 2)


def test_macro_f1_and_effect_sizes():
    assert em.macro_f1([("a", "a"), ("b", "a"), ("b", "b"), ("b", "b")]) == pytest.approx((2 / 3 + 0.8) / 2)
    assert em.macro_f1([]) is None
    assert em.cohens_d([1, 2, 3], [4, 5, 6]) == pytest.approx(-3.0)
    assert em.cohens_d_paired([2, 3, 5], [1, 1, 2]) == pytest.approx(2 / math.sqrt(1))
    test = em.group_test([1.0, 1.2, 1.1, 0.9], [-1.0, -0.8, -1.2, -0.9])
    assert test["u"] == 16.0 and test["p"] == pytest.approx(0.0286, abs=1e-3) and test["d"] > 5
    paired = em.paired_test([1, 2, 3, 4, 5, 6], [0, 1, 1, 2, 3, 3])
    assert paired["p"] == pytest.approx(0.03125) and paired["d"] > 0
    assert em.pearson([1, 2, 3, 4], [2, 4, 6, 8.5])["r"] == pytest.approx(0.9986, abs=1e-3)


def test_prompt_parts_share_a_prefix_and_replace_only_the_placeholder():
    task = Task(
        "t",
        [Label("low", 2.0, {"english": "Low Risk"}, "1"), Label("high", 1.0, {"english": "High Risk"}, "2")],
        {
            "english": {
                "instruction": "Classify.\n",
                "text_scale": "Low Risk or High Risk.\n",
                "numerical_scale": "1 or 2.\n",
                "sentence_prefix": "Sentence: ",
                "label_prefix": "Label: ",
                "few_shot": [{"sentence": "X grew.", "label": "low"}],
            }
        },
    )
    prefix, suffix, labels = prompt_parts(task, "english", "few_shot_text", "X's Xbox sales fell in X.", "Chad")
    assert prefix == "Classify.\nLow Risk or High Risk.\nSentence: X grew.\nLabel: Low Risk\n\n"  # examples keep X
    assert suffix == "Sentence: Chad's Xbox sales fell in Chad.\nLabel:"
    assert labels == [" Low Risk", " High Risk"]
    prefix, _suffix, labels = prompt_parts(task, "english", "zero_shot_numeric", "X fell.", "{0}\\1")
    assert prefix == "Classify.\n1 or 2.\n" and labels == [" 1", " 2"]
    assert prompt_parts(task, "english", "zero_shot_text", "X fell.", "{0}\\1")[1].startswith("Sentence: {0}\\1 fell.")


def test_study_file_errors_name_the_file_and_key(tmp_path):
    from workbench.methods.study_files import load_study
    from workbench.studies.spec import StudyError

    bad_templates = tmp_path / "t.csv"
    bad_templates.write_text("sentence,label\nX is fine.,Somewhat Urgent\n")
    cases = [
        ('variants = ["three_shot"]', "variants", "unknown variant"),
        ('languages = ["klingon"]', "languages", "no locale"),
        ("", "group_by", "no column 'continent'"),
        ('scoring = "guess"', "scoring", "exact, first_token, naive"),
    ]
    for extra, key, message in cases:
        with pytest.raises(StudyError) as info:
            load_study(small_study(tmp_path, extra=extra, group_by='["continent"]' if not extra else "[]"))
        assert f"key '{key}'" in str(info.value) and message in str(info.value)
    study = small_study(tmp_path)
    study.write_text(study.read_text().replace(str(EXAMPLE / "urgency_templates.csv"), str(bad_templates)))
    with pytest.raises(StudyError, match="line 2: label 'Somewhat Urgent' is not one of the task's labels"):
        load_study(study)


# -- the bundled model ------------------------------------------------------------


@pytest.mark.slow
def test_exact_scores_equal_a_naive_evaluation(tmp_path):
    """The acceptance check: exact multi-token label log-probs equal a lone evaluation of
    prompt + label. With batch-invariant kernels the match is to float rounding; with the
    fast default kernels llama.cpp itself moves numbers with the batch layout, and the
    difference stays within what two naive evaluations of the same text differ by."""
    import llama_cpp

    from workbench.engines.llama_scoring import Item, Scorer
    from workbench.engines.resolve import default_model_path
    from workbench.methods.entity.study import load_task
    from workbench.studies.spec import Where

    task = load_task(Where("t"), EXAMPLE / "urgency.task.json")
    sentences = [r.split(",")[0].strip('"') for r in (EXAMPLE / "urgency_templates.csv").read_text().splitlines()[1:2]]
    llm = llama_cpp.Llama(model_path=str(default_model_path()[0]), n_ctx=1024, verbose=False)
    for variant in ("few_shot_text", "zero_shot_numeric"):
        parts = [prompt_parts(task, "english", variant, s, e) for s in sentences for e in ("France", "Chad")]
        items = [Item(suffix, labels) for _prefix, suffix, labels in parts]
        prefix = parts[0][0]
        scorer = Scorer(llm, 1024, invariant=True)
        try:
            exact = scorer.score(prefix, items)
            naive = [scorer.score_naive(prefix + item.suffix, item.continuations) for item in items]
            first = scorer.score(prefix, items, first_token_only=True)
            lone_first = [scorer.score_prompt_first_token(prefix + i.suffix, i.continuations) for i in items]
        finally:
            scorer.close()
        for xs, ys in zip(exact, naive):  # equal up to float32 summation order
            assert xs == pytest.approx(ys, rel=1e-5, abs=1e-6), f"{variant}: exact {xs} vs naive {ys}"
        assert first == lone_first  # the approximation, cached or not, reads the same distribution
        if variant == "few_shot_text":  # three-token labels: the later tokens matter
            assert any(abs(f - e) > 1e-3 for fs, es in zip(first, exact) for f, e in zip(fs, es))
    # The fast default kernels round by batch layout, by a CPU-dependent amount: the
    # bound is the spread of two naive layouts (one batch vs one token per batch)
    # measured here, not a constant.
    fast, one_at_a_time = Scorer(llm, 1024), Scorer(llm, 1024, n_batch=1)
    try:
        exact = fast.score(prefix, items)
        naive = [fast.score_naive(prefix + item.suffix, item.continuations) for item in items]
        layout = [one_at_a_time.score_naive(prefix + item.suffix, item.continuations) for item in items]
    finally:
        fast.close()
        one_at_a_time.close()
    spread = max(abs(a - b) for xs, ys in zip(naive, layout) for a, b in zip(xs, ys))
    worst = max(abs(a - b) for xs, ys in zip(exact, naive) for a, b in zip(xs, ys))
    assert worst <= 4 * spread + 1e-4, (worst, spread)


@pytest.mark.slow
def test_entity_study_runs_resumes_and_shows_delta(tmp_path):
    study = small_study(tmp_path)
    db = tmp_path / "e.db"
    kill_run_once(study, db, "SELECT COUNT(*) FROM requests WHERE status = 'done'", 2)
    done = rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'done'")[0][0]
    assert 2 <= done < 12
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(12, 12)]  # nothing twice
    assert rows(db, "SELECT COUNT(*), MIN(method), MAX(method) FROM label_scores") == [(48, "exact", "exact")]
    for (total,) in rows(db, "SELECT SUM(prob) FROM label_scores GROUP BY request_key"):
        assert total == pytest.approx(1.0)
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    deltas = [r for r in records if r["metric"] == "entity_delta"]
    assert len(deltas) == 4 and all(r["n"] == 3 for r in deltas)
    assert sum(r["value"] for r in deltas) == pytest.approx(0.0, abs=1e-9)  # deltas are centred per template
    assert {r["metric"] for r in records} >= {"macro_f1", "group_delta", "entity_delta_global"}
    scores = json.loads(run_cli("export", "--db", str(db), "--what", "scores", "--format", "json").stdout)
    first = scores[0]
    assert first["prompt"].endswith("\nLabel:") and first["continuation"] == " Low Urgency"
    assert first["prompt"].startswith("You are a humanitarian response analyst.")
    assert math.exp(first["logprob"]) > 0
    bias = run_cli("export", "--db", str(db), "--what", "entity_bias", "--format", "csv").stdout.splitlines()
    assert bias[0].startswith("study,model,task,language,variant,method,entity,delta") and "gdp_quantile" in bias[0]
    printed = run_cli("metrics", "--db", str(db)).stdout
    assert "entities ranked by Delta" in printed and "macro-F1" in printed

    import asyncio

    from helpers import wait_for

    from workbench.app import WorkbenchApp

    async def scenario():
        app = WorkbenchApp(db)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#entity-table").row_count == 4)
            top = [str(c) for c in app.screen.query_one("#entity-table").get_row_at(0)]
            best = max(deltas, key=lambda r: r["value"])
            assert top[:2] == ["1", best["entity"]]
            # with its interval and the templates it averages
            assert top[2] == f"{best['value']:+.3f} [{best['ci_low']:.2f}, {best['ci_high']:.2f}] (n {best['n']})"
            assert best["entity"] in str(app.screen.query_one("#entity-chart").render())

    asyncio.run(scenario())


# -- the HTTP engine ---------------------------------------------------------------


def test_http_engine_scores_with_echo_or_says_it_approximates(tmp_path, fake_server):
    from openai_server import ServerConfig, token_logprob

    echoing = fake_server(ServerConfig())
    study = small_study(tmp_path, models=f'["openai:m@{echoing.base_url}"]', templates=2, entities=2)
    db = tmp_path / "echo.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert rows(db, "SELECT DISTINCT method FROM label_scores") == [("exact",)]
    score = json.loads(run_cli("export", "--db", str(db), "--what", "scores", "--format", "json").stdout)[0]
    # The server's words are its tokens: the label " Low Urgency" is two of them.
    prompt = score["prompt"]
    expected = token_logprob(prompt, " Low") + token_logprob(prompt + " Low", " Urgency")
    assert score["logprob"] == pytest.approx(expected)

    plain = fake_server(ServerConfig(echo_logprobs=False))
    # Without echo the approximation is the study's choice, never a silent fallback (test_exact_scores).
    study = small_study(
        tmp_path, models=f'["openai:m@{plain.base_url}"]', extra='scoring = "first_token"\n', templates=2, entities=2
    )
    db = tmp_path / "plain.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    assert rows(db, "SELECT DISTINCT method FROM label_scores") == [("first_token",)]  # labelled as such
    assert rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'done'") == [(4,)]
    out = run_cli("metrics", "--db", str(db))
    assert "· first_token" in out.stdout  # the approximate scores say so in their condition


def test_coverage_filters():
    scores = {("A", 0): 0.9, ("B", 0): 0.5, ("C", 0): 0.1, ("A", 1): 0.6, ("B", 1): 0.2, ("A", 2): 0.3}
    # template 2 has one entity: dropped at min_entities = 2; then C has one template left
    kept = em.covered(scores, min_entities=2, min_templates=2)
    assert set(kept) == {("A", 0), ("B", 0), ("A", 1), ("B", 1)}
    assert em.covered(scores) == scores


def test_scores_made_elsewhere_import_and_give_the_same_deltas(tmp_path, fake_server):
    """`export --what scores` of one study, imported as if from another harness, gives
    the same Delta per entity and the same group tests."""
    from openai_server import ServerConfig

    server = fake_server(ServerConfig())
    study = small_study(tmp_path, models=f'["openai:m@{server.base_url}"]', templates=4, entities=6)
    db = tmp_path / "scored.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    exported = tmp_path / "scores.csv"
    assert (
        run_cli(
            "export", "--db", str(db), "--what", "scores", "--format", "csv", "--raw", "-o", str(exported)
        ).returncode
        == 0
    )
    other = tmp_path / "imported.db"
    out = run_cli(
        "import",
        "scores",
        str(exported),
        "--db",
        str(other),
        "--study",
        "elsewhere",
        "--task",
        str(EXAMPLE / "urgency.task.json"),
        "--entities",
        str(EXAMPLE / "countries.csv"),
        "--group-by",
        "gdp_quantile",
    )
    assert out.returncode == 0 and "24 prompts (6 entities)" in out.stdout, out.stdout + out.stderr

    def deltas(path, metric="entity_delta"):
        records = json.loads(run_cli("metrics", "--db", str(path), "--format", "json").stdout)
        return {(r.get("entity") or r.get("value_label")): r["value"] for r in records if r["metric"] == metric}

    original, imported = deltas(db), deltas(other)
    assert original.keys() == imported.keys() and len(original) == 6
    for entity, value in original.items():
        assert imported[entity] == pytest.approx(value, abs=1e-9)
    assert deltas(db, "group_delta") == pytest.approx(deltas(other, "group_delta"), abs=1e-9)
    status = json.loads(run_cli("status", "--db", str(other), "--json").stdout)
    assert status[0]["done"] == 24 and status[0]["stage"] == "score"
    # A label that is not the task's is one line naming the row; nothing is stored.
    bad = tmp_path / "bad.csv"
    bad.write_text("entity,template_id,label,logprob\nFrance,0,very urgent,-1.2\n")
    out = run_cli(
        "import",
        "scores",
        str(bad),
        "--db",
        str(tmp_path / "bad.db"),
        "--study",
        "x",
        "--task",
        str(EXAMPLE / "urgency.task.json"),
    )
    assert out.returncode == 2 and "line 2: column 'label'" in out.stderr and not (tmp_path / "bad.db").exists()


def test_group_table_keeps_its_numbers_in_view_and_a_constant_condition_in_the_title():
    from workbench.methods.entity import views
    from workbench.methods.entity.records import GroupDelta

    def group(value_label, model="llama:default", value=0.5):
        return GroupDelta(
            convention="paper",
            study="s",
            model=model,
            task="urgency",
            language="english",
            variant="zero_shot_text",
            method="exact",
            attribute="continent",
            value_label=value_label,
            value=value,
            n=4,
            u=None,
            p=0.03,
            d=1.2,
            p_holm=0.06,
        )

    panels = {p.id: p for p in views.panels([group("Africa"), group("Europe", value=-0.5)], {})}
    header, rows = panels["entity-groups"].table
    assert header == ["attribute", "group", "mean Delta", "n", "p (MWU)", "Holm", "d"]
    assert rows[0] == ["continent", "Africa", "+0.500", "4", "0.030", "0.060", "1.20"]
    assert "condition: llama:default · zero_shot_text" in panels["entity-groups"].title
    # Two conditions: the condition stays, after the numbers.
    two = {p.id: p for p in views.panels([group("Africa"), group("Africa", model="openai:m")], {})}
    header, rows = two["entity-groups"].table
    assert header[-1] == "condition" and header[2:7] == ["mean Delta", "n", "p (MWU)", "Holm", "d"]
