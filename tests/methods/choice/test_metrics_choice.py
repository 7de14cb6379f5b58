"""ChoiceEval metrics against scipy and hand-computed cases (docs/methods.md §1)."""

import math

import numpy as np
import pytest
from scipy import stats

from workbench.methods.choice.metrics import (
    ResponseList,
    choice_metric_records,
    direct_recommendation_rate,
    frequent_entities,
    geographic_lor,
    log_odds_ratio,
    preferred_entity,
    region_shares,
    us_top3,
)
from workbench.methods.choice.records import LorCluster, LorTopic
from workbench.methods.choice.stability import stability
from workbench.metrics.records import as_rows


def rl(entities, rep=1, cluster="c1", question="q", model="m", topic="t"):
    return ResponseList(model, topic, cluster, question, rep, tuple(entities))


def test_peir_hand_computed():
    lists = [rl(["Nike", "Adidas"]), rl(["Nike"]), rl(["Asics", "Nike"]), rl([])]
    assert preferred_entity(lists) == ("Nike", 0.75, 4)


def test_peir_tie_goes_to_better_mean_rank_then_name():
    lists = [rl(["B", "A"]), rl(["A", "B"]), rl(["A"]), rl(["B"])]
    # A and B both in 3 of 4; A's ranks 2,1,1 (mean 1.33) beat B's 1,2,1 (1.33)? equal -> name
    assert preferred_entity(lists)[0] == "A"
    lists = [rl(["B", "A"]), rl(["B", "A"])]
    assert preferred_entity(lists)[0] == "B"  # same count, B ranks better


def test_peir_and_direct_rate_on_empty_lists():
    assert preferred_entity([]) == (None, None, 0)
    assert preferred_entity([rl([]), rl([])]) == (None, None, 2)
    assert direct_recommendation_rate([rl([]), rl(["x"]), rl(["y"]), rl([])]) == 0.5
    assert direct_recommendation_rate([]) is None


def test_stability_matches_scipy():
    rng = np.random.default_rng(0)
    names = [f"e{i}" for i in range(15)]
    lists = []
    for rep in (1, 2, 3):
        for q in range(40):
            picks = rng.choice(names, size=3, replace=False, p=np.linspace(2, 0.2, 15) / np.linspace(2, 0.2, 15).sum())
            lists.append(rl(list(picks), rep=rep, question=str(q)))
    result = stability(lists, top_n=10)
    assert len(result.entities) == 10
    for rep_a, rep_b, rho, p in result.spearman:
        expected = stats.spearmanr(result.counts[rep_a], result.counts[rep_b])
        assert rho == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)
    assert [(a, b) for a, b, _, _ in result.spearman] == [(2, 1), (3, 1), (3, 2)]  # lower triangle
    h, p = result.kruskal
    expected = stats.kruskal(*result.counts.values())
    assert h == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)


def test_stability_paper_scale_value():
    # Two repetitions whose top-10 orders differ by four adjacent swaps
    # (sum d^2 = 8): the paper's Table 5 reports rho = 0.952, p = 2.28e-5 for n = 10.
    a = [50, 40, 35, 30, 20, 18, 15, 10, 8, 5]
    b = [40, 50, 30, 35, 18, 20, 10, 15, 8, 5]
    lists = []
    for rep, counts in ((1, a), (2, b)):
        for i, n in enumerate(counts):
            lists += [rl([f"e{i}"], rep=rep, question=f"{i}-{j}") for j in range(n)]
    ((rep_a, rep_b, rho, p),) = stability(lists, top_n=10).spearman
    assert rho == pytest.approx(0.952, abs=1e-3) and p == pytest.approx(2.28e-5, rel=0.01)


def test_stability_undefined_cases_are_reported_not_crashing():
    lists = [rl(["a"], rep=1), rl(["a"], rep=2)]
    result = stability(lists)
    assert result.spearman == [(2, 1, None, None)]
    assert result.kruskal == (None, None)
    assert stability([]).spearman == []


def test_log_odds_ratio_smoothing_handles_zero_mentions():
    assert log_odds_ratio(3, 0) == pytest.approx(math.log(3.5 / 0.5))
    assert log_odds_ratio(0, 0) == 0.0
    assert log_odds_ratio(0, 4) == pytest.approx(math.log(0.5 / 4.5))


