"""ChoiceEval tables for `workbench metrics`."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from workbench.store import queue
from workbench.tables import fmt_ci, fmt_num, fmt_pair, literal_text, new_table


def print_choice_tables(records: list[dict[str, Any]], console: Console) -> None:
    topic_level = [r for r in records if r.get("cluster") is None]
    table = new_table(title="Preferred entity (PEIR) and direct-recommendation rate")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    table.add_column("preferred entity", overflow="fold")
    for column in ("PEIR [95% CI]", "direct", "n"):
        table.add_column(column, justify="right")
    direct = {(r["model"], r["topic"]): r for r in topic_level if r["metric"] == "direct_recommendation_rate"}
    for r in (r for r in topic_level if r["metric"] == "peir"):
        d = direct.get((r["model"], r["topic"]), {})
        table.add_row(
            literal_text(r["model"]),
            literal_text(r["topic"]),
            literal_text(r["entity"] or "-"),
            fmt_ci(r["value"], r),
            fmt_num(d.get("value")),
            str(r["n"]),
        )
    console.print(table)
    table = new_table(title="Geographic bias: mean log-odds ratio over clusters (t-test against 0)")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    table.add_column("regions")
    for column in ("LOR [95% CI]", "exp", "t", "p", "p Holm", "G"):
        table.add_column(column, justify="right")
    for r in (r for r in topic_level if r["metric"] == "lor"):
        no_regions = r.get("slots_a") == 0 and r.get("slots_b") == 0  # nothing to compare: not "no bias"
        table.add_row(
            literal_text(r["model"]),
            literal_text(r["topic"]),
            literal_text(fmt_pair(r["region_a"], r["region_b"])),
            "n/a (no regions)" if no_regions else fmt_ci(r["mean"], r),
            "n/a" if no_regions else fmt_num(r["exp_mean"]),
            fmt_num(r["t"]),
            fmt_num(r["p"]),
            fmt_num(r.get("p_holm")),
            str(r["n_groups"]),
        )
    console.print(table)
    table = new_table(title="Stability across repetitions (counts of the top-N entities)")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    for column in ("Spearman rho", "pairs", "min p", "K-W H", "p"):
        table.add_column(column, justify="right")
    for key in dict.fromkeys((r["model"], r["topic"]) for r in topic_level):
        rhos = [r for r in topic_level if r["metric"] == "spearman" and (r["model"], r["topic"]) == key]
        kw = next((r for r in topic_level if r["metric"] == "kruskal_wallis" and (r["model"], r["topic"]) == key), {})
        values = [r["value"] for r in rhos if r["value"] is not None]
        ps = [r["p"] for r in rhos if r["p"] is not None]
        if not values:
            rho_text = "n/a"
        elif len(values) == 1:
            rho_text = f"{values[0]:.3f}"
        else:
            rho_text = f"{min(values):.2f}..{max(values):.2f}"
        table.add_row(
            literal_text(key[0]),
            literal_text(key[1]),
            rho_text,
            str(len(rhos)),
            fmt_num(min(ps) if ps else None),
            fmt_num(kw.get("statistic")),
            fmt_num(kw.get("p")),
        )
    console.print(table)


def print_region_hint(conn, study: str | None, console: Console) -> None:
    from workbench.store.mentions import entities_without_region

    missing = entities_without_region(conn, queue.study_id(conn, study) if study else None)
    if missing:
        console.print(
            literal_text(
                f"{len(missing)} mentioned entities have no region yet (e.g. {', '.join(n for n, _ in missing[:3])}); "
                "they count as Unknown in the log-odds. Assign regions with `workbench import entities FILE.csv`."
            ),
            style="dim",
            soft_wrap=True,
        )
