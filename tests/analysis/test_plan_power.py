"""Does `workbench plan` promise the power `workbench compare` gives? The planner's power is
that of compare's own test (Student's t on questions - clusters degrees of freedom); simulated
studies of the design it is asked about, two models whose questions' chances of naming an
entity are drawn as the planner assumes them (Beta with mean p and intra-question correlation
ICC, the two models unrelated), go through compare, and the share of them whose direct-rate
difference has p < 0.05 is the realised power. The normal approximation the planner used
before promised 63 % at +0.25 for 9 clusters x 2 questions x 5 repetitions where 49 % was
realised in the issue's simulation, 15 % at +0.10 where 9.7 % was.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.analysis import sizing as plan
from workbench.methods.choice.counts import ResponseList
from workbench.methods.choice.paired import paired_lists
from workbench.metrics import intervals

STUDIES = 300
P, ICC = 0.3, 0.33


def realised(rng, clusters: int, questions: int, repetitions: int, difference: float) -> int:
    """How many of STUDIES simulated comparisons reject no difference in the direct rate."""
    total = 1 / ICC - 1
    rejected = 0
    for _ in range(STUDIES):
        lists = []
        for model, mean in (("A", P), ("B", P + difference)):
            chances = rng.beta(mean * total, (1 - mean) * total, clusters * questions)
            for q, chance in enumerate(chances):
                for rep in range(1, repetitions + 1):
                    named = ("Nike",) if rng.random() < chance else ()
                    lists.append(ResponseList(model, "shoes", f"c{q % clusters}", f"q{q}", rep, named))
        record = next(r for r in paired_lists("s", lists, "A", "B") if r["metric"] == "direct_recommendation_rate")
        rejected += record["p"] is not None and record["p"] < 0.05
    return rejected


@pytest.mark.parametrize("difference", [0.25, 0.10])
def test_the_promised_power_is_the_power_compare_gives(difference):
    clusters, questions, repetitions = 9, 2, 5
    pair = plan.assumed_paired(plan.assumed(P, ICC), plan.assumed(P + difference, ICC))
    promised = plan.power(pair, clusters * questions, repetitions, difference, strata=clusters)
    with intervals.resampling(200):
        got = realised(np.random.default_rng([17, int(difference * 100)]), clusters, questions, repetitions, difference)
    band = 3.5 * (STUDIES * promised * (1 - promised)) ** 0.5
    assert abs(got - STUDIES * promised) <= band, (got / STUDIES, promised)
