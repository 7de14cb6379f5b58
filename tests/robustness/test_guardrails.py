"""Numbers that cannot be computed read `n/a` with their reason, never as a 0 or a 1 that
looks like a finding; every finding shows what it rests on (n, slots) and its adjusted p.

Each case is a tiny store built through the command line, read back as records
(`workbench metrics --format json`) and as the table a user reads (`workbench metrics`)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from helpers import run_cli

# -- helpers -------------------------------------------------------------------


def write_csv(path: Path, header: list[str], rows: list[list]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def records_of(db: Path, *extra: str) -> list[dict]:
    out = run_cli("metrics", "--db", str(db), "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def table_of(db: Path, *extra: str) -> str:
    """`workbench metrics` as a user reads it, runs of spaces (table padding) made one."""
    out = run_cli("metrics", "--db", str(db), *extra)
    assert out.returncode == 0, out.stderr
    return "\n".join(" ".join(line.split()) for line in out.stdout.splitlines())


def one(records: list[dict], **fields) -> dict:
    found = [r for r in records if all(r.get(k) == v for k, v in fields.items())]
    assert len(found) == 1, (fields, found)
    return found[0]


def import_mentions(tmp_path: Path, db: Path, lists: list[tuple], name: str = "m.csv") -> None:
    """ChoiceEval lists: (cluster, question id, ranked entities[, repetition]), model m, topic shoes."""
    rows = []
    for cluster, question, entities, *rep in lists:
        repetition = rep[0] if rep else 1
        if not entities:
            rows.append(["m", "shoes", cluster, question, repetition, "", ""])
        rows += [["m", "shoes", cluster, question, repetition, r, e] for r, e in enumerate(entities, start=1)]
    path = write_csv(
        tmp_path / name, ["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"], rows
    )
    done = run_cli("import", "mentions", str(path), "--db", str(db), "--study", "shoes")
    assert done.returncode == 0, done.stderr


def import_regions(tmp_path: Path, db: Path, regions: dict[str, str]) -> None:
    path = write_csv(tmp_path / "regions.csv", ["name", "region"], [[n, r] for n, r in regions.items()])
    done = run_cli("import", "entities", str(path), "--db", str(db))
    assert done.returncode == 0, done.stderr


# -- 1. cold-start: a neutral list with no catalog item -------------------------


def coldstart_store(tmp_path: Path, neutral: list[str]) -> Path:
    """Two seeds; the neutral answers are `neutral` (one per seed), a woman's name catalog films."""
    write_csv(tmp_path / "cat.csv", ["title"], [["The Matrix"], ["Oldboy"], ["Amelie"]])
    rows = []
    for seed, answer in enumerate(neutral):
        rows.append(["m", seed, "", "neutral", answer])
        rows.append(["m", seed, "gender", "a woman", "1. The Matrix\n2. Amelie"])
        rows.append(["m", seed, "gender", "a man", "1. Oldboy\n2. The Matrix"])
    path = write_csv(tmp_path / "responses.csv", ["model", "seed", "persona_category", "persona", "response"], rows)
    db = tmp_path / "cs.db"
    done = run_cli(
        "import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", str(db), "--study", "cs"
    )
    assert done.returncode == 0, done.stderr
    return db


def test_divergence_from_a_neutral_list_without_catalog_items_is_na(tmp_path):
    db = coldstart_store(tmp_path, ["1. Some Film Nobody Catalogued\n2. Another One", "I cannot recommend films."])
    for convention in ("paper", "original"):
        records = records_of(db, "--convention", convention)
        for metric in ("iou", "serp", "prag"):
            for persona in ("a woman", "a man"):
                r = one(records, metric=f"{metric}_divergence", persona=persona)
                assert (r["mean"], r["std"], r["ci_low"], r["ci_high"]) == (None, None, None, None)
                assert r["n"] == 0 and r["seeds_without_neutral"] == 2
                assert r["na_reason"] == "the neutral list names no catalog item"
    neutral = one(records_of(db), metric="out_of_catalog_rate", persona="neutral")
    assert neutral["mean"] == 1.0
    table = table_of(db)
    assert "gender: a woman n/a (the neutral list names no catalog item) · out 0%" in table
    assert "1.00 / 1.00 / 1.00" not in table
    assert "neutral (baseline) baseline · out 100% ⚠" in table
    assert "m: the neutral list names no catalog item in every seed: its divergences are n/a" in table
    assert "most of these items are out of the catalog" not in table  # the personas' items are in it
    assert "(every divergence is n/a: see the table)" in table