def test_geographic_lor_hand_computed_and_ttest():
    region = {"Nike": "United States", "Apple": "United States", "Adidas": "Europe", "Sony": "Asia"}.get
    lists = (
        [rl(["Nike", "Adidas"], cluster="g1", question=f"a{i}") for i in range(4)]  # g1: US 4, EU 4
        + [rl(["Nike", "Apple"], cluster="g2", question=f"b{i}") for i in range(3)]  # g2: US 6, EU 0
        + [rl(["Adidas", "Sony"], cluster="g3", question=f"c{i}") for i in range(2)]  # g3: US 0, EU 2
    )
    # The original code's convention: every cluster, a region without a slot smoothed to 0.5.
    lor = geographic_lor(lists, region, "United States", "Europe", convention="original")
    expected = {"g1": math.log(4.5 / 4.5), "g2": math.log(6.5 / 0.5), "g3": math.log(0.5 / 2.5)}
    assert lor.per_group == pytest.approx(expected)
    values = list(expected.values())
    assert lor.mean == pytest.approx(np.mean(values))
    assert lor.exp_mean == pytest.approx(math.exp(np.mean(values)))
    t = stats.ttest_1samp(values, 0.0)
    # the paper's t-test over clusters, kept beside the interval's own test for fidelity
    assert lor.t_paper == pytest.approx(t.statistic) and lor.p_paper == pytest.approx(t.pvalue)
    # each cluster's questions are alike: no spread to read, so neither interval nor p
    assert lor.ci == (None, None) and lor.p is None and lor.ci_na_reason == "no spread between questions"
    assert lor.n_groups == 3
    # The paper convention (default): g2 (no Europe slot) and g3 (no US slot) carry no log-odds,
    # and a mean over the one cluster left would be g1's own: n/a, g1's value is in its row.
    lor = geographic_lor(lists, region, "United States", "Europe")
    assert lor.per_group == {"g1": 0.0, "g2": None, "g3": None}
    assert (lor.mean, lor.n_clusters, lor.n_groups) == (None, 1, 3)
    assert lor.p is None and lor.na_reason == "only 1 of 3 clusters has slots of both regions"


def test_geographic_lor_single_group_has_no_ttest():
    lists = [rl(["Nike"], cluster="only")]
    lor = geographic_lor(lists, lambda e: "United States", "United States", "Asia", convention="original")
    assert lor.n_groups == 1 and lor.mean == pytest.approx(math.log(1.5 / 0.5))
    assert lor.t_paper is None and lor.p_paper is None and lor.test_na_reason == "one cluster"
    assert lor.p is None and lor.ci_na_reason == "1 question"  # one question: no spread to read
    # The paper convention: one US slot against no Asian one is no log-odds at all.
    lor = geographic_lor(lists, lambda e: "United States", "United States", "Asia")
    assert lor.mean is None and lor.per_group == {"only": None}
    assert lor.na_reason == "no Asia slot: 1 vs 0 slots"


def test_five_percent_filter():
    lists = [rl(["Common"], question=str(i)) for i in range(99)] + [rl(["Common", "Rare"], question="x")]
    assert frequent_entities(lists) == {"Common"}  # Rare is in 1% of responses
    region = {"Common": "Europe", "Rare": "United States"}.get
    lor = geographic_lor(lists, region, "United States", "Europe", convention="original")
    assert lor.per_group["c1"] == pytest.approx(math.log(0.5 / 100.5))
    assert geographic_lor(lists, region, "United States", "Europe").per_group["c1"] is None  # no US slot kept


def test_region_shares():
    region = {"Nike": "United States", "Adidas": "Europe"}.get
    lists = [rl(["Nike", "Adidas", "Mystery"]), rl(["Nike"])]
    assert region_shares(lists, region) == {"Europe": 0.25, "Unknown": 0.25, "United States": 0.5}
    assert region_shares([rl([])], region) == {}


