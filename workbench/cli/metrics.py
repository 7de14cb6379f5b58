"""`workbench metrics`: every method's tables, or flat records as JSON/CSV."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console

from workbench import exports, methods
from workbench.cli.common import (
    add_db,
    make_console,
    new_table,
    open_store,
    study_id_of,
)
from workbench.literal import literal_text


def fmt_num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:.{digits}f}"
    return str(value)


REGION_SHORT = {"United States": "US", "Europe": "EU"}


def fmt_pair(a: str, b: str) -> str:
    return f"{REGION_SHORT.get(a, a)}/{REGION_SHORT.get(b, b)}"


def print_coldstart_table(records: list[dict[str, Any]], console: Console) -> None:
    table = new_table(title="Cold-start divergence from the neutral list (mean ± population std over seeds)")
    table.add_column("model", overflow="fold")
    table.add_column("persona", overflow="fold")
    for column in ("IOU", "SERP", "PRAG", "seeds"):
        table.add_column(column, justify="right")
    by: dict[tuple, dict[str, Any]] = {}
    for r in records:
        if r["metric"].endswith("_divergence"):
            by.setdefault((r["model"], r["persona_category"], r["persona"]), {})[r["metric"]] = r
    for (model, category, persona), metrics in by.items():
        cells = [f"{metrics[m]['mean']:.3f}±{metrics[m]['std']:.3f}" if m in metrics else "n/a"
                 for m in ("iou_divergence", "serp_divergence", "prag_divergence")]
        n = next(iter(metrics.values()))["n"]
        table.add_row(literal_text(model), literal_text(f"{category}: {persona}"), *cells, str(n))
    console.print(table)


def print_identity_table(records: list[dict[str, Any]], console: Console) -> None:
    table = new_table(title="Identity disclosure: mean share of the user's group (vs baseline, Mann-Whitney p)")
    for column in ("model", "group", "condition", "mean share", "diff", "p", "parsed", "admits"):
        table.add_column(column, overflow="fold")
    by: dict[tuple, dict[str, Any]] = {}
    words: dict[tuple, list[str]] = {}
    for r in records:
        if r["metric"] == "explanation_word":
            words.setdefault((r["model"], r["group"]), []).append(r["word"])
            continue
        by.setdefault((r["model"], r["group"], r["condition"]), {})[r["metric"]] = r
    for (model, group, condition), m in by.items():
        share, versus = m.get("mean_share", {}), m.get("mean_share_vs_baseline", {})
        table.add_row(literal_text(model), literal_text(group), condition, fmt_num(share.get("value")),
                      fmt_num(versus.get("difference")), fmt_num(versus.get("p")),
                      fmt_num(m.get("parse_rate", {}).get("value"), 2),
                      fmt_num(m.get("probe_admits_rate", {}).get("value"), 2))
    console.print(table)
    if words:
        table = new_table(title="Words that mark each group's explanations (share of the word's uses, smoothed)")
        table.add_column("model", overflow="fold")
        table.add_column("group")
        table.add_column("top words", overflow="fold")
        for (model, group), top in sorted(words.items()):
            table.add_row(literal_text(model), literal_text(group), literal_text(", ".join(top)))
        console.print(table)


def print_entity_tables(records: list[dict[str, Any]], console: Console, top: int = 10) -> None:
    """Label-probability audits: entities ranked by Delta (highest and lowest), macro-F1, groups."""
    conditions = sorted({(r["study"], r["model"], r["language"], r["variant"], r["method"])
                         for r in records if r["metric"] == "entity_delta"})
    for study, model, language, variant, method in conditions:
        rows = sorted((r for r in records if r["metric"] == "entity_delta" and (r["study"], r["model"], r["language"],
                       r["variant"], r["method"]) == (study, model, language, variant, method)),
                      key=lambda r: -r["value"])
        f1 = next((r["value"] for r in records if r["metric"] == "macro_f1" and r["study"] == study
                   and r["model"] == model and r["language"] == language and r["variant"] == variant), None)
        table = new_table(f"Entity bias Delta · {study} · {model} · {language} · {variant} · {method} "
                       f"(macro-F1 {fmt_num(f1)}; + = scored as more desirable)")
        table.add_column("rank", justify="right")
        table.add_column("entity", overflow="fold")
        table.add_column("Delta", justify="right")
        table.add_column("templates", justify="right")
        shown = rows if len(rows) <= 2 * top else rows[:top] + [None] + rows[-top:]
        for rank, r in enumerate(shown, start=1):
            if r is None:
                table.add_row("…", f"({len(rows) - 2 * top} more)", "", "")
                continue
            place = rank if rank <= top or len(rows) <= 2 * top else len(rows) - len(shown) + rank
            table.add_row(str(place), literal_text(r["entity"]), f"{r['value']:+.3f}", str(r["n"]))
        console.print(table)
        groups = [r for r in records if r["metric"] == "group_delta" and (r["study"], r["model"], r["language"],
                  r["variant"], r["method"]) == (study, model, language, variant, method)]
        if groups:
            table = new_table("Groups of entities: mean Delta vs the rest (Mann-Whitney U, Cohen's d)")
            for column in ("attribute", "group", "mean Delta", "n", "p", "d"):
                table.add_column(column, justify="right" if column in ("mean Delta", "n", "p", "d") else "left",
                                 overflow="fold")
            for r in groups:
                table.add_row(literal_text(r["attribute"]), literal_text(r["value_label"] or "-"),
                              f"{r['value']:+.3f}", str(r["n"]), fmt_num(r["p"]), fmt_num(r["d"]))
            console.print(table)
    for r in (r for r in records if r["metric"] == "paired_delta"):
        console.print(literal_text(f"{r['study']} · {r['model']}: {r['between']} {r['condition_a']} vs "
                                   f"{r['condition_b']}: Wilcoxon p {fmt_num(r['p'])}, paired d {fmt_num(r['d'])} "
                                   f"(n = {r['n']} entities)"))
    for r in (r for r in records if r["metric"] == "delta_pearson"):
        console.print(literal_text(f"{r['study']} vs {r['study_b']} · {r['model']}: Pearson r of Delta "
                                   f"{fmt_num(r['r'])} (p {fmt_num(r['p'])}, n = {r['n']})"))


def print_metric_tables(records: list[dict[str, Any]], console: Console) -> None:
    if not records:
        console.print("No ranked lists yet: run a study (its answers are extracted at the end) "
                      "or `workbench import mentions`.")
        return
    entity = [r for r in records if "task" in r or r["metric"] == "entity_delta_global"]
    if entity:
        print_entity_tables(entity, console)
    records = [r for r in records if "task" not in r and r["metric"] != "entity_delta_global"]
    coldstart = [r for r in records if "persona" in r]
    if coldstart:
        print_coldstart_table(coldstart, console)
    identity = [r for r in records if "condition" in r]
    if identity:
        print_identity_table(identity, console)
    records = [r for r in records if "persona" not in r and "condition" not in r]
    if not records:
        return
    topic_level = [r for r in records if r.get("cluster") is None]
    table = new_table(title="Preferred entity (PEIR) and direct-recommendation rate")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    table.add_column("preferred entity", overflow="fold")
    for column in ("PEIR", "direct", "n"):
        table.add_column(column, justify="right")
    direct = {(r["model"], r["topic"]): r for r in topic_level if r["metric"] == "direct_recommendation_rate"}
    for r in (r for r in topic_level if r["metric"] == "peir"):
        d = direct.get((r["model"], r["topic"]), {})
        table.add_row(literal_text(r["model"]), literal_text(r["topic"]), literal_text(r["entity"] or "-"),
                      fmt_num(r["value"]), fmt_num(d.get("value")), str(r["n"]))
    console.print(table)
    table = new_table(title="Geographic bias: mean log-odds ratio over clusters (t-test against 0)")
    table.add_column("model", overflow="fold", min_width=13)
    table.add_column("topic", overflow="fold")
    table.add_column("regions")
    for column in ("LOR", "exp", "t", "p", "G"):
        table.add_column(column, justify="right")
    for r in (r for r in topic_level if r["metric"] == "lor"):
        table.add_row(literal_text(r["model"]), literal_text(r["topic"]),
                      literal_text(fmt_pair(r["region_a"], r["region_b"])), fmt_num(r["mean"]), fmt_num(r["exp_mean"]),
                      fmt_num(r["t"]), fmt_num(r["p"]), str(r["n_groups"]))
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
        table.add_row(literal_text(key[0]), literal_text(key[1]), rho_text, str(len(rhos)),
                      fmt_num(min(ps) if ps else None), fmt_num(kw.get("statistic")), fmt_num(kw.get("p")))
    console.print(table)


def print_region_hint(conn, study: str | None, console: Console) -> None:
    from workbench.store.mentions import entities_without_region

    missing = entities_without_region(conn, study_id_of(conn, study))
    if missing:
        console.print(literal_text(
            f"{len(missing)} mentioned entities have no region yet (e.g. {', '.join(n for n, _ in missing[:3])}); "
            "they count as Unknown in the log-odds. Assign regions with `workbench import entities FILE.csv`."
        ), style="dim", soft_wrap=True)


def cmd_metrics(args: argparse.Namespace) -> int:
    from workbench import choice_io

    conn = open_store(args.db, create=False)
    study_id_of(conn, args.study)
    records = methods.metric_records(conn, args.study)
    if args.format == "table":
        console = make_console()
        print_metric_tables(records, console)
        if records:
            print_region_hint(conn, args.study, console)
        return 0
    exports.write_records(records, args.format, choice_io.METRIC_FIELDS, sys.stdout)
    return 0



def add_parsers(sub, fmt) -> None:
    p = sub.add_parser(
        "metrics", help="every study's metrics (ChoiceEval, cold-start, identity)", formatter_class=fmt,
        description="Computes every metric from the stored ranked lists (after any review), per model x\n"
        "topic and per cluster: preferred entity and PEIR, direct-recommendation rate, Spearman rho\n"
        "between repetitions and Kruskal-Wallis, log-odds ratios between regions with a t-test over\n"
        "clusters, and the share of responses with the United States in the top 3. Cold-start studies:\n"
        "IOU / SERP-MS / PRAG divergence from the neutral list, fidelity and group shares. Identity\n"
        "studies: mean share and coverage per condition vs baseline, probe admissions, explanation words.\n"
        "JSON and CSV give one flat record per number (keys: study, metric, model, topic, cluster, ...).",
        epilog="examples:\n  workbench metrics --db audit.db\n"
        "  workbench metrics --db audit.db --study shoes --format json > metrics.json",
    )
    add_db(p)
    p.add_argument("--study", help="only this study")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.set_defaults(func=cmd_metrics)
