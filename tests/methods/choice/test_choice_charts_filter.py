"""The Metrics screen's ChoiceEval panels under the topic (t) and cluster (k) filters: every
table, chart, the n/a note and the export follow them or say what they cover (the forest plot,
which is topic level, says so); a chart over several topics says it averages them."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

from helpers import on_screen, run_cli, table_text, wait_for

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
    assert "· topic shoes · cluster Budget-Conscious only" in region.title
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


def test_every_panel_and_the_export_follow_the_filters_by_keys(metrics_db):
    """With a cluster picked, the log-odds table showed that cluster's values under "mean over
    clusters, t-test p", the forest below kept the all-cluster value, and the n/a note and the
    `e` export covered every topic and cluster. Now each panel names what it covers, the n/a note
    counts the numbers on view, and the export writes those records only."""
    from workbench.app import WorkbenchApp

    def title(app, panel: str) -> str:
        return str(app.screen.query_one(f"#{panel}-title").render())

    seen = {}

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            # two topics, no topic picked: the per-cluster chart and the region chart average them, and say so
            assert "each bar the mean over the topics that give its cluster a value (2 topics)" in title(
                app, "lor-chart"
            )
            assert "each bar the mean of the 2 topics' shares" in title(app, "region-chart")
            assert "mean over clusters, t-test p" in title(app, "lor-table")
            seen["every"] = table_text(app, "#choice-na")
            await pilot.press("t", "k")  # topic: phones, cluster: Budget-Conscious
            assert await wait_for(pilot, lambda: "cluster Budget-Conscious" in title(app, "lor-table"))
            lor = title(app, "lor-table")
            assert "of cluster Budget-Conscious only, from its slots (no interval or test" in lor
            assert "mean over clusters, t-test p" not in lor  # the table holds one cluster's values
            assert all("p " not in cell for row in table_text(app, "#lor-table") for cell in row[2:])
            forest = title(app, "lor-forest")
            assert (
                "topic phones" in forest
                and "topic level, over every cluster (the table gives Budget-Conscious's)" in forest
            )
            for panel in ("peir-table", "region-table", "stability-table", "region-chart", "lor-chart"):
                assert "topic phones · cluster Budget-Conscious only" in title(app, panel), panel
            assert "(2 topics)" not in title(app, "lor-chart")
            assert title(app, "choice-na").endswith("(only topic phones, cluster Budget-Conscious)")
            seen["filtered"] = table_text(app, "#choice-na")
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")
            await pilot.press("enter")
            base = metrics_db.with_suffix("")
            assert await wait_for(pilot, lambda: Path(f"{base}.metrics.md").exists())

    asyncio.run(scenario())
    # the n/a note counts the numbers of topic phones and cluster Budget-Conscious only
    from workbench.display.na_reasons import find

    def reason(cell: str) -> str:  # the catalog's reason of a row's texts (the first one names it)
        first = cell.split("; ")[0]
        return found.key if (found := find(first)) else first

    every = {reason(row[0]): int(row[1]) for row in seen["every"]}
    filtered = {reason(row[0]): int(row[1]) for row in seen["filtered"]}
    assert filtered.keys() <= every.keys() and all(filtered[k] < every[k] for k in filtered)
    base = metrics_db.with_suffix("")
    records = json.loads(Path(f"{base}.metrics.json").read_text())
    assert records and all(r["topic"] == "phones" and r["cluster"] == "Budget-Conscious" for r in records)
    with Path(f"{base}.metrics.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == len(records)
    written = Path(f"{base}.metrics.md").read_text()
    conn = connect(metrics_db, False)
    total = len(methods.metric_records_by_method(conn)["choice"])
    assert f"the {len(records)} of the {total} records in the .csv and .json beside this file" in written
    assert "**Topic:** phones" in written and "**Cluster:** Budget-Conscious" in written
    assert "(only topic phones, cluster Budget-Conscious)" in written  # the n/a note as on screen
