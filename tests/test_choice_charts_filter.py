"""The Metrics screen's ChoiceEval charts under the cluster filter (k): the region shares and
the per-cluster log-odds follow it; the forest plot, which is topic level, says so."""

from __future__ import annotations

from helpers import run_cli

from workbench import methods
from workbench.methods.choice.views import panels
from workbench.store.db import connect


def test_the_charts_follow_the_cluster_filter(tmp_path):
    rows = ["model,topic,cluster,question_id,repetition,rank,entity"]
    for q in range(3):
        for rep in (1, 2):
            rows.append(f"gpt,shoes,Convenience,c{q},{rep},1,Nike")  # Convenience: the United States only
            rows.append(f"gpt,shoes,Convenience,c{q},{rep},2,Puma")
            rows.append(f"gpt,shoes,Budget-Conscious,b{q},{rep},1,Sony")  # Budget-Conscious: Asia only
    (tmp_path / "m.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "e.csv").write_text("name,region\nNike,United States\nPuma,Europe\nSony,Asia\n")
    db = tmp_path / "a.db"
    assert run_cli("import", "mentions", str(tmp_path / "m.csv"), "--db", str(db), "--study", "s").returncode == 0
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    conn = connect(db, False)
    records = methods.metric_records_by_method(conn)["choice"]
    by_id = {p.id: p for p in panels(records, {"topic": "shoes", "cluster": "Budget-Conscious"})}
    region = by_id["region-chart"]
    assert region.title.endswith("· Budget-Conscious")
    legend = region.chart.plain.splitlines()[-1]
    assert "Asia" in legend and "Europe" not in legend and "United States" not in legend
    assert "Convenience" not in by_id["lor-chart"].chart.plain
    assert "topic level, over every cluster (the table gives Budget-Conscious's)" in by_id["lor-forest"].title
    every = {p.id: p for p in panels(records, {"topic": "shoes", "cluster": "all"})}
    assert "Europe" in every["region-chart"].chart.plain.splitlines()[-1]


def test_a_design_effect_under_1_is_shown_as_such_not_as_n_eff_above_n():
    from workbench.methods.choice.views import effective_n

    stratified = {"n": 36, "n_eff": 99.0, "design_effect": 36 / 99, "ci_unit": "question"}
    assert effective_n(stratified) == " · design effect 0.36"
    clustered = {"n": 36, "n_eff": 12.4, "design_effect": 2.9, "ci_unit": "question"}
    assert effective_n(clustered) == " · n_eff 12"
    assert effective_n({**clustered, "ci_unit": "answer"}) == ""
