"""Every surface names what an interval resamples: the terminal tables, JSON and CSV records,
the Markdown export and the HTML report; `--ci-unit answer` says "these questions only"."""

from __future__ import annotations

import csv
import io
import json

from helpers import run_cli

QUESTIONS = "95% intervals: questions resampled (all repetitions of each together)"
ANSWERS = "95% intervals: answers resampled: these questions only"


def words(text: str) -> str:
    """The text as a reader takes it in: runs of spaces and line breaks (wrapping) made one."""
    return " ".join(text.split())


def test_tables_name_the_unit_of_their_intervals(metrics_db):
    default = run_cli("metrics", "--db", str(metrics_db))
    assert default.returncode == 0, default.stderr
    text = words(default.stdout)
    assert f"Preferred entity (PEIR) · direct-recommendation rate · {QUESTIONS}" in text
    assert f"Geographic bias: log-odds ratio (mean over clusters, t-test p) · {QUESTIONS}" in text
    answers = words(run_cli("metrics", "--db", str(metrics_db), "--ci-unit", "answer").stdout)
    assert f"Preferred entity (PEIR) · direct-recommendation rate · {ANSWERS}" in answers and QUESTIONS not in answers


def test_records_carry_the_unit_and_the_effective_n(metrics_db):
    def records(*extra: str) -> list[dict]:
        out = run_cli("metrics", "--db", str(metrics_db), "--format", "json", *extra)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    default, answers = records(), records("--ci-unit", "answer")
    with_interval = [r for r in default if "ci_low" in r]
    assert with_interval and all("ci_unit" in r for r in with_interval)
    shares = [r for r in default if r["metric"] in ("peir", "direct_recommendation_rate")]
    assert {r["ci_unit"] for r in shares} == {"question"} and all("n_eff" in r for r in shares)
    # n counts answers: 6 questions (2 clusters x 3), each asked twice
    direct = next(r for r in default if r["metric"] == "direct_recommendation_rate" and r["cluster"] is None)
    assert direct["n"] == 12
    assert {r["ci_unit"] for r in answers if r["metric"] in ("peir", "lor") and "ci_low" in r} == {"answer"}
    assert all(r["n_eff"] == r["n"] for r in answers if r["metric"] == "peir")
    table = run_cli("metrics", "--db", str(metrics_db), "--format", "csv")
    header = next(csv.reader(io.StringIO(table.stdout)))
    assert {"ci_unit", "n_eff", "design_effect"} <= set(header)


def test_the_markdown_export_and_the_report_name_the_unit(metrics_db, tmp_path):
    exported = tmp_path / "metrics.md"
    done = run_cli(
        "export", "--db", str(metrics_db), "--what", "metrics", "--format", "md", "--ci-unit", "answer", "-o", exported
    )
    assert done.returncode == 0, done.stderr
    assert ANSWERS in words(exported.read_text())
    report = tmp_path / "report.html"
    done = run_cli("report", "--db", str(metrics_db), "--study", "ext", "-o", str(report))
    assert done.returncode == 0, done.stderr
    assert QUESTIONS in words(report.read_text())