def test_seeds_whose_neutral_list_names_nothing_are_left_out(tmp_path):
    db = coldstart_store(tmp_path, ["1. The Matrix\n2. Amelie", "Nothing from your list, sorry."])
    r = one(records_of(db), metric="iou_divergence", persona="a woman")
    # seed 0 alone: the woman's list equals the neutral one (divergence 0); seed 1 is left out
    assert (r["mean"], r["n"], r["seeds_without_neutral"]) == (0.0, 1, 1)
    assert r["ci_low"] is None and r["ci_na_reason"] == "1 seed"
    table = table_of(db)
    assert "gender: a woman 0.00 / 0.00 / 0.00 · 1 seed · out 0%" in table
    assert "m: the neutral list names no catalog item in 1 seed(s): those seeds are left out" in table


# -- 2. ChoiceEval log-odds: clusters without slots of both regions ------------

NINE_CLUSTERS = [
    # c1-c4 name Nike (United States) and Adidas (Europe), never Sony (Asia)
    ("c1", "q1", ["Nike", "Adidas"]),
    ("c1", "q2", ["Nike"]),
    ("c1", "q3", ["Nike"]),
    ("c2", "q4", ["Nike", "Adidas"]),
    ("c2", "q5", ["Adidas"]),
    ("c3", "q6", ["Nike"]),
    ("c3", "q7", ["Nike", "Adidas"]),
    ("c4", "q8", ["Adidas", "Nike"]),
    ("c4", "q9", ["Adidas"]),
    # c5-c9: a brand without a region only, so no slot of either region
    *[(f"c{i}", f"q{i + 5}", ["Local Brand"]) for i in range(5, 10)],
]
REGIONS = {"Nike": "United States", "Adidas": "Europe", "Sony": "Asia"}


def test_log_odds_leave_out_clusters_where_a_region_has_no_slot(tmp_path):
    from scipy import stats

    db = tmp_path / "c.db"
    import_mentions(tmp_path, db, NINE_CLUSTERS)
    import_regions(tmp_path, db, REGIONS)
    slots = {"c1": (3, 1), "c2": (1, 2), "c3": (2, 1), "c4": (1, 2)}  # US vs Europe where both have slots
    carried = [math.log((a + 0.5) / (b + 0.5)) for a, b in slots.values()]
    paper = records_of(db)
    europe = one(paper, metric="lor", cluster=None, region_b="Europe")
    expected = stats.ttest_1samp(carried, 0.0)
    assert europe["mean"] == pytest.approx(sum(carried) / 4)
    # the paper's t-test over clusters is kept, apart from the interval's own p
    assert (europe["t_paper"], europe["p_paper"]) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))
    assert (europe["p"] < 0.05) == (europe["ci_low"] > 0 or europe["ci_high"] < 0)
    assert (europe["n_clusters"], europe["n_total"], europe["slots_a"], europe["slots_b"]) == (4, 9, 7, 6)
    for cluster in ("c5", "c9"):
        empty = one(paper, metric="lor", cluster=cluster, region_b="Europe")
        assert empty["value"] is None and empty["na_reason"] == "no slot of either region"
    asia = one(paper, metric="lor", cluster=None, region_b="Asia")
    assert asia["mean"] is None and asia["p"] is None and asia["n_clusters"] == 0
    assert asia["na_reason"] == "no Asia slot: 7 vs 0 slots"
    assert one(paper, metric="lor", cluster="c1", region_b="Asia")["na_reason"] == "no Asia slot: 3 vs 0 slots"

    # The original code's convention: all nine clusters, five of them entering as 0.
    original = records_of(db, "--convention", "original")
    europe = one(original, metric="lor", cluster=None, region_b="Europe")
    everything = carried + [0.0] * 5
    assert europe["mean"] == pytest.approx(sum(everything) / 9)
    assert europe["p_paper"] == pytest.approx(stats.ttest_1samp(everything, 0.0).pvalue)
    assert europe["n_clusters"] == europe["n_total"] == 9
    asia = one(original, metric="lor", cluster=None, region_b="Asia")
    assert asia["mean"] is not None and "na_reason" not in asia

    table = table_of(db)
    holm = one(paper, metric="lor", cluster=None, region_b="Europe")["p_holm"]
    assert f"United States vs Europe {europe_cell(one(paper, metric='lor', cluster=None, region_b='Europe'))}" in table
    assert f"Holm {holm:.3f}; 4 of 9 clusters, 7 vs 6 slots)" in table
    assert "United States vs Asia n/a (no Asia slot: 7 vs 0 slots)" in table


def europe_cell(r: dict) -> str:
    return f"{r['mean']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}] (p {r['p']:.3f}, Holm {r['p_holm']:.3f};"


