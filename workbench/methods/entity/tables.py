"""Label-probability tables for `workbench metrics`."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from workbench.tables import fmt_interval, fmt_num, literal_text, new_table


def print_entity_tables(records: list[dict[str, Any]], console: Console, top: int = 10) -> None:
    """Label-probability audits: entities ranked by Delta (highest and lowest), macro-F1, groups."""
    conditions = sorted(
        {
            (r["study"], r["model"], r["language"], r["variant"], r["method"])
            for r in records
            if r["metric"] == "entity_delta"
        }
    )
    for study, model, language, variant, method in conditions:
        rows = sorted(
            (
                r
                for r in records
                if r["metric"] == "entity_delta"
                and (r["study"], r["model"], r["language"], r["variant"], r["method"])
                == (study, model, language, variant, method)
            ),
            key=lambda r: -r["value"],
        )
        f1 = next(
            (
                r["value"]
                for r in records
                if r["metric"] == "macro_f1"
                and r["study"] == study
                and r["model"] == model
                and r["language"] == language
                and r["variant"] == variant
            ),
            None,
        )
        table = new_table(
            f"Entity bias Delta · {study} · {model} · {language} · {variant} · {method} "
            f"(macro-F1 {fmt_num(f1)}; + = scored as more desirable)"
        )
        table.add_column("rank", justify="right")
        table.add_column("entity", overflow="fold")
        table.add_column("Delta [95% CI]", justify="right")
        table.add_column("templates", justify="right")
        shown = rows if len(rows) <= 2 * top else rows[:top] + [None] + rows[-top:]
        for rank, r in enumerate(shown, start=1):
            if r is None:
                table.add_row("…", f"({len(rows) - 2 * top} more)", "", "")
                continue
            place = rank if rank <= top or len(rows) <= 2 * top else len(rows) - len(shown) + rank
            table.add_row(
                str(place), literal_text(r["entity"]), f"{r['value']:+.3f} {fmt_interval(r)}".rstrip(), str(r["n"])
            )
        console.print(table)
        groups = [
            r
            for r in records
            if r["metric"] == "group_delta"
            and (r["study"], r["model"], r["language"], r["variant"], r["method"])
            == (study, model, language, variant, method)
        ]
        if groups:
            table = new_table("Groups of entities: mean Delta vs the rest (Mann-Whitney U, Cohen's d)")
            for column in ("attribute", "group", "mean Delta", "n", "p", "d"):
                table.add_column(
                    column, justify="right" if column in ("mean Delta", "n", "p", "d") else "left", overflow="fold"
                )
            for r in groups:
                table.add_row(
                    literal_text(r["attribute"]),
                    literal_text(r["value_label"] or "-"),
                    f"{r['value']:+.3f}",
                    str(r["n"]),
                    fmt_num(r["p"]),
                    fmt_num(r["d"]),
                )
            console.print(table)
    for r in (r for r in records if r["metric"] == "paired_delta"):
        console.print(
            literal_text(
                f"{r['study']} · {r['model']}: {r['between']} {r['condition_a']} vs "
                f"{r['condition_b']}: Wilcoxon p {fmt_num(r['p'])}, paired d {fmt_num(r['d'])} "
                f"(n = {r['n']} entities)"
            )
        )
    for r in (r for r in records if r["metric"] == "delta_pearson"):
        console.print(
            literal_text(
                f"{r['study']} vs {r['study_b']} · {r['model']}: Pearson r of Delta "
                f"{fmt_num(r['r'])} (p {fmt_num(r['p'])}, n = {r['n']})"
            )
        )
