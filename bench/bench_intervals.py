"""What the bootstrap intervals cost on ChoiceEval metrics at scale.

Builds 199,800 ranked lists (3 models x 2 topics x 9 clusters x 3,700 answers, Zipf-like
brand choice, four regions) and times `choice_metric_records` with its intervals and,
in the same process, with the interval functions stubbed out (the baseline).

    .venv/bin/python bench/bench_intervals.py [--answers 3700]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from workbench.methods.choice import metrics as mc  # noqa: E402
from workbench.metrics import intervals  # noqa: E402


def lists_of(answers: int) -> tuple[list[mc.ResponseList], dict[str, str]]:
    rng = np.random.default_rng(1)
    names = [f"Brand {i:04d}" for i in range(2000)]
    weights = 1 / np.arange(1, 2001) ** 1.05
    weights /= weights.sum()
    regions = {n: ("United States", "Europe", "Asia", "Other")[i % 4] for i, n in enumerate(names)}
    out = []
    for model in ("a", "b", "c"):
        for topic in ("x", "y"):
            for cluster in range(9):
                picks = rng.choice(2000, size=(answers, 5), p=weights)
                out += [
                    mc.ResponseList(
                        model, topic, f"c{cluster}", f"q{q}", 1, tuple(dict.fromkeys(names[i] for i in picks[q]))
                    )
                    for q in range(answers)
                ]
    return out, regions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=3700, help="answers per model x topic x cluster")
    args = parser.parse_args()
    lists, regions = lists_of(args.answers)
    started = time.perf_counter()
    mc.choice_metric_records("s", lists, regions.get)
    full = time.perf_counter() - started
    intervals.stratified_ci = lambda *a, **k: (None, None)
    mc.mean_ci = lambda *a, **k: (None, None)
    started = time.perf_counter()
    mc.choice_metric_records("s", lists, regions.get)
    bare = time.perf_counter() - started
    print(f"{len(lists):,} answers: with intervals {full:.2f} s, without {bare:.2f} s, ratio {full / bare:.2f}")


if __name__ == "__main__":
    main()
