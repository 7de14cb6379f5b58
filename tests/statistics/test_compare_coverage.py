"""`workbench compare`'s interval for units paired one to one (identity's prompts, entity's
templates) covers the population difference B - A, and its p rejects "no difference" about 5 %
of the time: simulated comparisons with a known truth, through `paired_units` as the command
computes them (bench/bench_compare_coverage.py measures more populations and unit counts)."""

from __future__ import annotations

import numpy as np

from workbench.analysis.compare import paired_units

COMPARISONS = 2000
POPULATION = 2000  # distinct prompts (templates) of the population


def _band(cells: int, chance: float, sds: float = 3.5) -> tuple[float, float]:
    """Where a Binomial(cells, chance) count lies: its mean +- `sds` standard deviations."""
    sd = (cells * chance * (1 - chance)) ** 0.5
    return cells * chance - sds * sd, cells * chance + sds * sd


def _prompts(rng: np.random.Generator, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Each prompt's expected Mean Share for A and for B: a common part Beta(1, 3) (right-skewed:
    a few prompts draw many of the group's items), each model's own logit noise, B's logit
    `shift` higher."""
    common = np.clip(rng.beta(1.0, 3.0, POPULATION), 1e-4, 1 - 1e-4)
    logit = np.log(common / (1 - common))
    return tuple(1 / (1 + np.exp(-(logit + rng.normal(0, 0.5, POPULATION) + s))) for s in (0.0, shift))


def _compared(rng: np.random.Generator, expected: tuple[np.ndarray, np.ndarray], prompts: int = 10) -> dict:
    """`prompts` drawn from the population (a prompt drawn twice: one unit answered twice), each
    model's answers Beta around its expected share (strength 10), compared by prompt."""
    drawn = rng.integers(0, POPULATION, prompts)
    distinct = np.unique(drawn)
    rows = []
    for mean in expected:
        shares = rng.beta(mean[drawn] * 10, (1 - mean[drawn]) * 10)
        rows.append(np.array([[np.sum(drawn == p), shares[drawn == p].sum()] for p in distinct]))
    return paired_units({}, rows[0], rows[1], "prompt")


def test_a_known_difference_by_prompt_is_covered_at_ten_prompts():
    """2,000 comparisons of 10 prompts (identity's default cell: per_group 40 over four
    conditions): the 95 % interval covers the population difference (0.078) in 1,904 (the
    binomial's band at 3.5 standard deviations is 1,866-1,934). The percentile interval of
    the paired bootstrap it replaced covered it in 1,828: its spread is estimated from 10
    prompts, on 9 degrees of freedom."""
    rng = np.random.default_rng(20260501)
    expected = _prompts(rng, 0.5)
    truth = float(np.mean(expected[1] - expected[0]))
    covered = 0
    for _ in range(COMPARISONS):
        record = _compared(rng, expected)
        covered += record["ci_low"] <= truth <= record["ci_high"]
    assert record["ci_unit"] == "prompt" and record["n_units"] <= 10
    low, high = _band(COMPARISONS, 0.95)
    assert low <= covered <= high, covered


def _template_deltas(rng: np.random.Generator, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """One entity's delta on each template for A and for B: 30 entities' label logits per
    template (template, entity and entity x template parts both models share, plus each
    model's own), scored with the urgency task's weights and standardised over the template's
    entities (sample sd); B moves the entity's labels by `shift` towards the urgent ones."""
    template = rng.normal(0, 1, (POPULATION, 1, 4))
    both = template + rng.normal(0, 0.5, (1, 30, 4)) + rng.normal(0, 0.5, (POPULATION, 30, 4))
    out = []
    for model in range(2):
        logits = both + rng.normal(0, 0.3, both.shape)
        logits[:, 0, :] += model * shift * np.linspace(-1, 1, 4)
        probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        scores = probs @ np.array([4.0, 3.0, 2.0, 1.0])
        out.append(((scores - scores.mean(1, keepdims=True)) / scores.std(1, ddof=1, keepdims=True))[:, 0])
    return out[0], out[1]


def test_a_known_difference_by_template_is_covered_and_no_difference_rarely_rejected():
    """2,000 comparisons of 10 templates drawn from 2,000: the interval covers the population
    difference of the entity's Delta (-0.45) in 1,897 (the band 1,866-1,934; the percentile
    interval: 1,811). With the models exchangeable template by template (no difference), p
    is under 0.05 in 97 and the interval leaves out 0 in 100 (the band around 100: 66-134; the
    percentile interval left it out in 170)."""
    rng = np.random.default_rng(20260502)
    delta_a, delta_b = _template_deltas(rng, 0.3)
    truth = float(np.mean(delta_b - delta_a))
    covered = rejected = excluded = 0
    for _ in range(COMPARISONS):
        drawn = rng.choice(POPULATION, 10, replace=False)
        rows_a, rows_b = (np.stack([np.ones(10), d[drawn]], axis=1) for d in (delta_a, delta_b))
        record = paired_units({}, rows_a, rows_b, "template")
        covered += record["ci_low"] <= truth <= record["ci_high"]
        swap = rng.integers(0, 2, 10).astype(bool)[:, None]  # no difference: either order, a coin
        null = paired_units({}, np.where(swap, rows_b, rows_a), np.where(swap, rows_a, rows_b), "template")
        rejected += null["p"] < 0.05
        excluded += not null["ci_low"] <= 0 <= null["ci_high"]
    assert record["ci_unit"] == "template" and record["n_units"] == 10
    assert _band(COMPARISONS, 0.95)[0] <= covered <= _band(COMPARISONS, 0.95)[1], covered
    low, high = _band(COMPARISONS, 0.05)
    assert low <= rejected <= high and low <= excluded <= high, (rejected, excluded)


def test_a_unit_without_a_number_from_both_is_not_paired():
    """A prompt one model's answer gave no Mean Share (count 0) pairs nothing: the difference
    and its interval are over the prompts both have a number on (n_units)."""
    rows_a = np.array([[1, 0.2], [1, 0.4], [0, 0.0], [1, 0.3]])
    rows_b = np.array([[1, 0.3], [1, 0.6], [1, 0.9], [1, 0.3]])
    record = paired_units({}, rows_a, rows_b, "prompt")
    assert record["n_units"] == 3 and abs(record["difference"] - 0.1) < 1e-12
    assert record["ci_low"] < 0.1 < record["ci_high"]
    one = paired_units({}, rows_a[[0, 2]], rows_b[[0, 2]], "prompt")
    assert one["ci_low"] is None and one["ci_na_reason"] == "1 prompt both answered"