def test_us_top3_share_and_rank():
    lists = [
        rl(["France", "USA", "Italy"]),
        rl(["Italy", "Spain", "Japan", "United States"]),
        rl(["United States of America"]),
        rl(["France"]),
    ]
    share, rank = us_top3(lists)
    assert share == 0.5  # in the top 3 of responses 1 and 3
    # Named (in some spelling) by 3 responses: ahead of France and Italy (2 each).
    assert rank == 1
    assert us_top3([rl(["France"])]) is None


def test_records_have_the_documented_keys():
    region = {"Nike": "United States", "Adidas": "Europe"}.get
    lists = [
        rl(["Nike", "Adidas"], rep=r, cluster=c, question=f"{c}{q}")
        for r in (1, 2)
        for c in ("g1", "g2")
        for q in range(3)
    ]
    records = as_rows(choice_metric_records("s", lists, region))
    metrics = {r["metric"] for r in records}
    assert metrics == {"peir", "direct_recommendation_rate", "spearman", "kruskal_wallis", "lor", "region_share"}
    shares = {r["region"]: r["value"] for r in records if r["metric"] == "region_share" and r["cluster"] is None}
    assert shares == {"Europe": 0.5, "United States": 0.5}
    per_cluster_shares = {(r["cluster"], r["region"]) for r in records if r["metric"] == "region_share"}
    assert ("g1", "Europe") in per_cluster_shares and ("g2", "United States") in per_cluster_shares
    peir = [r for r in records if r["metric"] == "peir" and r["cluster"] is None][0]
    assert peir == {
        "convention": "paper",
        "study": "s",
        "model": "m",
        "topic": "t",
        "cluster": None,
        "metric": "peir",
        "entity": "Nike",
        "tied_with": ("Adidas",),  # named by every answer too: a tie, shown as one (Nike first by name)
        "runner_up": "Adidas",
        "runner_up_value": 1.0,
        "stays_preferred": 0.5,  # tied in every resample: half of each
        "value": 1.0,
        "n": 12,
        "n_eff": None,  # every answer names Nike: no variance to compare, no design effect
        "design_effect": None,
        # every answer names Nike, yet 6 questions are no certainty: Clopper-Pearson's interval
        # of 6 of 6 (each question's answers as one, the most they can be alike), never [1, 1]
        "ci_low": pytest.approx(0.5407, abs=1e-4),
        "ci_high": 1.0,
        "ci_level": 0.95,
        "n_boot": 1000,
        "ci_unit": "question",  # 6 questions (2 clusters x 3), each with its 2 repetitions, resampled
    }
    lor = [r for r in records if r["metric"] == "lor" and r["cluster"] is None]
    assert {(r["region_a"], r["region_b"]) for r in lor} == {
        ("United States", "Europe"),
        ("United States", "Asia"),
        ("United States", "non-US"),
    }
    assert set(lor[0]) >= {"mean", "exp_mean", "p", "t", "n_groups", "ci_low", "ci_high", "p_holm", "p_bh"}
    per_cluster = [r for r in records if r["metric"] == "lor" and r["cluster"] == "g1"]
    assert per_cluster and "value" in per_cluster[0]
    spearman = [r for r in records if r["metric"] == "spearman"][0]
    assert {"repetition_a", "repetition_b", "value", "p"} <= set(spearman)


def test_log_odds_count_recommendation_slots():
    """Two models of one brand in one answer ("Nike Pegasus", "Nike Vomero" -> Nike) are two
    slots, as the paper's code counts them; PEIR still counts the answer once."""
    region = {"Nike": "United States", "Adidas": "Europe", "Sony": "Asia"}.get
    lists = [
        ResponseList("m", "t", c, f"{c}{q}", 1, ("Nike", "Adidas"), ("Nike", "Nike", "Adidas"))
        for c in ("g1", "g2")
        for q in range(3)
    ]
    records = as_rows(choice_metric_records("s", lists, region))
    lor = {(r["region_b"], r["cluster"]): r for r in records if r["metric"] == "lor"}
    # per cluster: 6 US slots vs 3 EU slots, smoothed by 0.5
    assert lor["Europe", "g1"]["value"] == pytest.approx(math.log(6.5 / 3.5))
    assert lor["non-US", "g1"]["value"] == pytest.approx(math.log(6.5 / 3.5))  # Europe is every other region here
    shares = {r["region"]: r["value"] for r in records if r["metric"] == "region_share" and r["cluster"] is None}
    assert shares == {"United States": pytest.approx(2 / 3), "Europe": pytest.approx(1 / 3)}
    peir = next(r for r in records if r["metric"] == "peir" and r["cluster"] is None)
    assert peir["value"] == 1.0  # inclusion: every answer names Nike once