def test_a_t_test_over_fewer_than_two_clusters_is_na(tmp_path):
    db = tmp_path / "c.db"
    lists = [("c1", "q1", ["Nike", "Adidas"]), ("c1", "q2", ["Nike", "Adidas", "Sony"])]
    lists += [("c2", "q3", ["Nike"]), ("c2", "q4", ["Nike"]), ("c3", "q5", ["Adidas"]), ("c3", "q6", ["Adidas"])]
    import_mentions(tmp_path, db, lists)
    import_regions(tmp_path, db, REGIONS)
    europe = one(records_of(db), metric="lor", cluster=None, region_b="Europe")
    # a mean over one cluster would be that cluster's own log-odds: n/a, with no test or interval
    assert europe["mean"] is None and (europe["t"], europe["p"], europe["ci_low"]) == (None, None, None)
    assert europe["na_reason"] == "only 1 of 3 clusters has slots of both regions"
    assert "p_holm" not in europe or europe["p_holm"] is None
    assert (europe["n_clusters"], europe["n_total"]) == (1, 3)
    assert one(records_of(db), metric="lor", cluster="c1", region_b="Europe")["value"] == 0.0  # shown per cluster
    table = table_of(db)
    assert "United States vs Europe n/a (only 1 of 3 clusters has slots of both regions)" in table


# -- 3. no interval from fewer than two units ----------------------------------


def test_one_answer_has_no_interval(tmp_path):
    db = tmp_path / "c.db"
    import_mentions(tmp_path, db, [("c1", "q1", ["Nike"])])
    import_regions(tmp_path, db, REGIONS)
    # over answers (--ci-unit answer): one answer, nothing to resample
    original = records_of(db, "--convention", "original", "--ci-unit", "answer")
    asia = one(original, metric="lor", cluster=None, region_b="Asia")
    assert asia["mean"] == pytest.approx(math.log(1.5 / 0.5))  # 1.10, as the original code computes it
    assert (asia["ci_low"], asia["ci_high"], asia["ci_na_reason"]) == (None, None, "1 answer")
    peir = one(original, metric="peir", cluster=None)
    assert (peir["value"], peir["n"], peir["ci_low"], peir["ci_na_reason"]) == (1.0, 1, None, "1 answer")
    table = table_of(db, "--convention", "original", "--ci-unit", "answer")
    assert "[1.10, 1.10]" not in table and "[1.00, 1.00]" not in table
    assert "United States vs Asia 1.10 (interval and test n/a: 1 answer; 1 of 1 clusters" in table
    # no interval, and why; no runner-up, and why
    assert "Nike 1.00 (interval n/a: 1 answer) · runner-up n/a (only one entity named) · n 1 · direct 1.00" in table
    # over questions (the default): one question, its spread unknown
    original = records_of(db, "--convention", "original")
    asia = one(original, metric="lor", cluster=None, region_b="Asia")
    assert (asia["ci_low"], asia["ci_na_reason"], asia["ci_unit"]) == (None, "1 question", "question")
    peir = one(original, metric="peir", cluster=None)
    assert (peir["ci_low"], peir["ci_na_reason"], peir["n_eff"], peir["ci_unit"]) == (
        None,
        "1 question",
        None,
        "question",
    )
    table = table_of(db, "--convention", "original")
    assert "Nike 1.00 (interval n/a: 1 question) · runner-up n/a (only one entity named) · n 1 · direct 1.00" in table
    # the paper convention: one US slot against no Asian one is no log-odds at all
    assert "United States vs Asia n/a (no Asia slot: 1 vs 0 slots)" in table_of(db)


# -- 5. why there are no regions ------------------------------------------------


def test_log_odds_without_regions_name_the_cause(tmp_path):
    db = tmp_path / "c.db"
    counts = {"Nike": 12, "Adidas": 9, "Puma": 5, "Asics": 4, "Mizuno": 3, "Brooks": 2}
    names = [name for name, count in counts.items() for _ in range(count)]
    import_mentions(tmp_path, db, [(f"c{i % 2}", f"q{i}", [name]) for i, name in enumerate(names)])
    r = one(records_of(db), metric="lor", cluster=None, region_b="Europe")
    assert r["mean"] is None and r["na_reason"] == "no regions imported"
    table = table_of(db)
    assert "United States vs Europe n/a (no regions imported)" in table and "no regions yet" not in table
    # a region table whose names match none of the extracted ones
    import_regions(tmp_path, db, {"Nike Incorporated": "United States", "Adidas Group": "Europe"})
    reason = (
        "no extracted name has a region: top unmatched names: Nike (12), Adidas (9), Puma (5), Asics (4), Mizuno (3)"
    )
    for record in records_of(db):
        if record["metric"] == "lor":
            assert record.get("mean", record.get("value")) is None and record["na_reason"] == reason
    assert f"United States vs Europe n/a ({reason})" in table_of(db)


