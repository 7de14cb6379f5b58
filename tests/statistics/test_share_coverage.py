"""Do a share's intervals over questions cover the population share near 0 and 1, and at the
designs where the logit's t interval did not (docs/methods.md, "Shares near 0 or 1")?

Simulated studies (tests/share_simulation.py: each question its own chance, intra-question
correlation 1/3), seeded, so the counts are the same on every machine. Each cell: at least
0.95 less 3.5 binomial standard deviations of its studies covered, and no interval zero-width
or n/a. Before, at the bundled demo's design (9 clusters x 2 questions x 2 repetitions), shares
of 0.05 and 0.95 were covered in 0.73-0.76 of studies, 0.97 in 0.57-0.60 (12 of 40 intervals
[1, 1]), and any cluster of one question made every interval n/a.
"""

from __future__ import annotations

import numpy as np
import pytest
from share_simulation import coverage, lowest

from workbench.metrics import intervals

STUDIES, BOOT = 300, 200

CELLS = [
    # (design, questions per cluster, repetitions, population), measured covered of 300
    ("demo 9x2x2", [2] * 9, 2, {}),
    ("9x5x10", [5] * 9, 10, {}),
    ("unbalanced 1-12", [1, 2, 3, 5, 8, 12], 3, {}),
    ("few clusters (3)", [4] * 3, 3, {}),
    ("cluster effect", [2] * 9, 2, {"cluster_sd": 0.5}),
]


@pytest.mark.parametrize("name, sizes, repetitions, population", CELLS, ids=[c[0] for c in CELLS])
@pytest.mark.parametrize("share", [0.02, 0.05, 0.95, 0.98])
def test_share_intervals_cover_near_the_ends(name, sizes, repetitions, population, share):
    rng = np.random.default_rng([11, int(share * 1000), len(sizes), repetitions])
    with intervals.resampling(BOOT):
        out = coverage(rng, sizes, repetitions, share, STUDIES, **population)
    assert out["na"] == 0 and out["zero_width"] == 0, out
    assert out["covered"] >= lowest(STUDIES), out


def test_every_answer_naming_it_is_no_certainty():
    """The issue's case: 36 answers to 18 questions all name Nike. Before: [1.00, 1.00]."""
    from share_simulation import study

    from workbench.metrics import clustered

    hits, questions, _ = study(np.random.default_rng(0), [2] * 9, 2, 0.999999, icc=0.01)
    assert hits.sum() == 36
    fields = clustered.share_fields(hits, questions)
    assert fields["ci_high"] == 1.0 and fields["ci_low"] == pytest.approx(0.815, abs=0.001)
