"""A difference of two shares where the paired resamples cannot speak: Newcombe's hybrid score
interval, and the p that inverts it.

Where both models' shares sit at 0 or 1 on every question (A names Nike in every answer, B
never), every resample of the questions gives the same difference, and Student's t times their
standard deviation, 0, gave "PEIR -1.000 [-1.00, -1.00]": certainty no finite number of answers
gives. A share of 0 or 1 has no spread of its own either, so a difference with one such side
takes its width from the other side only. Such a difference (no spread, or a share at 0 or 1)
takes Newcombe's hybrid score interval (method 10 of Newcombe 1998) from each model's Wilson
interval on its effective sample size: its answers where its share is 0 or 1 or does not move
between questions, else share (1 - share) / se^2 (its own resamples' standard error, the
answers' clustering in questions counted), at most its answers. Wilson's z is Student's t
(0.975) on the comparison's degrees of freedom (questions less clusters), as the t interval's.

Its p inverts the interval: the level at which the interval's nearer end reaches 0, found by
bisection, so p < 0.05 exactly when the 95 % interval leaves out 0, as the t test's does.
"""

from __future__ import annotations

from workbench.metrics.intervals import LEVEL


def wilson(share: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of a share of n at normal deviate z."""
    z2n = z * z / n
    centre = (share + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * max(0.0, share * (1 - share) / n + z2n / (4 * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def effective_n(share: float, se: float | None, answers: float) -> float:
    """The sample size a share's own standard error stands for, at most its answers; its answers
    where it has no spread to read (a share of 0 or 1, or one every question gives alike)."""
    if se is None or se <= 0 or not 0 < share < 1:
        return float(answers)
    return min(float(answers), share * (1 - share) / se**2)


def newcombe(a: tuple[float, float], b: tuple[float, float], df: int, level: float = LEVEL) -> tuple[float, float]:
    """Newcombe's interval of B's share minus A's, each (share, effective n), Wilson's z
    Student's t on `df` degrees of freedom."""
    from scipy import special

    z = float(special.stdtrit(df, 0.5 + level / 2))
    (share_a, n_a), (share_b, n_b) = a, b
    low_a, high_a = wilson(share_a, n_a, z)
    low_b, high_b = wilson(share_b, n_b, z)
    d = share_b - share_a
    low = d - ((share_b - low_b) ** 2 + (high_a - share_a) ** 2) ** 0.5
    high = d + ((high_b - share_b) ** 2 + (share_a - low_a) ** 2) ** 0.5
    return max(-1.0, low), min(1.0, high)


def newcombe_test(
    a: tuple[float, float], b: tuple[float, float], df: int, level: float = LEVEL
) -> tuple[float, float, float]:
    """(low, high, p): `newcombe` at `level`, and the p that inverts it: the smallest 1 - level'
    whose interval leaves out 0 (bisection; the intervals nest as the level grows)."""
    low, high = newcombe(a, b, df, level)
    if b[0] == a[0]:
        return low, high, 1.0

    def leaves_out_zero(alpha: float) -> bool:
        lo, hi = newcombe(a, b, df, 1 - alpha)
        return lo > 0 or hi < 0

    inside, outside = 0.0, 1.0  # at level 1 the interval holds 0; as the level falls to 0 it shrinks to B - A
    for _ in range(60):
        middle = (inside + outside) / 2
        inside, outside = (inside, middle) if leaves_out_zero(middle) else (middle, outside)
    return low, high, outside
