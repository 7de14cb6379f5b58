"""How often `workbench compare`'s paired interval covers the population difference B - A, and
how often its p falls under 0.05 when there is none (docs/methods.md, "Comparing two models").

Each simulated comparison pairs `--units` units both models answered, drawn from a population
of them in which each unit has its own expected number for A and for B, correlated (both
models answer the same prompt or template). The per-unit rows go through what the command
uses: `paired_units` (identity by prompt, entity by template) or, for ChoiceEval, `paired_lists`
(by question, 4 clusters, 10 repetitions each). The interval is the one `workbench compare`
gives now (units paired one to one: Student's t on their paired differences), beside the
percentile interval of the paired bootstrap's resamples (k - 1 of k units, scaled by k / (k - 1):
what it gave before). `--null` makes the two models exchangeable unit by unit (each unit's two
rows swapped on a coin: no difference, the truth is 0), and the p-value's rejections at 5 % are
counted; `sparse` is then `deltas`.

Populations (`--scenario`, several allowed):
  normal     prompts: a prompt's expected share Normal(0.3, 0.1), each model's own +- Normal(0,
             0.05) around it, B's 0.05 higher; answers +- Normal(0, 0.05)
  beta       prompts: a common share Beta(2, 6); each model's expit(logit + Normal(0, 0.5)), B's
             logit 0.5 higher; an answer's mean share Beta around it (strength 8)
  skewed     the same from Beta(0.5, 3) (a few prompts far above the rest), strength 20
  deltas     templates: 30 entities x 4 label logits per template (template, entity and entity x
             template parts, shared by the models, plus each model's own), the task's weights;
             each model's delta of one entity standardised over the template's entities; B moves
             that entity's labels on every template
  sparse     the same, B moving it on one template in five (five times as far): skewed per-template
             differences
  questions  ChoiceEval: questions' chances of naming the brand Beta(mean 0.3, ICC 0.33), B's
             p + 0.15 (1 - p), 10 repetitions, 4 clusters; PEIR's difference

A prompt is drawn from 2,000 with replacement (a prompt drawn twice is one unit, answered
twice), a template from 2,000 without. The truth is the population's mean of B - A (for
ChoiceEval 0.105, or 0 under --null).

    .venv/bin/python bench/bench_compare_coverage.py --sims 1000 --units 10 --seed 1
    .venv/bin/python bench/bench_compare_coverage.py --scenario deltas --scenario sparse --units 50
    .venv/bin/python bench/bench_compare_coverage.py --units 10 --null
    .venv/bin/python bench/bench_compare_coverage.py --scenario questions --units 40

`--design CxQxR` (several allowed) instead simulates whole ChoiceEval comparisons of C clusters x
Q questions x R repetitions (tests/compare_simulation.py: question chances Beta(mean 0.3, ICC
0.33), B's p + shift (1 - p) / 0.7, a difference of `--shift` in PEIR) and counts PEIR's p under
0.05, any p of the comparison under 0.05 after Holm, and the records whose p and 95 % interval
disagree (p < 0.05 but the interval holds 0, or the reverse). It reads only the records, so the
same command at an earlier commit measures the p of then:

    .venv/bin/python bench/bench_compare_coverage.py --design 3x2x5 --design 9x2x2 --sims 4000
    .venv/bin/python bench/bench_compare_coverage.py --design 3x2x5 --design 9x2x2 --shift 0.1
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import numpy as np  # noqa: E402

from workbench.analysis.compare import paired_units  # noqa: E402
from workbench.metrics.intervals import LEVEL, _bounds, _rng, resamples, resampling  # noqa: E402
from workbench.metrics.paired import PairedColumns, difference_of, question_weights, share  # noqa: E402

SCENARIOS = ("normal", "beta", "skewed", "deltas", "sparse", "questions")
POPULATION = 2000
Draw = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]  # rows (k, 2) of A and of B


def _expit(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def prompts(name: str, rng: np.random.Generator, null: bool) -> tuple[float, Draw]:
    """A template's prompts: each model's expected share per prompt; the truth and a draw of
    k prompts' rows (answers, their shares summed)."""
    if name == "normal":
        common = rng.normal(0.3, 0.1, POPULATION)
        expected = [common + rng.normal(0, 0.05, POPULATION) for _ in range(2)]
        expected[1] += 0.0 if null else 0.05

        def answer(m: int, p: np.ndarray) -> np.ndarray:
            return expected[m][p] + rng.normal(0, 0.05, p.size)

    else:
        (a, b), strength = ((2.0, 6.0), 8.0) if name == "beta" else ((0.5, 3.0), 20.0)
        common = np.clip(rng.beta(a, b, POPULATION), 1e-6, 1 - 1e-6)
        logit = np.log(common / (1 - common))
        expected = [_expit(logit + rng.normal(0, 0.5, POPULATION) + (0 if null else 0.5 * m)) for m in range(2)]

        def answer(m: int, p: np.ndarray) -> np.ndarray:
            return rng.beta(expected[m][p] * strength, (1 - expected[m][p]) * strength)

    def draw(rng_: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
        drawn = rng_.integers(0, POPULATION, k)
        return _swapped(rng_, null, *(_by_prompt(drawn, answer(m, drawn)) for m in range(2)))

    truth = 0.0 if null else float(np.mean(expected[1] - expected[0]))
    return truth, draw


def _by_prompt(drawn: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(distinct prompts, 2): answers and their values summed, in prompt order."""
    order = np.unique(drawn)
    counts = np.array([np.sum(drawn == p) for p in order], dtype=float)
    sums = np.array([values[drawn == p].sum() for p in order])
    return np.stack([counts, sums], axis=1)


def _swapped(rng: np.random.Generator, null: bool, rows_a: np.ndarray, rows_b: np.ndarray) -> tuple:
    """Under --null each unit's two rows in either order (a coin per unit): the models are
    exchangeable unit by unit, and the difference's population value is 0."""
    if not null:
        return rows_a, rows_b
    swap = rng.integers(0, 2, rows_a.shape[0]).astype(bool)[:, None]
    return np.where(swap, rows_b, rows_a), np.where(swap, rows_a, rows_b)


WEIGHTS = np.array([4.0, 3.0, 2.0, 1.0])  # the task's label weights (low urgency to critical)


def templates(name: str, rng: np.random.Generator, null: bool) -> tuple[float, Draw]:
    """A task's templates: one entity's delta per template for each model (its score's distance
    from the template's mean over 30 entities, in the template's sample standard deviations)."""
    entities, labels = 30, WEIGHTS.size
    template = rng.normal(0, 1, (POPULATION, 1, labels))
    entity = rng.normal(0, 0.5, (1, entities, labels))
    both = template + entity + rng.normal(0, 0.5, (POPULATION, entities, labels))
    logits = [both + rng.normal(0, 0.3, both.shape) for _ in range(2)]
    if not null:
        moved = np.ones(POPULATION) if name == "deltas" else (rng.random(POPULATION) < 0.2) * 5.0
        logits[1][:, 0, :] += moved[:, None] * np.linspace(-0.3, 0.3, labels)
    deltas = []
    for x in logits:
        probs = np.exp(x - x.max(-1, keepdims=True))
        scores = (probs / probs.sum(-1, keepdims=True)) @ WEIGHTS
        deltas.append(((scores - scores.mean(1, keepdims=True)) / scores.std(1, ddof=1, keepdims=True))[:, 0])

    def draw(rng_: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
        drawn = rng_.choice(POPULATION, k, replace=False)
        return _swapped(rng_, null, *(np.stack([np.ones(k), d[drawn]], axis=1) for d in deltas))

    return (0.0 if null else float(np.mean(deltas[1] - deltas[0]))), draw


def percentile(rows_a: np.ndarray, rows_b: np.ndarray) -> tuple[float | None, float | None]:
    """The interval `workbench compare` gave before: the 2.5th and 97.5th percentiles of the
    same resamples (k - 1 of k units with replacement, scaled by k / (k - 1))."""
    k = rows_a.shape[0]
    if k < 2:
        return None, None
    columns = PairedColumns(np.zeros(k, dtype=np.int64), [""], rows_a, rows_b)
    diff, rng = difference_of(share(1, 0)), _rng(None)
    weights = question_weights(columns.stratum, resamples(), rng)
    return _bounds(np.asarray(diff(columns.sums(weights, rows_a), columns.sums(weights, rows_b)), float), LEVEL)


def questions(rng: np.random.Generator, null: bool) -> tuple[float, Callable]:
    """ChoiceEval's PEIR difference: a record of `paired_lists` per simulated study."""
    from workbench.methods.choice.counts import ResponseList
    from workbench.methods.choice.paired import paired_lists

    def study(rng_: np.random.Generator, k: int) -> tuple[dict, tuple]:
        total = 1 / 0.33 - 1
        chances_a = rng_.beta(0.3 * total, 0.7 * total, k)
        chances_b = chances_a if null else chances_a + 0.15 * (1 - chances_a)
        lists = []
        for model, chances in (("A", chances_a), ("B", chances_b)):
            for q, chance in enumerate(chances):
                for rep in range(1, 11):
                    names = (["Nike"] if rng_.random() < chance else []) + (["Puma"] if rng_.random() < 0.1 else [])
                    lists.append(ResponseList(model, "shoes", f"c{q % 4}", f"q{q}", rep, tuple(names)))
        record = next(r for r in paired_lists("s", lists, "A", "B") if r["metric"] == "peir")
        return record, (None, None)  # its percentile interval is not re-derived here

    return (0.0 if null else 0.105), study


def measure(args: argparse.Namespace, scenario: str) -> str:
    rng = np.random.default_rng(args.seed)
    counts = {"now": [0, 0, 0, 0], "percentile": [0, 0, 0, 0]}  # covered, below, above, n/a
    rejected = tested = 0
    widths: list[float] = []
    if scenario == "questions":
        truth, study = questions(rng, args.null)
    else:
        unit = "template" if scenario in ("deltas", "sparse") else "prompt"
        truth, draw = (templates if unit == "template" else prompts)(scenario, rng, args.null)

        def study(rng_: np.random.Generator, k: int) -> tuple[dict, tuple]:
            rows_a, rows_b = draw(rng_, k)
            return paired_units({}, rows_a, rows_b, unit), percentile(rows_a, rows_b)

    for _ in range(args.sims):
        record, old = study(rng, args.units)
        for name, (low, high) in (("now", (record["ci_low"], record["ci_high"])), ("percentile", old)):
            counts[name][3 if low is None else 1 if high < truth else 2 if low > truth else 0] += 1
        if record["ci_low"] is not None:
            widths.append(record["ci_high"] - record["ci_low"])
        if record["p"] is not None:
            tested += 1
            rejected += record["p"] < 0.05
    head = f"{scenario:9} {args.units} units, truth {truth:+.4f}{' (no difference)' if args.null else ''}:"
    lines = [head]
    for name, (covered, below, above, na) in counts.items():
        shown = covered + below + above
        if shown:
            lines.append(
                f"  {name:10} covered {covered}/{shown} = {covered / shown:.3f} "
                f"(interval below the truth {below}, above {above}, n/a {na})"
            )
    lines.append(
        f"  p < 0.05 in {rejected}/{tested} = {rejected / max(tested, 1):.3f}; mean width {np.mean(widths):.3f}"
    )
    return "\n".join(lines)


def designs(args: argparse.Namespace) -> None:
    """Whole ChoiceEval comparisons per design: false positives (or power) and disagreements."""
    from compare_simulation import compared, design, tally

    for text in args.design:
        started, rng = time.perf_counter(), np.random.default_rng(args.seed)
        counts = tally([compared(rng, *design(text), args.shift) for _ in range(args.sims)])
        n = counts["studies"]
        print(
            f"{text} shift {args.shift:+.2f}: PEIR p < 0.05 in {counts['peir']}/{n} = {counts['peir'] / n:.3f} "
            f"(n/a or not Nike {counts['peir_na']}); any p after Holm < 0.05 in {counts['holm']}/{n} = "
            f"{counts['holm'] / n:.3f}; records whose p and interval disagree {counts['disagree']} "
            f"({time.perf_counter() - started:.1f} s)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=1000, help="simulated comparisons per scenario")
    parser.add_argument("--units", type=int, default=10, help="units both models answered per comparison")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenario", action="append", choices=SCENARIOS, help="(default: all but questions)")
    parser.add_argument("--null", action="store_true", help="no difference: the models exchangeable unit by unit")
    parser.add_argument("--boot", type=int, default=1000, help="resamples per comparison")
    parser.add_argument("--design", action="append", help="CxQxR: whole ChoiceEval comparisons of this design")
    parser.add_argument("--shift", type=float, default=0.0, help="with --design: B - A in PEIR (0: none)")
    args = parser.parse_args()
    with resampling(args.boot):
        if args.design:
            return designs(args)
        for scenario in args.scenario or SCENARIOS[:-1]:
            started = time.perf_counter()
            print(measure(args, scenario), f"({time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