def test_intervals_are_seeded_and_bracket_the_estimate():
    region = {"Nike": "United States", "Adidas": "Europe"}.get
    choices = (["Puma"], ["Nike", "Adidas"], ["Nike", "Adidas"], ["Nike"])
    lists = [
        rl(choices[(q + r + len(c)) % 4] if c != "g3" else choices[q % 3], rep=r, cluster=c, question=f"{c}{q}")
        for r in (1, 2)
        for c in ("g1", "g2", "g3")
        for q in range(8)
    ]
    first = choice_metric_records("s", lists, region)
    again = choice_metric_records("s", lists, region)
    assert first == again  # the same data, the same intervals
    first = as_rows(first)
    peir = next(r for r in first if r["metric"] == "peir" and r["cluster"] is None)
    assert peir["ci_low"] <= peir["value"] <= peir["ci_high"] and peir["ci_low"] < peir["ci_high"]
    lor = next(r for r in first if r["metric"] == "lor" and r["cluster"] is None and r["region_b"] == "Europe")
    assert lor["ci_low"] < lor["mean"] < lor["ci_high"]


def test_holm_and_benjamini_hochberg_by_hand():
    from workbench.metrics.intervals import benjamini_hochberg, holm

    ps = [0.01, 0.04, 0.03, None, 0.2]
    assert holm(ps) == pytest.approx([0.04, 0.09, 0.09, None, 0.2])
    assert benjamini_hochberg(ps) == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, None, 0.2])


@pytest.mark.parametrize("kind", ["share", "mean", "difference"])
def test_bootstrap_intervals_cover_the_true_value(kind):
    """On data simulated with a known true value, 95 % intervals cover it in 93-97 % of
    400 simulations (two standard errors of a 400-draw coverage around 95 %; seeded, so
    the same draw on every machine). Measured: share 95.25 %, mean 94.25 %, difference 95.5 %."""
    from workbench.metrics.intervals import difference_ci, mean_ci

    rng = np.random.default_rng(7)
    covered = 0
    for i in range(400):
        if kind == "share":  # PEIR-like: the share of 200 responses naming an entity
            low, high = mean_ci(rng.random(200) < 0.3, seed=i)
            truth = 0.3
        elif kind == "mean":  # a Delta-like mean over 100 templates
            low, high = mean_ci(rng.normal(0.4, 1.0, 100), seed=i)
            truth = 0.4
        else:  # a Mean Share difference between two conditions
            low, high = difference_ci(rng.beta(2, 5, 150), rng.beta(2, 6, 150), seed=i)
            truth = 2 / 7 - 2 / 8
        covered += low <= truth <= high
    assert 0.93 <= covered / 400 <= 0.97, covered / 400


def test_log_odds_without_regions_say_so():
    from workbench.methods.choice.views import lor_cell

    lists = [rl(["Nike", "Adidas"], rep=1, cluster=c, question=f"{c}{q}") for c in ("g1", "g2") for q in range(3)]
    records = choice_metric_records("s", lists, lambda e: None)  # no entity has a region yet
    lor = next(r for r in records if isinstance(r, LorTopic) and r.region_b == "Europe")
    assert lor.slots_a == lor.slots_b == 0
    assert lor_cell(lor) == "n/a (no regions imported)"
    region = {"Nike": "United States", "Adidas": "Europe"}.get
    lor = next(
        r for r in choice_metric_records("s", lists, region) if isinstance(r, LorTopic) and r.region_b == "Europe"
    )
    # identical questions: no spread to read, so neither interval nor p, said once
    assert "0.00 (interval and test n/a: no spread between questions; 2 of 2 clusters" in lor_cell(lor)


