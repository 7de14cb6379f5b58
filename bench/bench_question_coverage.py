"""How often the ChoiceEval intervals over questions cover the population value when clusters
hold few questions (docs/methods.md, "What an interval speaks about").

Simulated studies of a design (clusters x questions per cluster x repetitions) drawn from
populations with a known value (tests/choice_simulation.py: each question its own chance,
intra-question correlation about 1/3, or with --independent every question the mean chance),
counted and given their intervals by what the commands use:

  metrics   PEIR (0.30) and the direct-recommendation rate (0.60) of the `named` population;
            the US share of slots (0.40) and the US vs Europe log-odds of the `slotted` one,
            whose population value is the smoothed log-odds of a cluster's expected slots
            (ln((E[US] + 0.5) / (E[Europe] + 0.5))), also shown against the mean of the
            simulated estimates (the long-run value of the design)
  compare   B - A for the same numbers, models A and B answering the same questions (B's
            chance on each question p + 0.15 (1 - p)): PEIR's difference 0.105, the direct
            rate's 0.0945, the US share's 0.09, the log-odds' from the expected slots

Each line: covered / studies with an interval, the intervals wholly below and above the
truth, how many were n/a, how many left out their own estimate, and the mean width. The
script reads only the records, so the same command at an earlier commit measures what the
intervals covered then.

    .venv/bin/python bench/bench_question_coverage.py                 # 9x2x2 9x3x2 4x2x2 9x5x10
    .venv/bin/python bench/bench_question_coverage.py --design 9x2x2 --sims 1000 --seed 2
    .venv/bin/python bench/bench_question_coverage.py --independent --no-compare
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
from choice_simulation import (  # noqa: E402
    DIRECT,
    PEIR,
    SHARE,
    difference_truths,
    log_odds,
    lor_truth,
    named_lists,
    shares_of_named,
    slotted_lists,
    two_models,
    us_share,
)

from workbench.metrics.intervals import resampling  # noqa: E402

DESIGNS = ("9x2x2", "9x3x2", "4x2x2", "9x5x10")


class Tally:
    """Intervals of one number against its truth."""

    def __init__(self) -> None:
        self.rows: list[tuple[float | None, float | None, float | None]] = []  # (estimate, low, high)

    def add(self, estimate, low, high) -> None:
        self.rows.append((estimate, low, high))

    def line(self, name: str, truth: float) -> str:
        shown = [(e, lo, hi) for e, lo, hi in self.rows if lo is not None and hi is not None]
        covered = sum(lo <= truth <= hi for _e, lo, hi in shown)
        below = sum(hi < truth for _e, _lo, hi in shown)
        outside = sum(e is not None and not lo - 1e-9 <= e <= hi + 1e-9 for e, lo, hi in shown)
        width = np.mean([hi - lo for _e, lo, hi in shown]) if shown else float("nan")
        return (
            f"  {name:28} {covered}/{len(shown)} = {covered / max(len(shown), 1):.3f} "
            f"(below {below}, above {len(shown) - covered - below}, n/a {len(self.rows) - len(shown)}, "
            f"estimate outside {outside}; width {width:.3f}) truth {truth:+.4f}"
        )


def metrics_lines(args, clusters: int, questions: int, repetitions: int) -> list[str]:
    rng = np.random.default_rng(args.seed)
    tallies = {name: Tally() for name in ("peir", "direct", "share", "lor")}
    heterogeneous = not args.independent
    for _ in range(args.sims):
        (_entity, peir, low, high), (rate, d_low, d_high) = shares_of_named(
            named_lists(rng, clusters, questions, repetitions, heterogeneous)
        )
        tallies["peir"].add(peir, low, high)
        tallies["direct"].add(rate, d_low, d_high)
        arrays = slotted_lists(rng, clusters, questions, repetitions, heterogeneous)
        share = us_share(arrays)
        tallies["share"].add(share.value, share.ci_low, share.ci_high)
        lor = log_odds(arrays)
        tallies["lor"].add(lor.mean, *lor.ci)
    means = [e for e, _lo, _hi in tallies["lor"].rows if e is not None]
    return [
        tallies["peir"].line("PEIR", PEIR),
        tallies["direct"].line("direct rate", DIRECT),
        tallies["share"].line("US share of slots", SHARE),
        tallies["lor"].line("log-odds US vs Europe", lor_truth(questions, repetitions)),
        tallies["lor"].line("  against the mean estimate", float(np.mean(means))),
    ]


def compare_lines(args, clusters: int, questions: int, repetitions: int) -> list[str]:
    from choice_simulation import compared

    rng = np.random.default_rng(args.seed)
    tallies: dict[str, Tally] = {}
    for _ in range(args.sims):
        for slotted in (False, True):
            lists = two_models(rng, clusters, questions, repetitions, slotted)
            for metric, record in compared(lists, slotted).items():
                tallies.setdefault(metric, Tally()).add(record["difference"], record["ci_low"], record["ci_high"])
    truths = difference_truths(questions, repetitions)
    return [tally.line(f"B - A {metric}", truths[metric]) for metric, tally in tallies.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--design", action="append", help="CLUSTERSxQUESTIONSxREPETITIONS (default: four)")
    parser.add_argument("--sims", type=int, default=400, help="simulated studies per design")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boot", type=int, default=1000, help="resamples per interval")
    parser.add_argument("--independent", action="store_true", help="every question the mean chance")
    parser.add_argument("--no-compare", action="store_true", help="the metrics' own intervals only")
    args = parser.parse_args()
    with resampling(args.boot):
        for design in args.design or DESIGNS:
            clusters, questions, repetitions = (int(x) for x in design.split("x"))
            started = time.perf_counter()
            print(f"{clusters} clusters x {questions} questions x {repetitions} repetitions, {args.sims} studies")
            lines = metrics_lines(args, clusters, questions, repetitions)
            if not args.no_compare:
                lines += compare_lines(args, clusters, questions, repetitions)
            print("\n".join(lines), f"\n  ({time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
