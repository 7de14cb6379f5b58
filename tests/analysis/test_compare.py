"""`workbench compare`: paired differences between two models over the questions both
answered. Simulated studies (seeded, in process) hold the interval and the test to their
promise; CLI runs check what a user reads."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from helpers import imported_mentions, run_cli, write_mentions

from workbench.methods.choice.counts import ResponseList
from workbench.methods.choice.paired import paired_lists
from workbench.metrics.intervals import resampling


def beta_chances(rng: np.random.Generator, mean: float, icc: float, size: int) -> np.ndarray:
    """Each question's own chance of naming the brand: Beta with this mean and intra-question
    correlation (alpha + beta = 1 / icc - 1)."""
    total = 1 / icc - 1
    return rng.beta(mean * total, (1 - mean) * total, size)


def simulated_lists(rng, chances_a, chances_b, repetitions: int, clusters: int = 4) -> list[ResponseList]:
    """Answers of models A and B to the same questions: Nike with the question's chance,
    Puma with 0.1 on its own (so direct rate and PEIR differ)."""
    lists = []
    for model, chances in (("A", chances_a), ("B", chances_b)):
        for q, chance in enumerate(chances):
            for rep in range(1, repetitions + 1):
                names = (["Nike"] if rng.random() < chance else []) + (["Puma"] if rng.random() < 0.1 else [])
                lists.append(ResponseList(model, "shoes", f"c{q % clusters}", f"q{q}", rep, tuple(names)))
    return lists


def peir_records(studies: int, questions: int, repetitions: int, chances, seed: int, boot: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    with resampling(boot):
        for _ in range(studies):
            a, b = chances(rng, questions)
            records = paired_lists("s", simulated_lists(rng, a, b, repetitions), "A", "B")
            out.append(next(r for r in records if r["metric"] == "peir"))
    return out


def test_a_known_difference_is_covered_and_no_difference_rarely_rejected():
    """40 questions (4 clusters of 10) x 10 repetitions, question chances Beta(mean 0.3,
    ICC 0.33); B's chance on each question p + 0.15 (1 - p): a difference of 0.105 over
    questions of the kind. Then B = A question by question: no difference."""

    def shifted(rng, q):
        a = beta_chances(rng, 0.3, 0.33, q)
        return a, a + 0.15 * (1 - a)

    def same(rng, q):
        a = beta_chances(rng, 0.3, 0.33, q)
        return a, a

    known = peir_records(200, 40, 10, shifted, seed=11, boot=400)
    covered = sum(r["ci_low"] <= 0.105 <= r["ci_high"] for r in known) / len(known)
    assert 0.92 <= covered <= 0.98, covered
    assert all(r["entity"] == "Nike" and r["ci_unit"] == "question" and r["n_questions"] == 40 for r in known)
    null = peir_records(200, 40, 10, same, seed=12, boot=400)
    rejected = sum(r["p"] < 0.05 for r in null)
    assert rejected <= 200 * 0.05 + 3.5 * (200 * 0.05 * 0.95) ** 0.5, rejected  # the binomial's band
    assert all((r["p"] < 0.05) == (r["ci_low"] > 0 or r["ci_high"] < 0) for r in known + null)


@pytest.fixture
def two_models(tmp_path):
    db = tmp_path / "audit.db"
    path = write_mentions(tmp_path / "m.csv")
    assert run_cli("import", "mentions", path, "--db", db, "--study", "s").returncode == 0
    return db


def test_compare_in_three_formats(two_models):
    table = run_cli("compare", "--db", two_models, "--study", "s", "--models", "gpt", "gemini")
    assert table.returncode == 0, table.stderr
    assert "gemini (B) - gpt (A)" in table.stdout and "PEIR (A's e*)" in table.stdout
    assert "Interval unit: question" in " ".join(table.stdout.split())
    assert "no entity named has a region" in " ".join(table.stdout.split())
    # Wide: A's and B's numbers and BH's p too; a row reads as a row (nothing folded).
    # gpt names Nike in all 12 answers, gemini in none: Newcombe's interval, never [-1.00, -1.00]
    peir_row = next(line for line in table.stdout.splitlines() if line.startswith("phones  PEIR"))
    assert peir_row.split()[-9:] == ["1.000", "0.000", "-1.000", "[-1.00,", "-0.45]", "0.006", "0.023", "0.012", "6"]
    narrow = run_cli("compare", "--db", two_models, "--study", "s", "--models", "gpt", "gemini", env={"COLUMNS": "80"})
    assert max(len(line.rstrip()) for line in narrow.stdout.splitlines()) <= 80
    peir_row = next(line for line in narrow.stdout.splitlines() if line.startswith("phones  PEIR"))
    assert peir_row.split()[-6:] == ["-1.000", "[-1.00,", "-0.45]", "0.006", "0.023", "6"]
    out = run_cli("compare", "--db", two_models, "--study", "s", "--models", "gpt", "gemini", "--format", "json")
    records = json.loads(out.stdout)
    peir = [r for r in records if r["metric"] == "peir"]
    # gpt names Nike in every answer, gemini never: B - A is -1 on both topics, 6 questions each
    assert [(r["topic"], r["entity"], r["difference"], r["n_questions"]) for r in peir] == [
        ("phones", "Nike", -1.0, 6),
        ("shoes", "Nike", -1.0, 6),
    ]
    for r in records:
        assert {"metric", "topic", "difference", "ci_low", "ci_high", "p", "n_questions"} <= set(r)
        assert r["ci_unit"] == "question"
        assert ({"p_holm", "p_bh"} <= set(r)) == (r["p"] is not None)  # an n/a difference is out of the family
    assert all(r["p_holm"] >= r["p"] for r in records if r["p"] is not None)
    csv_out = run_cli("compare", "--db", two_models, "--study", "s", "--models", "gpt", "gemini", "--format", "csv")
    rows = list(csv.DictReader(csv_out.stdout.splitlines()))
    assert len(rows) == len(records) and rows[0]["metric"] == "peir" and rows[0]["ci_unit"] == "question"


def test_an_unknown_model_a_single_model_and_no_common_questions(two_models, tmp_path):
    wrong = run_cli("compare", "--db", two_models, "--study", "s", "--models", "gpt", "claude")
    assert wrong.returncode == 2
    assert wrong.stderr.strip().splitlines() == ["error: no model 'claude' in study 's' (its models: gemini, gpt)"]
    (tmp_path / "one").mkdir()
    one = imported_mentions(tmp_path / "one", [("Nike", 3)])
    single = run_cli("compare", "--db", one, "--study", "s", "--models", "gpt", "gpt")
    assert single.returncode == 2 and "has 1 model(s) (gpt): a comparison needs two" in single.stderr
    path = tmp_path / "apart.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model in ("gpt", "gemini"):
            for q in range(3):
                writer.writerow([model, "shoes", "Convenience", f"{model}{q}", 1, 1, "Nike"])
    db = tmp_path / "apart.db"
    assert run_cli("import", "mentions", path, "--db", db, "--study", "s").returncode == 0
    out = run_cli("compare", "--db", db, "--study", "s", "--models", "gpt", "gemini", "--format", "json")
    records = json.loads(out.stdout)
    assert records and all(r["difference"] is None for r in records)
    assert records[0]["na_reason"] == "no question both answered (3 by gpt, 3 by gemini)"
    table = run_cli("compare", "--db", db, "--study", "s", "--models", "gpt", "gemini")
    assert "n/a: no question both answered" in table.stdout


def test_compare_help_teaches():
    out = run_cli("compare", "--help")
    assert out.returncode == 0 and "examples:" in out.stdout and "--models gpt-4o llama3" in out.stdout
    # What is compared for each method, and by which unit
    text = " ".join(out.stdout.split())
    assert "ChoiceEval per topic, over the questions both answered" in text and "Unit: question" in text
    assert "identity each group x condition's Mean Share, paired by prompt" in text and "Unit: prompt" in text
    assert "entity each entity's Delta" in text and "paired by template" in text and "Unit: template" in text


def test_the_only_study_and_its_two_models_are_the_default(two_models, tmp_path):
    """`workbench compare --db audit.db` compares the only study's two models, A and B in name
    order; a third model asks for two by name."""
    out = run_cli("compare", "--db", two_models)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("s: gpt (B) - gemini (A)")
    third = tmp_path / "third.csv"
    third.write_text(
        "model,topic,cluster,question_id,repetition,rank,entity\nclaude,shoes,Convenience,Convenience0,1,1,Nike\n"
    )
    assert run_cli("import", "mentions", third, "--db", two_models, "--study", "s").returncode == 0
    out = run_cli("compare", "--db", two_models)
    assert out.returncode == 2
    assert "study 's' has 3 models to compare: claude, gemini, gpt; name two with --models A B" in out.stderr


def test_a_run_study_s_two_models_compare_in_the_order_its_file_lists_them(tmp_path, fake_server):
    from helpers import write_study

    server = fake_server()
    models = [f"openai:zeta@{server.base_url},concurrency=2", f"openai:alpha@{server.base_url}"]
    study = write_study(tmp_path / "s.toml", models=models, questions=2)
    db = tmp_path / "a.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    out = run_cli("compare", "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"t: openai:alpha@{server.base_url} (B) - openai:zeta@{server.base_url} (A)")