def test_chart_legend_symbols_are_unique():
    from workbench.display.metric_views import legend_symbols

    symbols = legend_symbols(["Asia", "Europe", "Other", "United States", "Unknown", "USA", "U"])
    assert len(set(symbols.values())) == 7
    assert symbols["United States"] == "U" and symbols["Unknown"] != "U"


def test_counting_each_scope_once_gives_the_numbers_of_counting_it_afresh():
    """The records count each cluster once and sum clusters for the topic; every number
    equals the one each function computes on the scope's lists on its own."""
    import random

    from workbench.methods.choice.metrics import (
        ResponseList,
        choice_metric_records,
        preferred_entity,
        region_shares,
        us_top3,
    )
    from workbench.methods.choice.stability import stability

    rng = random.Random(4)
    names = ["Nike", "Adidas", "USA", "United States", "Asics", "Puma", "Mizuno"]
    lists = [
        ResponseList(
            "m",
            "t",
            rng.choice(["a", "b", None]),
            f"q{i}",
            rng.choice([1, 2, 3]),
            tuple(dict.fromkeys(rng.choices(names, k=rng.randint(0, 4)))),
        )
        for i in range(300)
    ]
    regions = {"Nike": "United States", "Adidas": "Europe", "Asics": "Asia"}.get
    records = as_rows(choice_metric_records("s", lists, regions))
    for cluster in (None, "a", "b"):
        scope = lists if cluster is None else [item for item in lists if item.cluster == cluster]
        mine = [r for r in records if r.get("cluster") == cluster]
        peir = next(r for r in mine if r["metric"] == "peir")
        entity, value, n = preferred_entity(scope)
        assert (peir["entity"], peir["value"], peir["n"]) == (entity, value, n)
        stab = stability(scope)
        assert [(r["repetition_a"], r["repetition_b"], r["value"]) for r in mine if r["metric"] == "spearman"] == [
            (a, b, rho) for a, b, rho, _p in stab.spearman
        ]
        us = next(r for r in mine if r["metric"] == "us_top3_share")
        assert (us["value"], us["rank"]) == us_top3(scope)
        assert {r["region"]: r["value"] for r in mine if r["metric"] == "region_share"} == region_shares(scope, regions)


def test_without_regions_no_log_odds_reads_like_no_bias():
    """With no region assigned every log-odds is 0 by construction: the cluster rows, the
    per-cluster chart and the forest plot say n/a or leave it out, never "0.00"."""
    from workbench.methods.choice import views
    from workbench.methods.choice.metrics import ResponseList, choice_metric_records

    lists = [
        ResponseList("m", "shoes", cluster, f"q{i}", 1, ("Nike", "Adidas")) for i, cluster in enumerate(["a", "b"] * 5)
    ]
    records = choice_metric_records("s", lists, lambda entity: None)
    cluster_rows = [r for r in records if isinstance(r, LorCluster) and r.cluster == "a"]
    assert cluster_rows and all((r.slots_a, r.slots_b) == (0, 0) for r in cluster_rows)
    _header, rows = views.lor_table(views.select(records, views.ALL, "a"))
    assert rows and all(row[2] == "n/a (no regions imported)" for row in rows)
    assert views.lor_bars(records) == [] and views.lor_forest(records).values == []
    assert "0.00" not in str(views.panels(records, {"topic": views.ALL, "cluster": "a"})[1].table)


def test_chart_labels_are_short_and_still_tell_models_apart():
    from workbench.display.metric_views import short_labels

    labels = [
        "openai:m@http://127.0.0.1:8001/v1",
        "openai:m@http://127.0.0.1:8002/v1",
        "openai:gpt-4o@https://api.openai.com/v1,temperature=0.2",
        "llama:/models/qwen-7b.gguf,n_ctx=4096",
        "llama:default",
        "gemini",
    ]
    assert short_labels(labels) == {
        labels[0]: "m@127.0.0.1:8001",
        labels[1]: "m@127.0.0.1:8002",
        labels[2]: "gpt-4o",
        labels[3]: "qwen-7b.gguf",
        labels[4]: "llama:default",
        labels[5]: "gemini",
    }


