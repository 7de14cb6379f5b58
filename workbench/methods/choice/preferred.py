"""The preferred entity e* beside what it was chosen over: the runner-up, its share of the
same answers, and how often e* stays first when the questions are drawn again.

e* is the entity the sample names most, so its share is the largest of several estimates:
where rivals are close, the sample often prefers the wrong one, and the chosen share is too
high on average (the winner's curse). PEIR's interval is that of a share fixed in advance; it
does not widen for the choice. What it covers when the choice is close is measured, not
assumed (docs/methods.md, "The preferred entity is chosen from the data";
tests/methods/choice/test_preferred_choice.py). The runner-up and `stays_preferred` say how close the choice
is, so that a reader never has to guess it from two intervals.

`stays_preferred`: the share of draws of the answers' counts over another set of questions of
the same clusters in which e* is named in the most answers. The draws are a multivariate
Student t about the counts found, with their covariance over questions within clusters (the
variance PEIR's interval reads): resampling the questions themselves took `workbench metrics`
at 1,080,000 mention rows from 5.8 s to 9.4 s (bench/bench_scale.py). A draw where e* ties
with others for the most gives it 1 / (the number tied): the chance a coin between them would
pick it. Only the CONTENDERS most named entities are drawn: an entity further down would have
to pass all of them to be first.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from workbench.display import na_reasons
from workbench.metrics.clustered import QUESTION, Questions, collapsed, satterthwaite
from workbench.metrics.intervals import SEED, interval_fields, resamples

CONTENDERS = 5  # e* and the four entities named most after it


def preferred_of(
    presence: Counter[str], n: int, rank_sums: Callable[[], Counter[str]]
) -> tuple[str | None, float | None, int]:
    """e* and its share: the entity in the most answers, ties to the better rank sum, then the
    name; (None, None, n) when nothing was named."""
    if not presence:
        return None, None, n
    top = max(presence.values())
    tied = {e for e, count in presence.items() if count == top}
    sums = rank_sums() if len(tied) > 1 else Counter()  # rank sums only where they decide something
    best = min(tied, key=lambda e: (sums[e], e))
    return best, top / n, n


def runner_up_fields(
    presence: Counter[str],
    n: int,
    entity: str | None,
    rank_sums: Callable[[], Counter[str]],
    questions: Questions | None,
) -> dict:
    """A PEIR record's `runner_up` (the entity e* would be without e*, by the same rule),
    `runner_up_value` (its share of the same answers) and `stays_preferred`, or why each is
    n/a. Nothing where there is no e* (the record's `na_reason` says why)."""
    if entity is None:
        return {}
    # the CONTENDERS - 1 most named after e*, in one pass (a scope names hundreds of entities)
    rivals = heapq.nsmallest(CONTENDERS - 1, ((-c, e) for e, c in presence.items() if e != entity))
    if not rivals:
        reason = na_reasons.shown("one-entity-named")
        return {
            "runner_up": None,
            "runner_up_value": None,
            "runner_up_na_reason": reason,
            "stays_preferred": None,
            "stays_preferred_na_reason": reason,
        }
    second = -rivals[0][0]
    tied = Counter({e: c for e, c in presence.items() if c == second and e != entity})
    runner_up, share, _ = preferred_of(tied, n, rank_sums)
    out = {"runner_up": runner_up, "runner_up_value": share}
    if questions is None:  # counted from lists without their questions: nothing to draw
        return {**out, "stays_preferred": None}
    units = interval_fields(None, None, units=len(questions.n), unit=QUESTION)
    if "ci_na_reason" in units:
        return {**out, "stays_preferred": None, "stays_preferred_na_reason": units["ci_na_reason"]}
    return {**out, "stays_preferred": stays_preferred(questions, [entity, *(e for _c, e in rivals)])}


def stays_preferred(questions: Questions, contenders: list[str], n_boot: int | None = None) -> float:
    """The share of draws in which `contenders[0]` is named in the most answers of all
    `contenders` (a tie for the most: 1 / the number tied). Each draw is of the contenders'
    counts over another set of questions: the counts as found plus a multivariate Student t
    of their covariance over questions within clusters (k / (k - 1) times each cluster's
    spread, as the intervals' variance) on Satterthwaite's degrees of freedom of e*'s lead
    over the runner-up. It costs n_boot x 5 numbers, not n_boot resamples of every question.
    Seeded: the same answers give the same share."""
    n_boot = n_boot or resamples()
    counts = np.column_stack([questions.naming(e) for e in contenders]).astype(float)
    root, df = _root(counts, questions)
    # a normal over a chi-square's root: t, not z, where few questions carry the spread (at
    # the demo's 9 x 2 questions normal draws put e* first in 97.5 % of them for 9 % of
    # studies of two brands tied in the population; tests/methods/choice/test_preferred_choice.py)
    scale = np.sqrt(np.random.default_rng(SEED + 1).chisquare(df, n_boot) / df)
    totals = counts.sum(axis=0) + (_normal(n_boot, len(contenders)) @ root.T) / scale[:, None]
    top = totals.max(axis=1, keepdims=True)
    # counts that cannot differ (two entities in the same answers) stay equal to rounding
    at_top = top - totals <= 1e-9 * np.abs(top) + 1e-6
    credit = np.where(at_top[:, 0], 1.0 / at_top.sum(axis=1), 0.0)
    return float(credit.mean())


def _root(counts: np.ndarray, questions: Questions) -> tuple[np.ndarray, float]:
    """The square root of the counts' covariance over questions within clusters (singles pooled
    as the intervals pool them: `collapsed`), and the Satterthwaite degrees of freedom of the
    first column's lead over the second."""
    codes = np.unique(questions.stratum, return_inverse=True)[1].reshape(-1)
    sizes = np.bincount(codes)
    if np.any(sizes < 2):
        strata = collapsed([counts[codes == code] for code in range(len(sizes))])
        codes = np.repeat(np.arange(len(strata)), [rows.shape[0] for rows in strata])
        counts, sizes = np.concatenate(strata), np.bincount(codes)
    means = np.stack([np.bincount(codes, column, len(sizes)) for column in counts.T], axis=1) / sizes[:, None]
    spread = counts - means[codes]
    weight = (sizes / (sizes - 1))[codes]
    covariance = (spread * weight[:, None]).T @ spread
    lead = spread[:, 0] - spread[:, 1]
    df = satterthwaite(np.bincount(codes, weight * lead * lead, len(sizes)).tolist(), sizes.tolist())
    # the symmetric root: the one root of a covariance whatever order the questions came in
    # (an eigenvector's sign, or Cholesky's order of columns, would change every draw)
    values, vectors = np.linalg.eigh(covariance)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T, df


@lru_cache(maxsize=8)
def _normal(n_boot: int, width: int) -> np.ndarray:
    """The same seeded standard normal draws for every PEIR (read-only: shared)."""
    draws = np.random.default_rng(SEED).standard_normal((n_boot, width))
    draws.flags.writeable = False
    return draws