# -- 6. every finding with its n and its adjusted p -----------------------------


def test_findings_show_their_n_and_adjusted_p(tmp_path):
    db = tmp_path / "c.db"
    lists = [
        (cluster, f"{cluster}{q}", entities, rep)
        for rep in (1, 2)
        for cluster in ("c1", "c2", "c3")
        for q, entities in enumerate(
            [["Nike", "Adidas"], ["Nike"], ["Nike", "Sony"], ["Adidas", "Sony"]][: 2 + (cluster != "c1") + rep - 1]
        )
    ]
    import_mentions(tmp_path, db, lists)
    import_regions(tmp_path, db, REGIONS)
    records = records_of(db)
    kw = one(records, metric="kruskal_wallis", cluster=None)
    # two repetitions of 2-4 entities: no outcome of the test could reach 0.05, so no p, no family
    assert kw["p"] is None and kw["p_na_reason"].startswith("the smallest p")
    lor = one(records, metric="lor", cluster=None, region_b="Europe")
    assert lor["p"] is not None and lor["p_holm"] >= lor["p"]
    table = table_of(db)
    peir = one(records, metric="peir", cluster=None)
    shown = f"Nike {peir['value']:.2f} [{peir['ci_low']:.2f}, {peir['ci_high']:.2f}] · runner-up "
    assert f"{shown}{peir['runner_up']} {peir['runner_up_value']:.2f} · first in " in table
    assert f"of draws · n {peir['n']} ·" in table
    assert f"(p {lor['p']:.3f}, Holm {lor['p_holm']:.3f}; 3 of 3 clusters," in table
    assert "rho, KW p n/a (the smallest p" in table  # no test that could be a finding: said, not shown


# -- 4. entity x template: a template flat up to float rounding ------------------


def test_label_scores_equal_up_to_rounding_give_delta_zero(tmp_path):
    """Four entities whose label log-probabilities differ by a constant have the same label
    probabilities; normalising them leaves rounding noise (about 1e-16) that standardising
    by its own spread would blow up into deltas of +-1.7. Those templates are flat: Delta 0."""
    from importlib.resources import files

    example = Path(str(files("workbench.assets").joinpath("studies", "entity")))
    labels = {"low_urgency": -0.3, "moderate_urgency": -1.7, "high_urgency": -2.9, "critical_urgency": -4.1}
    offsets = {"France": 0.0, "Japan": -0.142, "Peru": -4.179, "Kenya": -2.164}
    rows = [
        [entity, template, label, repr(logprob + offset)]
        for template in (0, 1)
        for entity, offset in offsets.items()
        for label, logprob in labels.items()
    ]
    path = write_csv(tmp_path / "scores.csv", ["entity", "template_id", "label", "logprob"], rows)
    db = tmp_path / "e.db"
    done = run_cli(
        "import", "scores", str(path), "--db", str(db), "--study", "flat", "--task", str(example / "urgency.task.json")
    )
    assert done.returncode == 0, done.stderr
    deltas = [r for r in records_of(db) if r["metric"] == "entity_delta"]
    assert sorted(r["entity"] for r in deltas) == sorted(offsets)
    assert all(r["value"] == 0.0 and r["n"] == 2 and r["flat_templates"] == 2 for r in deltas)
    table = table_of(db)
    # two templates give no interval (fewer than 3), and never a zero-width one
    assert "Japan +0.000 (n 2, 2 flat)" in table and "[0.00, 0.00]" not in table and "-1.7" not in table
    assert "2 of 2 templates flat (the entities' label scores differ by float rounding only" in table


def test_one_repetition_says_why_there_is_no_stability(tmp_path):
    """A study asked once per question has no stability across repetitions: a record says so
    (n 1, the reason) and the table shows it, instead of an empty table."""
    import json

    from helpers import imported_mentions, run_cli

    db = imported_mentions(tmp_path, [("Nike", 3), ("Adidas", 2)])
    records = json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
    kw = [r for r in records if r["metric"] == "kruskal_wallis" and r["cluster"] is None]
    assert kw == [
        {**kw[0], "statistic": None, "p": None, "n": 1, "na_reason": "one repetition: stability needs two or more"}
    ]
    table = run_cli("metrics", "--db", str(db)).stdout
    assert "KW n/a (one repetition: stability needs two or more)" in table