def records_by_definition(conn):
    """Every study's records from `ResponseList`s read by the plain loader and counted by
    the plain functions (`counts.scope_counts`): the definition the fast path is held to."""
    import json

    from workbench.methods.choice.metrics import DEFAULT_REGION_PAIRS, ResponseList, choice_metric_records
    from workbench.store.entities import mentions

    records = []
    region_of = mentions.regions(conn).get
    for study_id, name, spec in conn.execute("SELECT id, name, spec_json FROM studies ORDER BY name").fetchall():
        settings = json.loads(spec).get("metrics", {})
        lists = [ResponseList(*row[:5], tuple(row[5]), tuple(row[6])) for row in mentions.load_lists(conn, study_id)]
        if lists:
            pairs = [tuple(p) for p in settings.get("region_pairs", DEFAULT_REGION_PAIRS)]
            records += choice_metric_records(
                name, lists, region_of, pairs, settings.get("top_n", 10), settings.get("min_share", 0.05)
            )
    return records


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counting_by_arrays_gives_the_numbers_of_the_definition(tmp_path, seed):
    """Random studies (clusters and none, repetitions, empty answers, ties, US spellings,
    one entity under several spellings), changed the ways a reviewer changes them: the
    numbers counted from arrays equal those counted from response lists, every time."""
    import random

    from workbench.asking.extract import normalize_surface
    from workbench.methods.choice import data
    from workbench.store.db import connect
    from workbench.store.entities import mentions
    from workbench.store.requests.studies import ensure_study

    rng = random.Random(seed)
    conn = connect(tmp_path / "s.db")
    spellings = ["Nike", "NIKE", "Adidas", "Puma", "Asics", "USA", "United States", "U.S.", "France", "[/x]"]
    spellings += [f"Brand {i}" for i in range(12)]
    for study in ("a", "b"):
        lists = []
        for i in range(rng.randint(40, 120)):
            picks = [rng.choice(spellings) for _ in range(rng.choice([0, 1, 3, 5, 5]))]
            surfaces = list({normalize_surface(p): (p, normalize_surface(p), 1) for p in picks}.values())
            cluster = rng.choice(["Price", "Quality", None, "Ethics"])
            model, topic = rng.choice(["m1", "m2"]), rng.choice(["shoes", "countries"])
            lists.append(mentions.MentionList(model, topic, cluster, f"q{i}", rng.randint(1, 3), "import", surfaces))
        mentions.store_lists(conn, ensure_study(conn, study, "choice"), lists)
    regions = ["United States", "Europe", "Asia", None]
    for (name,) in conn.execute("SELECT name FROM entities").fetchall():
        mentions.set_entity_attributes(conn, [{"name": name, "region": rng.choice(regions) or ""}])

    def same(change):
        assert data.choice_metric_records_of(conn) == records_by_definition(conn), change

    same("as imported")
    ids = [row[0] for row in conn.execute("SELECT id FROM entities ORDER BY id")]
    with conn:
        conn.execute("UPDATE aliases SET entity_id = ? WHERE entity_id = ?", (ids[0], ids[2]))  # a merge
    same("two entities merged: some answers now name one entity twice")
    with conn:
        conn.execute("UPDATE entities SET name = 'Zeta' WHERE id = ?", (ids[1],))
    same("an entity renamed (names order the ties)")
    list_ids = [row[0] for row in conn.execute("SELECT id FROM mention_lists ORDER BY id")]
    for list_id in rng.sample(list_ids, 5):
        with conn:
            conn.execute("DELETE FROM mentions WHERE list_id = ? AND rank = 1", (list_id,))
            conn.execute("UPDATE mention_lists SET id = id WHERE id = ?", (list_id,))
    same("five lists edited")
    with conn:
        conn.execute("DELETE FROM mention_lists WHERE id = ?", (list_ids[0],))
        conn.execute("UPDATE entities SET region = 'Asia' WHERE id = ?", (ids[3],))
    same("a list deleted and a region changed")


