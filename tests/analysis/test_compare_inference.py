"""`workbench compare` gives one inference per difference: its p and its 95 % interval come
from one test (p < 0.05 exactly when the interval leaves out 0), no interval is zero-width,
a tie for A's favourite is named, only findings enter the Holm family, and questions only one
model answered are counted and warned of. Simulated studies (seeded, binomial bands) measure
the false-positive rate and the power at the bundled demo's design and at 3 clusters."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from compare_simulation import agrees, compared, tally
from helpers import run_cli, write_mentions

from workbench.analysis.compare import paired_units
from workbench.metrics.intervals import holm, resampling

PAIR = ("--study", "s", "--models", "gpt", "gemini")


def _band(cells: int, chance: float, sds: float = 3.5) -> tuple[float, float]:
    """Where a Binomial(cells, chance) count lies: its mean +- `sds` standard deviations."""
    sd = (cells * chance * (1 - chance)) ** 0.5
    return cells * chance - sds * sd, cells * chance + sds * sd


def _store(tmp_path, rows, regions: dict[str, str] | None = None):
    """A store of study s from (model, cluster, question, repetition, entities) rows."""
    path = tmp_path / "lists.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model, cluster, question, rep, entities in rows:
            for rank, entity in enumerate(entities, 1):
                writer.writerow([model, "shoes", cluster, question, rep, rank, entity])
            if not entities:
                writer.writerow([model, "shoes", cluster, question, rep, "", ""])
    db = tmp_path / "audit.db"
    assert run_cli("import", "mentions", path, "--db", db, "--study", "s").returncode == 0
    if regions:
        (tmp_path / "e.csv").write_text("name,region\n" + "".join(f"{k},{v}\n" for k, v in regions.items()))
        assert run_cli("import", "entities", tmp_path / "e.csv", "--db", db).returncode == 0
    return db


def _records(db, *args: str) -> list[dict]:
    out = run_cli("compare", "--db", db, *(args or PAIR), "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _tied(tmp_path):
    """gpt names Adidas and Nike in one answer of each question, Puma in the other (each 0.50);
    gemini names Nike in every answer."""
    rows = []
    for q in range(6):
        cluster = "C1" if q < 3 else "C2"
        rows += [("gpt", cluster, f"q{q}", 1, ["Adidas", "Nike"]), ("gpt", cluster, f"q{q}", 2, ["Puma"])]
        rows += [("gemini", cluster, f"q{q}", rep, ["Nike"]) for rep in (1, 2)]
    return _store(tmp_path, rows)


def test_a_tie_for_a_s_favourite_is_named_and_each_tied_entity_compared(tmp_path):
    """A's favourites tied at 0.50 (Adidas, Nike, Puma): each gets its PEIR row, `tied_with`
    naming the others, in JSON and in the table; none reads as A's favourite alone."""
    records = [r for r in _records(_tied(tmp_path)) if r["metric"] == "peir"]
    assert [(r["entity"], r["tied_with"], r["value_a"], r["value_b"]) for r in records] == [
        ("Adidas", ["Nike", "Puma"], 0.5, 0.0),
        ("Nike", ["Adidas", "Puma"], 0.5, 1.0),
        ("Puma", ["Adidas", "Nike"], 0.5, 0.0),
    ]
    assert all(agrees(r) for r in records)
    table = run_cli("compare", "--db", tmp_path / "audit.db", *PAIR, env={"COLUMNS": "140"})
    assert "PEIR (A's e*) · Adidas (tied with Nike, Puma)" in table.stdout
    assert "PEIR (A's e*) · Nike (tied with Adidas, Puma)" in table.stdout


