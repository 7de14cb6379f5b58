"""Simulated comparisons of two ChoiceEval models with a known difference, for the tests of
`workbench compare`'s false-positive rate and power (tests/analysis/test_compare_inference.py) and
bench/bench_compare_coverage.py --design.

Each question has its own chance of naming Nike, Beta with mean 0.3 and intra-question
correlation 0.33 (the populations of tests/choice_simulation.py); model B's chance on a question
is p + shift (1 - p) / 0.7, so B - A over questions of the kind is `shift` for PEIR (A's e* is
Nike: another brand, Puma, is named on its own with chance 0.05) and 0.95 shift for the
direct-recommendation rate. shift 0 is no difference: both models answer each question with the
same chance. The records go through `paired_lists`, what `workbench compare` gives.
"""

from __future__ import annotations

import numpy as np

from workbench.methods.choice.counts import ResponseList
from workbench.methods.choice.paired import paired_lists

MEAN, ICC, PUMA = 0.3, 0.33, 0.05


def design(text: str) -> tuple[int, int, int]:
    """'9x2x2': clusters, questions per cluster, repetitions."""
    clusters, questions, repetitions = (int(x) for x in text.split("x"))
    return clusters, questions, repetitions


def compared(rng: np.random.Generator, clusters: int, questions: int, repetitions: int, shift: float) -> list[dict]:
    """Every record of one simulated comparison (one topic, no regions)."""
    total = 1 / ICC - 1
    chances_a = rng.beta(MEAN * total, (1 - MEAN) * total, clusters * questions)
    chances_b = chances_a + shift * (1 - chances_a) / (1 - MEAN)
    lists = []
    for model, chances in (("A", chances_a), ("B", chances_b)):
        for q, chance in enumerate(chances):
            for rep in range(1, repetitions + 1):
                names = (("Nike",) if rng.random() < chance else ()) + (("Puma",) if rng.random() < PUMA else ())
                lists.append(ResponseList(model, "shoes", f"c{q % clusters}", f"q{q}", rep, names))
    return paired_lists("s", lists, "A", "B")


def agrees(record: dict) -> bool:
    """One inference: a record with a p has a 95 % interval and p < 0.05 exactly when the
    interval leaves out 0; a record without one has neither."""
    low, high, p = record.get("ci_low"), record.get("ci_high"), record.get("p")
    if p is None or low is None or high is None:
        return p is None and (low is None or high is None)
    return (p < 0.05) == (low > 0 or high < 0)


def tally(records_per_study: list[list[dict]]) -> dict[str, int]:
    """Studies, PEIR's rejections (p < 0.05), any rejection after Holm, and records whose p
    and interval disagree."""
    out = {"studies": 0, "peir": 0, "holm": 0, "disagree": 0, "peir_na": 0}
    for records in records_per_study:
        out["studies"] += 1
        # A study where A names Puma as often as Nike or more compares Puma: it counts as no rejection.
        peir = next((r for r in records if r["metric"] == "peir" and r.get("entity") == "Nike"), {"p": None})
        out["peir_na"] += peir["p"] is None
        out["peir"] += peir["p"] is not None and peir["p"] < 0.05
        out["holm"] += any(r.get("p_holm") is not None and r["p_holm"] < 0.05 for r in records)
        out["disagree"] += sum(not agrees(r) for r in records)
    return out
