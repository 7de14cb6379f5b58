"""Support before display (docs/methods.md, "Minimum support"): each number below its minimum
support is n/a with its reason in `workbench metrics --format json`, out of the Holm family and
of the charts; no interval from finite data is zero-width; a p beside an interval is the test
the interval inverts. Stores are made with the command line (tests/na_causes.py's builders)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import run_cli
from na_causes import coldstart, lists, scored, scores

from workbench.display.metric_views import Forest, forest_text


def _records(db, *args: str) -> list[dict]:
    done = run_cli("metrics", "--db", str(db), "--study", "s", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _text(db) -> str:
    done = run_cli("metrics", "--db", str(db), "--study", "s", env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def _no_zero_width(records: list[dict]) -> None:
    widths = [r for r in records if r.get("ci_low") is not None and r["ci_low"] == r.get("ci_high")]
    assert widths == []


def test_one_seed_has_no_standard_deviation(tmp_path):
    """'± 0.00 (n 1)' read as agreement between seeds; one seed has no spread to give."""
    db = coldstart(tmp_path, ["1. The Matrix\n2. Amelie"])
    records = _records(db)
    spread = [r for r in records if "std" in r and r.get("mean") is not None]
    assert spread and all(r["std"] is None and r["std_na_reason"] == "1 seed" for r in spread)
    assert "± 0.00" not in _text(db)


def test_two_seeds_give_a_standard_deviation_but_no_interval(tmp_path):
    """Two seeds' percentile interval was their range ([0.00, 0.50] from 0 and 0.5)."""
    db = coldstart(tmp_path, ["1. The Matrix\n2. Amelie", "1. Amelie"])
    divergences = [r for r in _records(db) if r["metric"].endswith("_divergence") and r["mean"] is not None]
    assert divergences and all(r["std"] is not None for r in divergences)
    assert all(r["ci_low"] is None and r["ci_na_reason"] == "2 seeds, fewer than 3" for r in divergences)


def test_three_seeds_give_an_interval_and_identical_seeds_none(tmp_path):
    """From 3 seeds Student's t; seeds that agree exactly leave no spread: n/a, never [x, x]."""
    (tmp_path / "a").mkdir()
    varied = coldstart(tmp_path / "a", ["1. The Matrix\n2. Amelie", "1. Amelie", "1. Oldboy"])
    records = [r for r in _records(varied) if r["metric"] == "iou_divergence" and r["persona"] == "a woman"]
    (woman,) = records
    assert 0 <= woman["ci_low"] < woman["mean"] < woman["ci_high"] <= 1
    (tmp_path / "b").mkdir()
    same = coldstart(tmp_path / "b", ["1. The Matrix\n2. Amelie"] * 3)
    records = _records(same)
    _no_zero_width(records)
    agreed = [r for r in records if r["metric"].endswith("_divergence")]
    assert agreed and all(r["ci_na_reason"] == "every seed gives the same value" for r in agreed)


def test_two_templates_give_delta_without_an_interval(tmp_path):
    records = _records(scores(tmp_path, scored(templates=2)))
    deltas = [r for r in records if r["metric"] == "entity_delta"]
    assert deltas and all(r["ci_low"] is None and r["ci_na_reason"] == "2 templates, fewer than 3" for r in deltas)
    _no_zero_width(records)


def test_a_group_of_one_entity_has_no_p_and_no_place_in_the_holm_family(tmp_path):
    """Mann-Whitney of 1 entity against 3 can give 0.5 at best: p n/a with the floor, not 'p 0.5'."""
    continents = {"France": "Europe", "Japan": "Europe", "Peru": "America", "Kenya": "Africa"}
    records = _records(scores(tmp_path, scored(templates=3), entities=continents))
    groups = {r["value_label"]: r for r in records if r["metric"] == "group_delta"}
    for single in ("America", "Africa"):
        assert groups[single]["p"] is None and groups[single].get("p_holm") is None
        assert groups[single]["p_na_reason"] == "the smallest p Mann-Whitney could give with 1 vs 3 entities is 0.500"
    # 2 against 2: 2 / C(4, 2) = 0.33 at best, n/a as well
    assert groups["Europe"]["p_na_reason"].startswith("the smallest p Mann-Whitney could give with 2 vs 2")


def test_spearman_of_three_entities_is_na(tmp_path):
    """Three entities ranked: rho is 1 by chance a sixth of the time (p 0.33 at best), though
    Student's t would give p 0."""
    rows = [("A", f"A{q}", r, ["Nike", "Puma", "Adidas"][: 1 + (q + r) % 3]) for q in range(4) for r in (1, 2)]
    records = _records(lists(tmp_path, rows))
    rhos = [r for r in records if r["metric"] == "spearman"]
    assert rhos and all(r["value"] is None and r["p"] is None for r in rhos)
    assert {r["na_reason"] for r in rhos} == {"the smallest p Spearman could give with 3 entities is 0.333"}
    kw = [r for r in records if r["metric"] == "kruskal_wallis"]
    assert kw and all(r["p"] is None and r.get("p_holm") is None and "Kruskal-Wallis" in r["p_na_reason"] for r in kw)


def test_identity_difference_p_inverts_its_interval():
    """p < 0.05 exactly when the 95 % interval leaves out 0, over many simulated cells whose
    gap runs from none to large (the p is the BCa interval's own test)."""
    from workbench.methods.identity.intervals import difference_fields

    rng = np.random.default_rng(5)
    agree = found = 0
    for case in range(120):
        shift = (case % 12) * 0.01
        cell = [float(x) for x in rng.beta(2, 6, 10) + shift]
        base = [float(x) for x in rng.beta(2, 6, 10)]
        fields = difference_fields(([f"a{i}" for i in range(10)], cell), ([f"b{i}" for i in range(10)], base))
        excludes = fields["ci_low"] > 0 or fields["ci_high"] < 0
        agree += excludes == (fields["p"] < 0.05)
        found += excludes
    assert agree == 120 and 10 < found < 110  # both verdicts occur


def test_forest_draws_and_scales_supported_rows_only():
    """An n/a row (no interval) is not drawn and does not set the axis."""
    forest = Forest(
        labels=["shoes · Europe", "phones · Asia"],
        values=[0.5, 0.0],
        lows=[0.2, None],
        highs=[0.8, None],
    )
    chart = forest_text(forest).plain
    assert "shoes · Europe" in chart and "phones · Asia" not in chart
    assert forest.supported().labels == ["shoes · Europe"]
    nothing = Forest(labels=["phones · Asia"], values=[0.0], lows=[None], highs=[None])
    assert "no estimate here has an interval" in forest_text(nothing).plain


@pytest.mark.parametrize("seeds", [1, 2])
def test_coldstart_plot_leaves_out_rows_without_support(tmp_path, seeds):
    from workbench.methods.coldstart.views import panels
    from workbench.methods.registry import get

    db = coldstart(tmp_path, ["1. The Matrix\n2. Amelie", "1. Amelie"][:seeds])
    from workbench.store.db import opened

    with opened(db) as conn:
        records = get("coldstart").metric_records(conn, "s")
    chart = next(p for p in panels(records, {"divergence": "iou"}) if p.id == "coldstart-chart")
    # one seed: no std to draw, so each divergence is a dot without a bar; two: a bar each
    assert chart.plot is not None and len(chart.plot.values) == 2
    drawn = [low is not None for low in chart.plot.lows]
    assert drawn == [seeds == 2] * 2