def test_no_difference_has_a_zero_width_interval(tmp_path):
    """gpt names Nike in every answer, gemini never: every resample's difference is -1, and
    an interval of [-1, -1] would claim certainty 12 answers per model cannot give. Newcombe's
    interval from each model's 12 answers instead, and the p that inverts it."""
    db = tmp_path / "a.db"
    assert run_cli("import", "mentions", write_mentions(tmp_path / "m.csv"), "--db", db, "--study", "s").returncode == 0
    records = _records(db)
    for r in records:
        if r["ci_low"] is not None:
            assert r["ci_low"] < r["ci_high"], r
            assert agrees(r), r
    peir = next(r for r in records if r["metric"] == "peir" and r["topic"] == "shoes")
    assert (peir["value_a"], peir["value_b"], peir["ci_low"]) == (1.0, 0.0, -1.0)
    assert -0.9 < peir["ci_high"] < -0.2 and peir["p"] < 0.05
    direct = next(r for r in records if r["metric"] == "direct_recommendation_rate" and r["topic"] == "shoes")
    assert direct["difference"] == 0 and direct["ci_low"] < -0.2 and direct["ci_high"] > 0.2 and direct["p"] == 1.0
    # Units paired one to one with the same difference on every one: no spread to read, n/a.
    rows = np.array([[1, 0.2], [1, 0.4], [1, 0.3]])
    same = paired_units({}, rows, rows, "prompt")
    assert same["ci_low"] is None and same["p"] is None
    assert same["ci_na_reason"] == same["p_na_reason"] == "B - A is the same on every prompt"


def test_only_findings_enter_the_holm_family(tmp_path):
    """No region imported: one region-share record, n/a with its reason (not "Unknown" at 1.0
    for both, p 1, per topic), and the n/a records carry no p and stay out of the family."""
    db = tmp_path / "a.db"
    assert run_cli("import", "mentions", write_mentions(tmp_path / "m.csv"), "--db", db, "--study", "s").returncode == 0
    records = _records(db)
    shares = [r for r in records if r["metric"] == "region_share"]
    assert [(r["topic"], r["region"], r["na_reason"], r["p"]) for r in shares] == [
        ("phones", None, "no entity named has a region", None),
        ("shoes", None, "no entity named has a region", None),
    ]
    tested = [r for r in records if r["p"] is not None]
    assert {r["metric"] for r in tested} == {"peir", "direct_recommendation_rate"}
    assert [r["p_holm"] for r in tested] == holm([r["p"] for r in tested])
    assert all("p_holm" not in r for r in records if r["p"] is None)


def test_questions_only_one_model_answered_are_counted_and_warned_of(tmp_path):
    """gpt answered q0-q5, gemini q0-q3 and q9: 2 questions only A answered, 1 only B; the
    difference is over the 4 both answered, and the table and stderr say so in one line."""
    rows = [
        ("gpt", f"C{q % 2}", f"q{q}", rep, ["Nike"] if (q + rep) % 2 else ["Puma"]) for q in range(6) for rep in (1, 2)
    ]
    rows += [("gemini", f"C{q % 2}", f"q{q}", rep, ["Nike"]) for q in (0, 1, 2, 3, 9) for rep in (1, 2)]
    db = _store(tmp_path, rows)
    records = _records(db)
    assert {(r["n_questions"], r["questions_only_a"], r["questions_only_b"]) for r in records} == {(4, 2, 1)}
    warning = "questions one model answered are left out (shoes: 2 only by gpt, 1 only by gemini)"
    out = run_cli("compare", "--db", db, *PAIR, "--format", "json")
    assert out.stderr.strip().startswith("warning: " + warning)
    table = run_cli("compare", "--db", db, *PAIR, env={"COLUMNS": "200"})
    assert warning in " ".join(table.stdout.split())