def test_metrics_reuse_loaded_lists_only_while_they_stay_the_same(tmp_path, metrics_db):
    """The lists a refresh loaded are reused until a change could make them read
    differently (kept by triggers in the store). After every kind of change the numbers
    equal a computation from scratch; a region assignment reuses the lists."""
    from helpers import run_cli

    from workbench.methods.choice import data
    from workbench.store.db import connect
    from workbench.store.entities import mentions
    from workbench.store.review import verdicts as reviews

    db = metrics_db  # ranked lists imported, regions assigned
    conn = connect(db)

    def check(change: str, moves: bool) -> None:
        before = mentions.lists_version(conn)
        cached = data.choice_metric_records_of(conn)
        assert (mentions.lists_version(conn) != before) is False  # reading changes nothing
        assert cached == records_by_definition(conn), change  # what the lists say, counted plainly
        data._LOADED.clear()
        assert cached == data.choice_metric_records_of(conn), change  # as if computed afresh
        assert (before != check.last) is moves, change
        check.last = before

    check.last = mentions.lists_version(conn)
    data.choice_metric_records_of(conn)
    regions = tmp_path / "regions.csv"
    regions.write_text("name,region\nPuma,Asia\n")  # was Europe
    assert run_cli("import", "entities", str(regions), "--db", str(db)).returncode == 0
    check("a region changed", moves=False)
    list_id = conn.execute("SELECT id FROM mention_lists ORDER BY id LIMIT 1").fetchone()[0]
    reviews.review(conn, list_id, "r", "accept")
    check("a list accepted as it is", moves=False)
    reviews.review(conn, list_id, "r", "edit", ["Puma", "Nike"])
    check("a list edited", moves=True)
    reviews.review(conn, list_id, "r", "reject")
    check("a list rejected", moves=True)
    reviews.review(conn, list_id, "r", "edit", ["Asics"])
    check("an emptied list given entities again", moves=True)
    assert run_cli("entities", "merge", "Asics", "Puma", "--db", str(db), "--into", "Asics").returncode == 0
    check("two entities merged", moves=True)
    assert run_cli("entities", "rename", "Asics", "Asics Corp", "--db", str(db)).returncode == 0
    check("an entity renamed", moves=True)
    assert run_cli("entities", "undo", "--db", str(db)).returncode == 0
    check("a decision undone", moves=True)
    more = tmp_path / "more.csv"
    more.write_text("model,topic,cluster,question_id,repetition,rank,entity\ngpt,shoes,Convenience,new,1,1,Adidas\n")
    assert run_cli("import", "mentions", str(more), "--db", str(db), "--study", "ext").returncode == 0
    check("a list imported", moves=True)


def test_distinct_rows_match_numpy_unique_in_order():
    """The bootstrap draws one count per distinct row, in order: the fast way of finding
    them must give numpy's rows, counts and order exactly, or the intervals would move."""
    from workbench.metrics.intervals import _distinct_rows

    rng = np.random.default_rng(7)
    for _ in range(100):
        rows = rng.integers(0, rng.integers(1, 9), size=(rng.integers(1, 500), rng.integers(2, 6))).astype(float)
        expected, counts = np.unique(rows, axis=0, return_counts=True)
        got, got_counts = _distinct_rows(rows)
        assert np.array_equal(got, expected) and np.array_equal(got_counts, counts)
    odd = np.array([[0.5, 1.0], [-1.0, 2.0], [0.5, 1.0]])  # not whole or not >= 0: numpy's own way
    assert np.array_equal(_distinct_rows(odd)[0], np.unique(odd, axis=0))


def _store_with_lists(path, n=8, clusters=("C", "D")):
    from workbench.asking.extract import normalize_surface
    from workbench.store.db import connect
    from workbench.store.entities import mentions
    from workbench.store.requests.studies import ensure_study

    conn = connect(path)
    study = ensure_study(conn, "a", "choice")
    names = ["Nike", "USA", "Puma", "Adidas"]

    def lists(questions, cluster=None):
        return [
            mentions.MentionList(
                "m",
                "t",
                cluster or clusters[i % len(clusters)],
                q,
                1,
                "import",
                [(e, normalize_surface(e), 1) for e in names[: 1 + i % 3]],
            )
            for i, q in enumerate(questions)
        ]

    mentions.store_lists(conn, study, lists([f"q{i}" for i in range(n)]))
    mentions.set_entity_attributes(
        conn, [{"name": "Nike", "region": "United States"}, {"name": "Puma", "region": "Europe"}]
    )
    return conn, study, lists


