"""Does the log-odds' interval cover its population value when clusters hold very different
numbers of questions (docs/methods.md, "Unbalanced clusters")?

The mean over clusters weighs each cluster alike, so most of its variance comes from the small
ones: with 2, 2, 12 and 12 questions per cluster, Student's t on questions - clusters (24
degrees of freedom where the two small clusters earn about 2) covered the population value in
0.870 of simulated studies, 2, 3, 8, 12 in 0.896-0.904. Satterthwaite's degrees of freedom,
from each cluster's share of the variance, bring it to the nominal level. Seeded studies of
the slotted population (tests/choice_simulation.py: three slots an answer, each question its
own chance of a US brand, intra-question correlation 1/3), 2 repetitions.
"""

from __future__ import annotations

import numpy as np
import pytest
from choice_simulation import log_odds, slotted_unbalanced
from share_simulation import lowest

from workbench.metrics import intervals

STUDIES = 400


@pytest.mark.parametrize("sizes", [[2, 2, 12, 12], [2, 3, 8, 12]], ids=["2-2-12-12", "2-3-8-12"])
def test_the_log_odds_covers_with_unbalanced_clusters(sizes):
    rng = np.random.default_rng([5, *sizes])
    covered = shown = agree = 0
    with intervals.resampling(50):  # the log-odds' interval is linearised: no resample is drawn for it
        for _ in range(STUDIES):
            arrays, truth = slotted_unbalanced(rng, sizes, 2)
            lor = log_odds(arrays)
            low, high = lor.ci
            if low is None:
                continue
            shown += 1
            covered += low <= truth <= high
            agree += (lor.p < 0.05) == (low > 0 or high < 0)
    assert shown >= STUDIES - 5  # n/a only where a study's questions all agree
    assert agree == shown  # one inference: the p is the interval's own test
    assert covered >= lowest(shown), (covered, shown)
