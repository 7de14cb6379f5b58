"""One number, one value: where the report's paired comparison gives a model's number over the
questions both models answered and the Findings give it over all of that model's questions,
the report says over what each is taken (it read 0.31 in Findings and 0.268 in Paired
comparisons for the same log-odds, unexplained)."""

from __future__ import annotations

import csv
import re

from helpers import run_cli
from test_report_contents import _report

LISTS = {0: ["Nike", "Brooks"], 1: ["Nike", "Adidas"], 2: ["Adidas", "Nike", "Puma"], 3: ["Puma", "Brooks"]}


def _store(tmp_path):
    """gpt answered 12 questions, gemini 10: gemini lacks the first question of two clusters,
    where gpt names United States brands only."""
    rows = [["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"]]
    for model in ("gpt", "gemini"):
        for cluster in ("C1", "C2", "C3"):
            for q in range(4):
                if model == "gemini" and q == 0 and cluster != "C3":
                    continue
                for rep in (1, 2):
                    named = (
                        ["Nike", "Brooks"] if model == "gpt" and q == 0 else LISTS[(q + rep + (model == "gemini")) % 4]
                    )
                    rows += [
                        [model, "running shoes", cluster, f"{cluster}q{q}", rep, rank, e]
                        for rank, e in enumerate(named, 1)
                    ]
    with (tmp_path / "m.csv").open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    (tmp_path / "e.csv").write_text(
        "name,region\nNike,United States\nBrooks,United States\nAdidas,Europe\nPuma,Europe\n"
    )
    db = tmp_path / "p.db"
    assert run_cli("import", "mentions", str(tmp_path / "m.csv"), "--db", str(db), "--study", "s").returncode == 0
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    return db


def test_a_number_that_reads_two_values_says_over_what_each_is_taken(tmp_path):
    page, _text, md = _report(_store(tmp_path), "s", tmp_path)
    findings = page.table("Geographic bias: log-odds ratio")
    gpt_column = findings[0].index("gpt")
    europe = next(row for row in findings if row[1] == "United States vs Europe")[gpt_column]
    in_findings = re.match(r"[-0-9.]+", europe).group(0)
    compared = page.table("gpt (B) - gemini (A)")
    here = next(row for row in compared if row[1] == "log-odds" and row[2] == "United States vs Europe")
    assert in_findings != here[compared[0].index("gpt")][:4]  # two values of one quantity in one report
    both = page.table("gpt (B) - gemini (A): the same number in the Findings and here, over other questions")
    assert both[0] == ["topic", "number", "of", "model", "in the Findings", "here"]
    row = next(r for r in both if r[1] == "log-odds" and r[2] == "United States vs Europe")
    assert row[3] == "gpt (B)"
    assert row[4] == f"{in_findings} over all 12 of its questions (3 of 3 clusters)"
    assert row[5].startswith(here[compared[0].index("gpt")] + " over the 10 questions both models answered")
    assert not any(r[3] == "gemini (A)" for r in both)  # gemini's questions are all paired: one value each
    assert "so they may differ from the Findings, which take each model's numbers over all of its own" in md
    assert "the same number in the Findings and here, over other questions" in md  # the Markdown says it too