def test_changes_made_by_hand_or_rolled_back_never_leave_stale_numbers(tmp_path):
    """Writers outside the workbench's own code: a mention updated in place, a list
    renumbered, metrics read inside a transaction that is rolled back, a superseded request
    whose key is NULL. After each, the numbers are those of the definition."""
    from workbench.asking.extract import normalize_surface
    from workbench.methods.choice import data
    from workbench.store.review import verdicts as reviews

    conn, _study, _lists = _store_with_lists(tmp_path / "s.db")

    def same(change):
        assert data.choice_metric_records_of(conn) == records_by_definition(conn), change

    same("as stored")
    with conn:
        conn.execute("UPDATE mentions SET surface_key = ? WHERE list_id = 1 AND rank = 1", (normalize_surface("Puma"),))
    same("a mention updated in place")
    from workbench.store.entities import mentions

    mentions.store_lists(conn, 1, [mentions.MentionList("m", "t", "C", "empty", 1, "import", [])])
    same("an answer with no recommendation added")
    with conn:  # (a list with mentions cannot be renumbered: they point at its id)
        conn.execute("UPDATE mention_lists SET id = 100 WHERE question = 'empty'")
    same("a list renumbered")
    conn.execute("BEGIN")
    conn.execute("DELETE FROM mention_lists WHERE id = 3")
    data.choice_metric_records_of(conn)  # read inside the transaction...
    conn.execute("ROLLBACK")  # ...that never happened
    reviews.review(conn, 5, "r", "edit", ["Adidas"])  # the count now where the rolled-back read left it
    same("a read rolled back, then another change")
    from workbench.store.requests import studies

    model = studies.upsert_model(
        conn,
        identity="x",
        spec="openai:x",
        engine="openai",
        name="x",
        base_url=None,
        file_path=None,
        file_hash=None,
        params={},
    )
    insert = (
        "INSERT INTO requests (key, study_id, model_id, stage, status, attempts, payload_json, created_at, "
        "updated_at, superseded) VALUES (?, 1, ?, 'answer', 'done', 1, '{}', 'x', 'x', ?)"
    )
    with conn:
        conn.execute(insert, ("k1", model, 0))
        conn.execute("UPDATE mention_lists SET response_key = 'k1' WHERE id = 1")  # an answer the run asked for
    same("a list tied to its request")
    with conn:
        conn.execute(insert, (None, model, 1))  # SQLite lets a TEXT PRIMARY KEY be NULL
    data._LOADED.clear()
    same("a superseded request without a key")


def test_a_refresh_that_finishes_after_another_patched_the_lists_keeps_its_own_numbers(tmp_path):
    """Two refreshes at once (a newer Metrics worker, or the start-up loading): the first
    builds its log-odds tables after the lock is released, while the second patches the
    same lists with a list in a new cluster. The first still gives the numbers of the
    lists it read, and does not fail."""
    import threading

    from workbench.methods.choice import data
    from workbench.store.db import connect
    from workbench.store.entities import mentions

    path = tmp_path / "s.db"
    conn, study, lists = _store_with_lists(path)
    data.choice_metric_records_of(conn)
    mentions.store_lists(conn, study, lists(["new"], cluster="B"))
    inside, go = threading.Event(), threading.Event()
    real = data.records_of_counts

    def held_back(*args, **kwargs):
        if threading.current_thread().name == "first":
            inside.set()
            go.wait(30)
        return real(*args, **kwargs)

    out = {}

    def first():
        try:
            out["first"] = data.choice_metric_records_of(connect(path))
        except Exception as exc:  # noqa: BLE001 (the failure is what the test looks for)
            out["first"] = exc

    data.records_of_counts = held_back
    try:
        thread = threading.Thread(target=first, name="first")
        thread.start()
        assert inside.wait(30)
        expected = records_by_definition(conn)  # what the first refresh read
        mentions.store_lists(conn, study, lists(["newer"], cluster="A"))
        data.choice_metric_records_of(connect(path))  # the second refresh patches the lists
        go.set()
        thread.join(30)
    finally:
        data.records_of_counts = real
    assert out["first"] == expected
