"""How often a share's interval over questions covers the population share, near 0 or 1 and
in between (docs/methods.md, "Shares near 0 or 1").

Simulated studies (tests/share_simulation.py: each question its own chance, intra-question
correlation 1/3 unless --icc) through `share_fields`, what `workbench metrics` gives PEIR, the
direct rate and the US share of the top 3 their intervals with. Designs: clusters x questions
per cluster x repetitions; "unbalanced" is 1, 2, 3, 5, 8 and 12 questions per cluster
(x 3 repetitions); "few" is 3 clusters x 4 questions x 3 repetitions; "cluster-effect" the
demo's design with each cluster's mean moved on the logit by N(0, 0.5).

Each line: covered / studies, the intervals wholly below and above the truth, n/a, zero-width,
mean width. It reads only the intervals, so the same command at an earlier commit measures the
intervals of then.

    .venv/bin/python bench/bench_share_coverage.py
    .venv/bin/python bench/bench_share_coverage.py --sims 2000 --seed 2 --shares 0.05,0.95
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
from share_simulation import coverage  # noqa: E402

from workbench.metrics import intervals  # noqa: E402

DESIGNS = {
    "9x2x2": ([2] * 9, 2, {}),
    "9x5x10": ([5] * 9, 10, {}),
    "unbalanced": ([1, 2, 3, 5, 8, 12], 3, {}),
    "few": ([4] * 3, 3, {}),
    "cluster-effect": ([2] * 9, 2, {"cluster_sd": 0.5}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boot", type=int, default=400)
    parser.add_argument("--icc", type=float, default=1 / 3)
    parser.add_argument("--shares", default="0.02,0.05,0.30,0.95,0.98")
    parser.add_argument("--designs", default=",".join(DESIGNS))
    args = parser.parse_args()
    shares = [float(s) for s in args.shares.split(",")]
    print(f"{'design':<15} {'share':>5}  covered      below above  n/a zero  width")
    with intervals.resampling(args.boot):
        for name in args.designs.split(","):
            sizes, repetitions, population = DESIGNS[name]
            for share in shares:
                started = time.perf_counter()
                rng = np.random.default_rng([args.seed, int(share * 1000)])
                out = coverage(rng, sizes, repetitions, share, args.sims, icc=args.icc, **population)
                shown = args.sims - out["na"]
                rate = out["covered"] / shown if shown else float("nan")
                print(
                    f"{name:<15} {share:>5.2f}  {out['covered']:>4}/{shown:<4} {rate:.3f} {out['below']:>5} "
                    f"{out['above']:>5} {out['na']:>4} {out['zero_width']:>4}  {out['width'] or 0:.3f}"
                    f"   ({time.perf_counter() - started:.1f} s)"
                )


if __name__ == "__main__":
    main()
