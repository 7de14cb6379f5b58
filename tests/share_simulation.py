"""Simulated shares with a known population value, near 0 or 1 and in between, for the
coverage tests of a share's interval over questions (tests/statistics/test_share_coverage.py) and
bench/bench_share_coverage.py.

A study has clusters of questions (as many per cluster as `sizes` says: a balanced design or
1 to 12 questions per cluster), each question asked `repetitions` times. A question names the
brand with its own chance, drawn from a Beta of the cluster's mean and intra-question
correlation `icc` (1/3: answers to one question resemble each other as in the bundled demo's
model); with `cluster_sd` each cluster's mean is the population's moved on the logit by a
normal of that spread (a cluster effect on top of the question effect). The interval's
population is the questions of these clusters (clusters are strata, not sampled): its truth
is the mean of the clusters' means, each weighted by its share of the answers.

The hits go through `share_fields`, what `workbench metrics` computes PEIR, the direct rate
and the US share of the top 3 with.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics import clustered


def beta_parameters(mean: np.ndarray, icc: float) -> tuple[np.ndarray, np.ndarray]:
    """Beta(a, b) of mean `mean` whose draws, each the chance of a question's answers, make
    answers to one question correlate by `icc`: a + b = 1 / icc - 1."""
    total = 1 / icc - 1
    return mean * total, (1 - mean) * total


def study(
    rng: np.random.Generator,
    sizes: list[int],
    repetitions: int,
    mean: float,
    icc: float = 1 / 3,
    cluster_sd: float = 0.0,
) -> tuple[np.ndarray, clustered.Questions, float]:
    """(hits per question, the study's Questions, the population share they speak for)."""
    logit = np.log(mean / (1 - mean)) + rng.normal(0.0, cluster_sd, len(sizes)) if cluster_sd else None
    cluster_means = 1 / (1 + np.exp(-logit)) if logit is not None else np.full(len(sizes), mean)
    stratum = np.repeat(np.arange(len(sizes)), sizes)
    a, b = beta_parameters(cluster_means[stratum], icc)
    chance = rng.beta(a, b)
    answers = np.full(stratum.size, repetitions)
    hits = rng.binomial(answers, chance).astype(float)
    names = [f"Cluster {i}" for i in range(len(sizes))]
    questions = clustered.Questions(stratum, names, answers, hits, lambda _name: hits)
    truth = float(np.sum(cluster_means * np.asarray(sizes)) / np.sum(sizes))
    return hits, questions, truth


def coverage(rng, sizes, repetitions, mean, studies, **population) -> dict:
    """How often `share_fields`' interval covers the truth over `studies` simulated studies:
    covered, below (the interval wholly under the truth), above, n/a, zero-width, mean width."""
    out = {"covered": 0, "below": 0, "above": 0, "na": 0, "zero_width": 0, "width": 0.0}
    for _ in range(studies):
        hits, questions, truth = study(rng, sizes, repetitions, mean, **population)
        fields = clustered.share_fields(hits, questions)
        low, high = fields["ci_low"], fields["ci_high"]
        if low is None or high is None:
            out["na"] += 1
            continue
        out["zero_width"] += high <= low
        out["width"] += high - low
        if high < truth:
            out["below"] += 1
        elif low > truth:
            out["above"] += 1
        else:
            out["covered"] += 1
    shown = studies - out["na"]
    out["width"] = out["width"] / shown if shown else None
    return out


def lowest(cells: int, chance: float = 0.95, sds: float = 3.5) -> float:
    """The least count of Binomial(cells, chance) within `sds` standard deviations of its mean."""
    return cells * chance - sds * (cells * chance * (1 - chance)) ** 0.5
