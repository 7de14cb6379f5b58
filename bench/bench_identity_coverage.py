"""How often identity's Mean Share interval covers the population value (docs/methods.md §2).

Simulated cells as a study samples them: a template of distinct prompts, each with its own
expected mean share (the population value is their mean: the expected Mean Share of an answer
to a prompt drawn from the template), `--prompts` of them drawn per cell and each asked once.
Each cell's interval is computed by `mean_fields` (what `workbench metrics` gives) and by the
percentile interval it replaced (the 2.5th and 97.5th percentiles of the same resamples);
`--difference` does the same for a condition against its baseline (`difference_fields`).

Templates (`--scenario`, several allowed):
  normal   expected shares Normal(0.3, 0.1), answers +- Normal(0, 0.05)
  beta     expected shares Beta(2, 6), answers Beta around them (strength 8)
  skewed   expected shares Beta(0.5, 3) (a few prompts far above the rest), strength 20
  items    30 items with reference shares Beta(1, 4); each prompt its own popularity over them
           (Dirichlet); an answer names 5 distinct items, its mean share theirs

    .venv/bin/python bench/bench_identity_coverage.py --cells 1000 --prompts 10 --seed 1
    .venv/bin/python bench/bench_identity_coverage.py --prompts 5 --min-prompts 2   # under MIN_PROMPTS
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from workbench.methods.identity import intervals as identity_intervals  # noqa: E402
from workbench.methods.identity.intervals import by_prompt, difference_fields, mean_fields  # noqa: E402
from workbench.metrics.clustered import clustered_sums  # noqa: E402
from workbench.metrics.intervals import LEVEL, _bounds, _rng, resamples  # noqa: E402

SCENARIOS = ("normal", "beta", "skewed", "items")
Answer = Callable[[np.ndarray], np.ndarray]  # the mean shares of answers to these prompts


def template(name: str, texts: int, rng: np.random.Generator, shift: float = 0.0) -> tuple[np.ndarray, Answer]:
    """(each prompt's expected mean share, a draw of answers' mean shares). `shift` raises the
    expected shares (a condition against its baseline)."""
    if name == "normal":
        expected = rng.normal(0.3 + shift / 10, 0.1, texts)
        return expected, lambda p: expected[p] + rng.normal(0, 0.05, p.size)
    if name in ("beta", "skewed"):
        (a, b), strength = ((2.0, 6.0), 8.0) if name == "beta" else ((0.5, 3.0), 20.0)
        expected = rng.beta(a + shift, b, texts)
        return expected, lambda p: rng.beta(expected[p] * strength, (1 - expected[p]) * strength)
    if name == "items":
        return _items(texts, rng, shift)
    raise SystemExit(f"no scenario {name!r} (one of {', '.join(SCENARIOS)})")


def _items(texts: int, rng: np.random.Generator, shift: float) -> tuple[np.ndarray, Answer]:
    shares = rng.beta(1.0 + shift, 4.0, 30)
    popularity = np.stack([rng.dirichlet(3 / np.arange(1, 31)) for _ in range(texts)])
    logs = np.log(popularity + 1e-300)

    def named(p: np.ndarray) -> np.ndarray:  # 5 distinct items by popularity (Gumbel top-k)
        return np.argsort(-(logs[p] + rng.gumbel(size=(p.size, 30))), axis=1)[:, :5]

    # each prompt's expected mean share, from 4,000 answers (its error is under 0.001)
    expected = np.array([shares[named(np.full(4000, p))].mean() for p in range(texts)])
    return expected, lambda p: shares[named(p)].mean(axis=1)


def cell(rng: np.random.Generator, texts: int, prompts: int, answer: Answer) -> tuple[list[str], list[float]]:
    drawn = rng.integers(0, texts, prompts)
    return [f"prompt {p}" for p in drawn], answer(drawn).tolist()


def percentile(cell_: tuple, baseline: tuple | None = None) -> tuple[float | None, float | None]:
    """The interval `mean_fields` gave before: the percentiles of the same resamples."""
    rng = _rng(None)
    rows = by_prompt(*cell_)
    if rows.shape[0] < 2 or (baseline is not None and by_prompt(*baseline).shape[0] < 2):
        return None, None
    sums = clustered_sums(rows, resamples(), rng)
    resampled = sums[:, 1] / sums[:, 0]
    if baseline is not None:
        other = clustered_sums(by_prompt(*baseline), resamples(), rng)
        resampled = resampled - other[:, 1] / other[:, 0]
    return _bounds(resampled, LEVEL)


def measure(args: argparse.Namespace, scenario: str) -> str:
    rng = np.random.default_rng(args.seed)
    expected, answer = template(scenario, args.texts, rng, 1.0 if args.difference else 0.0)
    if args.difference:
        base_expected, base_answer = template(scenario, args.texts, rng)
    truth = float(expected.mean() - (base_expected.mean() if args.difference else 0.0))
    counts = {"now": [0, 0, 0, 0], "percentile": [0, 0, 0, 0]}  # covered, below, above, n/a
    widths: list[float] = []
    for _ in range(args.cells):
        drawn = cell(rng, args.texts, args.prompts, answer)
        if args.difference:
            baseline = cell(rng, args.texts, args.prompts, base_answer)
            fields = difference_fields(drawn, baseline)
            old = percentile(drawn, baseline)
        else:
            fields, old = mean_fields(*drawn), percentile(drawn)
        for name, (low, high) in (("now", (fields["ci_low"], fields["ci_high"])), ("percentile", old)):
            held = counts[name]
            held[3 if low is None else 1 if high < truth else 2 if low > truth else 0] += 1
        if fields["ci_low"] is not None:
            widths.append(fields["ci_high"] - fields["ci_low"])
    line = [f"{scenario:7} {'difference' if args.difference else 'mean share'} {args.prompts} prompts:"]
    for name, (covered, below, above, na) in counts.items():
        shown = covered + below + above
        line.append(
            f"{name} {covered}/{shown} = {covered / max(shown, 1):.3f} "
            f"(interval below the truth {below}, above {above}, n/a {na})"
        )
    line.append(f"mean width now {np.mean(widths) if widths else float('nan'):.3f}")
    return " ".join(line[:1]) + "\n  " + "\n  ".join(line[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=1000, help="simulated cells per scenario")
    parser.add_argument("--prompts", type=int, default=10, help="prompts drawn per cell (default 40 / 4)")
    parser.add_argument("--texts", type=int, default=2000, help="distinct prompts of the template")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenario", action="append", choices=SCENARIOS, help="(default: every one)")
    parser.add_argument("--difference", action="store_true", help="a condition minus its baseline")
    parser.add_argument("--min-prompts", type=int, help="intervals from this many prompts (default MIN_PROMPTS)")
    args = parser.parse_args()
    if args.min_prompts is not None:  # what the interval would cover under MIN_PROMPTS
        identity_intervals.MIN_PROMPTS = args.min_prompts
    for scenario in args.scenario or SCENARIOS:
        started = time.perf_counter()
        print(measure(args, scenario), f"({time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
