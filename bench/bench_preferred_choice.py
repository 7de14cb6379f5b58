"""The preferred entity chosen from the data, measured: per population and design, how often the
sample's e* is another brand than the population's, how far the chosen share is from that
brand's population share on average, how often PEIR's interval covers it (and misses above or
below), and what `stays_preferred` gives (its mean, and how often it reaches 0.975).

Populations (tests/preferred_simulation.py; each question its own chance of naming each brand,
intra-question correlation 1/3, Puma 0.1 besides): close rivals (Nike 0.30, Adidas 0.28), a tie
(both 0.30), five brands tied at 0.30, a clear winner (0.50 against 0.10).

    .venv/bin/python bench/bench_preferred_choice.py [--sims 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from preferred_simulation import CLOSE, chosen  # noqa: E402

POPULATIONS = {
    "close 0.30 / 0.28": CLOSE,
    "tie 0.30 / 0.30": {"Nike": 0.30, "Adidas": 0.30},
    "five at 0.30": {name: 0.30 for name in ("Nike", "Adidas", "Asics", "Hoka", "Brooks")},
    "clear 0.50 / 0.10": {"Nike": 0.50, "Adidas": 0.10},
}
DESIGNS = ((9, 2, 2), (3, 2, 5), (9, 5, 10))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sims", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("population | design | other e* | mean error | covered (above, below) | stays mean | stays >= 0.975")
    for label, shares in POPULATIONS.items():
        for design in DESIGNS:
            out = chosen(np.random.default_rng([args.seed, *design]), args.sims, design, shares)
            stays = np.asarray(out["stays"], dtype=float)
            print(
                f"{label} | {'x'.join(map(str, design))} | {out['wrong']} | {out['error']:+.3f} | "
                f"{out['covered']} ({out['above']}, {out['below']}) | {np.nanmean(stays):.3f} | "
                f"{int(np.sum(stays >= 0.975))} of {args.sims}"
            )


if __name__ == "__main__":
    main()
