"""The report summary's headline effects: ranked by evidence, never by size; an n/a estimate or
one without an interval is no headline; every caveat of its table row comes with it; and a p is
quoted only beside the interval it inverts (never the paper's `p_paper`)."""

from __future__ import annotations

import re

from helpers import run_cli
from test_coldstart import write_responses
from test_report_contents import _report, _section_text

from workbench.report.summary import headline_blocks


def _lor(topic: str, mean: float, low: float | None, high: float | None, **more) -> dict:
    """A log-odds record as `workbench metrics --format json` writes it."""
    return {
        "metric": "lor", "model": "m", "topic": topic, "cluster": None, "region_a": "United States",
        "region_b": "Europe", "mean": mean, "ci_low": low, "ci_high": high, "n_clusters": 9, "n_total": 9,
        "slots_a": 40, "slots_b": 30, **more,
    }  # fmt: skip


def _said(rows: list[dict]) -> list[str]:
    return [block.text for block in headline_blocks(rows)]


def test_headlines_are_ranked_by_evidence_not_by_size():
    """A newcomer's #2 was "+1.14 [-1.05, 3.33] (3 of 9 clusters, 41 vs 3 slots)": the largest
    effects led whatever their intervals. The best-evidenced now lead: the smallest Holm p, then
    the interval farthest from 0 (its nearer end, on the estimate's side)."""
    rows = [
        _lor("wide", 1.14, -1.05, 3.33, p=0.31, p_holm=0.93, n_clusters=3, slots_a=41, slots_b=3),
        _lor("tight", 0.40, 0.21, 0.59, p=0.0001, p_holm=0.0004),
        _lor("negative", -0.62, -0.90, -0.34, p=0.0001, p_holm=0.0004),  # same Holm p, farther from 0
        _lor("middling", 0.55, 0.05, 1.05, p=0.03, p_holm=0.06),
    ]
    said = _said(rows)
    assert "ranked by the Holm-adjusted p, then by how far the interval lies from 0, not by size" in said[0]
    listed = [re.match(r"\d\. m · (\w+):", line).group(1) for line in said[1:]]
    assert listed == ["negative", "tight", "middling"]  # the wide +1.14 is not among the 3


def test_an_estimate_that_is_na_or_has_no_interval_is_no_headline():
    rows = [
        _lor("carried", 0.30, 0.10, 0.50, p=0.004, p_holm=0.008),
        _lor("one cluster", 3.10, None, None, p=None, ci_na_reason="1 of 9 clusters carries it"),
        _lor("na", 2.50, -0.5, 5.5, p=0.2, na_reason="carried by one cluster of several"),
        _lor("untested", 1.90, 0.2, 3.6, p=None, p_na_reason="no test this support allows"),
    ]
    said = " ".join(_said(rows))
    assert "1. m · carried" in said and "2." not in said
    assert "one cluster" not in said and "m · na" not in said and "untested" not in said
    assert "3 without an interval or n/a left out (why: below)" in said
    nothing = " ".join(_said(rows[1:]))
    assert "No estimate of the log-odds between regions has an interval, so none leads this summary" in nothing


def test_a_p_of_another_test_is_never_quoted_beside_the_interval():
    """The demo's summary read "Holm 0.016" and "the 95% interval includes 0" in one sentence
    (the paper's t-test over clusters beside an interval over questions). A p quoted is the
    record's `p` that inverts its interval; `p_paper` is never quoted."""
    disagreeing = _lor("coffee makers", -0.54, -1.34, 0.27, p=0.0006, p_holm=0.005, p_paper=0.0006)
    said = _said([disagreeing])[1]
    assert "0.0006" not in said and "0.005" not in said and "Holm" not in said
    assert "its p is not its interval's test, so not quoted" in said
    assert said.endswith("the 95% interval includes 0, so the data cannot tell this from no effect.")
    paper_only = _lor("kettles", -0.54, -1.34, 0.27, p=0.13, p_holm=0.39, p_paper=0.0004, t_paper=-5.1)
    said = " ".join(_said([paper_only]))
    assert "p 0.130; Holm 0.390" in said and "0.0004" not in said and "-5.1" not in said


def test_a_coldstart_headline_carries_the_warning_its_row_carries(tmp_path):
    """ "IOU 0.94 (2 seeds)" led the summary while its row warned that most of the persona's
    items are outside the catalog; the headline now says so too."""
    (tmp_path / "cat.csv").write_text("title\nAlpha\nBravo\nCharlie\nDelta\n")
    rows = []
    for seed in range(4):
        rows.append(["m", seed, "", "neutral", "1. Alpha\n2. Bravo\n3. Charlie"])
        # 2 of 3 items outside the catalog in every seed
        last = "Delta" if seed % 2 else "Alpha"
        rows.append(["m", seed, "g", "a girl", f"1. Unheard {seed}\n2. Unknown {seed}\n3. {last}"])
        rows.append(["m", seed, "g", "a boy", "1. Alpha\n2. Bravo\n3. " + ("Delta" if seed % 2 else "Charlie")])
    write_responses(tmp_path / "r.csv", rows)
    db = tmp_path / "c.db"
    args = ("import", "responses", str(tmp_path / "r.csv"), "--db", str(db), "--study", "cs")
    assert run_cli(*args, "--catalog", str(tmp_path / "cat.csv")).returncode == 0
    _page, _text, md = _report(db, "cs", tmp_path)
    summary = _section_text(md, "Summary")
    girl = next(line for line in summary.splitlines() if "a girl: IOU divergence" in line)
    assert "warning: 67% of its items are outside the catalog, so the divergence says little about the persona" in girl
    boy = next(line for line in summary.splitlines() if "a boy: IOU divergence" in line)
    assert "warning" not in boy and "outside" not in boy  # every item of the boy's lists is in the catalog