def _store_records(tmp_path) -> list[dict]:
    """Every record `workbench compare` gives over the test stores: two models with and without
    regions, a tie, a cluster of one question, questions only one model answered."""
    out = []
    for name, regions in (
        ("plain", None),
        ("regions", {"Nike": "United States", "Adidas": "Europe", "Puma": "Europe"}),
    ):
        (tmp_path / name).mkdir()
        db = tmp_path / name / "a.db"
        assert (
            run_cli(
                "import", "mentions", write_mentions(tmp_path / name / "m.csv"), "--db", db, "--study", "s"
            ).returncode
            == 0
        )
        if regions:
            (tmp_path / name / "e.csv").write_text("name,region\n" + "".join(f"{k},{v}\n" for k, v in regions.items()))
            assert run_cli("import", "entities", tmp_path / name / "e.csv", "--db", db).returncode == 0
        out += _records(db) + _records(db, "--study", "s", "--models", "gemini", "gpt")
    (tmp_path / "tie").mkdir()
    out += _records(_tied(tmp_path / "tie"))
    (tmp_path / "one").mkdir()
    rows = [
        (m, c, f"{c}{q}", rep, e)
        for m, e in (("gpt", ["Nike", "Puma"]), ("gemini", ["Puma"]))
        for c, n in (("A", 3), ("B", 1))
        for q in range(n)
        for rep in (1, 2)
    ]
    out += _records(_store(tmp_path / "one", rows, {"Nike": "United States", "Puma": "Europe"}))
    return out


def test_p_and_the_interval_agree_on_every_record(tmp_path):
    """Wherever a record carries p and a 95 % interval, p < 0.05 exactly when the interval
    leaves out 0; a record with no interval has no p. Over every record of the test stores and
    of 300 simulated studies at each of 3 clusters x 2 questions x 5 repetitions and the demo's
    9 x 2 x 2, with and without a difference (the sign-flip p disagreed with its interval on 57
    to 132 records of 1,000 such studies), and 200 comparisons of 10 prompts."""
    records = _store_records(tmp_path)
    # a cluster of one question ("one" store's B) is pooled with A for the spread: its records
    # have intervals, as `workbench metrics` gives them (collapsed strata)
    assert not any(r.get("ci_na_reason", "").startswith("1 question in") for r in records)
    assert all(r["p"] is None and r["p_na_reason"] == r["ci_na_reason"] for r in records if r.get("ci_na_reason"))
    assert sum(r["p"] is not None for r in records) >= 20
    rng = np.random.default_rng(20260601)
    with resampling(200):
        for design in ((3, 2, 5), (9, 2, 2)):
            for shift in (0.0, 0.10):
                records += [r for _ in range(300) for r in compared(rng, *design, shift)]
        for _ in range(200):
            rows_a = np.stack([np.ones(10), rng.beta(2, 5, 10)], axis=1)
            rows_b = rows_a + np.stack([np.zeros(10), rng.normal(0.05, 0.1, 10)], axis=1)
            records.append(paired_units({}, rows_a, rows_b, "prompt"))
    disagree = [r for r in records if not agrees(r)]
    assert not disagree, disagree[:3]


@pytest.mark.parametrize(
    ("design", "studies", "power"),
    # power: bench/bench_compare_coverage.py --design 3x2x5 --design 9x2x2 --sims 4000 --shift 0.1
    [((3, 2, 5), 400, 0.073), ((9, 2, 2), 400, 0.158)],
)
def test_false_positives_and_power_at_few_questions(design, studies, power):
    """With no difference, PEIR's p is under 0.05 in at most 5 % of studies (the binomial's
    band at 3.5 standard deviations) and so is any p after Holm; with a true +0.10 the power is
    what the bench measured in 4,000 studies of other seeds, to the binomial's band."""
    rng = np.random.default_rng(sum(design))
    with resampling(200):
        null = tally([compared(rng, *design, 0.0) for _ in range(studies)])
        moved = tally([compared(rng, *design, 0.10) for _ in range(studies)])
    high = _band(studies, 0.05)[1]
    assert null["peir"] <= high and null["holm"] <= high, null
    low, high = _band(studies, power)
    assert low <= moved["peir"] <= high, moved
    assert null["disagree"] == moved["disagree"] == 0
