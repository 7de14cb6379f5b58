"""The planner's formulas (`workbench plan`, workbench/analysis/sizing.py; docs/methods.md, "Planning a
study").

Answers to one question resemble each other, so repetitions buy less than questions: with
an intra-question correlation ICC, R repetitions of Q questions estimate a share p with

    Var(p^) = p (1 - p) (1 + (R - 1) ICC) / (Q R)          (design effect 1 + (R - 1) ICC)

and a paired difference between two models (each question's mean difference d_q, over Q
questions in S clusters) with

    Var(d^) = (s2_b,diff + s2_w / R) / Q

where s2_b,diff is the between-question variance of the two models' difference in chance
and s2_w the within-question variance of one answer's difference (both models' within
variances summed). The questions needed follow from the test `workbench compare` runs, Student's
t on Q - S degrees of freedom: a half-width h at level 1 - a needs t(1 - a/2; Q - S) sd <= h;
the power against a difference D is that of the two-sided t test, P(|T'| > t(1 - a/2; Q - S))
with T' noncentral t of noncentrality D / sd. The normal approximation this planner used before
promised 63 % power at +0.25 for 9 clusters x 2 questions x 5 repetitions where compare's test
gave 49 % in simulated studies, 15 % at +0.10 where it gave 9.7 % (tests/analysis/test_plan_power.py).
The components come from stated assumptions (--p, --icc) or from a pilot study's stored answers
(one-way ANOVA over questions).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from workbench.errors import PlanError  # noqa: F401  (raised here; the family is workbench.errors)

REPETITIONS = (1, 2, 3, 5, 10, 20)  # the trade-off table's rows (and the study file's own R)
LEVEL = 0.95


@dataclass(frozen=True)
class Components:
    """One share's variance components: its mean p, the between-question variance of the
    questions' chances and the mean within-question variance of an answer."""

    p: float
    between: float
    within: float
    source: str

    @property
    def icc(self) -> float:
        total = self.between + self.within
        return self.between / total if total > 0 else 0.0


@dataclass(frozen=True)
class PairedComponents:
    """A paired difference's: between-question variance of the difference in chance
    (s2_b,diff) and the within-question variance of one answer's difference (s2_w)."""

    between: float
    within: float
    source: str


def z(q: float) -> float:
    return NormalDist().inv_cdf(q)


def t_quantile(q: float, df: float) -> float:
    from scipy import special  # not scipy.stats: a second to import

    return float(special.stdtrit(df, q))


def _df(questions: int, strata: int) -> int:
    """Student's t's degrees of freedom over `questions` in `strata` clusters, as compare's."""
    return max(questions - strata, 1)


def assumed(p: float, icc: float) -> Components:
    """Components of a share p whose questions' chances have intra-question correlation icc
    (Beta-distributed chances: Var(p_q) = icc p (1 - p), E p_q (1 - p_q) = (1 - icc) p (1 - p))."""
    return Components(p, icc * p * (1 - p), (1 - icc) * p * (1 - p), f"assumed: p {p:g}, ICC {icc:g}")


def assumed_paired(a: Components, b: Components, correlation: float = 0.0) -> PairedComponents:
    """The difference of two models' shares from each one's components, their questions'
    chances correlated `correlation` across the two models (0: unrelated, the cautious case)."""
    between = a.between + b.between - 2 * correlation * math.sqrt(a.between * b.between)
    return PairedComponents(max(between, 0.0), a.within + b.within, f"{a.source}; models' correlation {correlation:g}")


def half_width(c: Components, questions: int, repetitions: int, level: float = LEVEL, strata: int = 1) -> float:
    variance = c.p * (1 - c.p) * (1 + (repetitions - 1) * c.icc) / (questions * repetitions)
    return t_quantile(1 - (1 - level) / 2, _df(questions, strata)) * math.sqrt(variance)


def questions_for_half_width(
    c: Components, repetitions: int, target: float, level: float = LEVEL, strata: int = 1
) -> int:
    variance_one = c.p * (1 - c.p) * (1 + (repetitions - 1) * c.icc) / repetitions  # of one question's mean
    start = max(2, strata + 1, math.ceil(z(1 - (1 - level) / 2) ** 2 * variance_one / target**2))
    return _least(start, lambda q: half_width(c, q, repetitions, level, strata) <= target)


def power(
    d: PairedComponents, questions: int, repetitions: int, difference: float, level: float = LEVEL, strata: int = 1
) -> float:
    """The two-sided t test's power on Q - S degrees of freedom (noncentral t)."""
    from scipy import special

    se = math.sqrt(_difference_variance(d, repetitions) / questions)
    df = _df(questions, strata)
    critical, shift = t_quantile(1 - (1 - level) / 2, df), abs(difference) / se
    return float(1 - special.nctdtr(df, shift, critical) + special.nctdtr(df, shift, -critical))


def questions_for_power(
    d: PairedComponents, repetitions: int, difference: float, target: float = 0.8, level: float = LEVEL, strata: int = 1
) -> int:
    zs = z(1 - (1 - level) / 2) + z(target)  # the normal's answer: never more than t needs
    start = max(2, strata + 1, math.ceil(zs**2 * _difference_variance(d, repetitions) / difference**2))
    return _least(start, lambda q: power(d, q, repetitions, difference, level, strata) >= target)


def _least(start: int, enough) -> int:
    """The least number of questions from `start` on that is `enough` (which holds from some
    number on): doubling, then halving the gap."""
    low, high = start - 1, start
    while not enough(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def _difference_variance(d: PairedComponents, repetitions: int) -> float:
    """One question's variance of the difference; refused where it is 0 (a pilot whose models
    answer every question alike, each question all one way): it would promise full power from 2
    questions, as a share without variance would plan any half-width from 2."""
    variance = d.between + d.within / repetitions
    if variance <= 0:
        raise PlanError(
            f"{d.source}: the models' difference is the same on every question and answer (its variance is 0) "
            "and plans no comparison; give --p, --icc and --difference instead of --pilot"
        )
    return variance
