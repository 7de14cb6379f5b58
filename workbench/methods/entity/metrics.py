"""Entity x template label-probability metrics (docs/methods.md §4), as pure functions.

- s(e, t) = sum_l w_l P(l | t, e)                      (Eq. 1)
- delta(e, t) = (s(e, t) - mu_t) / sigma_t over entities   (Eq. 2; sample sigma, ddof = 1, as the
  framework's code (pandas std) computes it; 0 when the template is flat: sigma within float
  tolerance of 0, or a single entity)
- Delta(e, T) = mean over the task's templates of delta    (Eq. 3); Delta(e) = mean over tasks (Eq. 4)
- macro-F1 of the argmax label against the template's intended label, over all the task's labels
  (sklearn's f1_score(average='macro', labels=..., zero_division=0)); also per entity.
Statistics are computed on one value per entity (its Delta), never on raw prompts.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from workbench.display.na_reasons import shown
from workbench.metrics.support import floor_reason, mann_whitney_floor, wilcoxon_floor


def weighted_scores(rows: Iterable[tuple[str, int, str, float, float]]) -> dict[tuple[str, int], float]:
    """(entity, template, label, weight, prob) rows -> s(e, t)."""
    scores: dict[tuple[str, int], float] = defaultdict(float)
    for entity, template, _label, weight, prob in rows:
        scores[entity, template] += weight * prob
    return dict(scores)


# A template whose scores spread less than this, relative to their magnitude, is flat: the
# entities' label scores differ by float rounding only (log-probabilities that differ by a
# constant normalise to the same probabilities, give or take 1e-16), and standardising that
# noise would turn it into deltas of +-1.
FLAT_TOLERANCE = 1e-9


def _template_stats(scores: dict[tuple[str, int], float]) -> dict[int, tuple[float, float, bool]]:
    """Each template's mean, sample sd (ddof = 1, as the framework's code) and whether it is flat."""
    by_template: dict[int, list[float]] = defaultdict(list)
    for (_entity, template), value in scores.items():
        by_template[template].append(value)
    stats = {}
    for template, values in by_template.items():
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
        stats[template] = (mean, sd, sd <= FLAT_TOLERANCE * max(abs(v) for v in values))
    return stats


def normalised(scores: dict[tuple[str, int], float]) -> dict[tuple[str, int], float]:
    """delta(e, t): each template's scores standardised over its entities; exactly 0 on a
    flat template (one entity, or a spread within float tolerance: `flat_templates`)."""
    stats = _template_stats(scores)
    return {(e, t): 0.0 if stats[t][2] else (v - stats[t][0]) / stats[t][1] for (e, t), v in scores.items()}


def flat_templates(scores: dict[tuple[str, int], float]) -> set[int]:
    """The templates whose entities' scores do not differ beyond float tolerance (relative
    FLAT_TOLERANCE of the scores' magnitude): they contribute delta = 0 to every entity."""
    return {template for template, (_m, _sd, flat) in _template_stats(scores).items() if flat}


def covered(
    scores: dict[tuple[str, int], float], min_entities: int = 1, min_templates: int = 1
) -> dict[tuple[str, int], float]:
    """The scores of templates with at least `min_entities` entities, then of entities
    with at least `min_templates` of those templates (the framework's coverage filters)."""
    per_template: dict[int, int] = defaultdict(int)
    for _entity, template in scores:
        per_template[template] += 1
    kept = {k: v for k, v in scores.items() if per_template[k[1]] >= min_entities}
    per_entity: dict[str, int] = defaultdict(int)
    for entity, _template in kept:
        per_entity[entity] += 1
    return {k: v for k, v in kept.items() if per_entity[k[0]] >= min_templates}


def entity_bias(deltas: dict[tuple[str, int], float]) -> dict[str, tuple[float, int]]:
    """Delta(e, T) and the number of templates behind it."""
    return {e: (sum(v) / len(v), len(v)) for e, v in entity_deltas(deltas).items()}


def entity_deltas(deltas: dict[tuple[str, int], float]) -> dict[str, list[float]]:
    """Each entity's delta per template (what Delta averages, and its interval resamples)."""
    per_entity: dict[str, list[float]] = defaultdict(list)
    for (entity, _template), value in deltas.items():
        per_entity[entity].append(value)
    return dict(per_entity)


def macro_f1(pairs: Sequence[tuple[str, str]], labels: Iterable[str] | None = None) -> float | None:
    """Macro-averaged F1 from (predicted, intended) pairs, over `labels` (the task's
    labels; by default those seen), a label without true or predicted cases scoring 0
    (sklearn's zero_division = 0)."""
    if not pairs:
        return None
    labels = sorted(set(labels) if labels is not None else {p for p, _ in pairs} | {i for _, i in pairs})
    f1s = []
    for label in labels:
        tp = sum(p == label and i == label for p, i in pairs)
        fp = sum(p == label and i != label for p, i in pairs)
        fn = sum(p != label and i == label for p, i in pairs)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(f1s) / len(f1s)


def cohens_d(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Independent groups: mean difference over the pooled standard deviation."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    pooled = math.sqrt(((len(a) - 1) * va + (len(b) - 1) * vb) / (len(a) + len(b) - 2))
    return (ma - mb) / pooled if pooled > 0 else None


def cohens_d_paired(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Paired conditions: mean of the differences over their standard deviation."""
    diffs = [x - y for x, y in zip(a, b)]
    if len(diffs) < 2:
        return None
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    return mean / sd if sd > 0 else None


def group_test(inside: Sequence[float], outside: Sequence[float]) -> dict[str, float | None]:
    """Mann-Whitney U (two-sided) and Cohen's d of one group of entities (one or more) against
    the rest; with why where there is no test."""
    from scipy.stats import mannwhitneyu

    if not outside:  # the group is every entity there is: nothing to compare it with
        return {"u": None, "p": None, "d": None, "p_na_reason": shown("no-outside-group")}
    result = mannwhitneyu(inside, outside, alternative="two-sided")
    # A test that could not give p < 0.05 with these group sizes (a group of one entity
    # against 29: 0.067 at best) finds nothing whatever the data: n/a, out of the Holm family.
    sizes = f"{len(inside)} vs {len(outside)} entities"
    why = floor_reason("Mann-Whitney", sizes, mann_whitney_floor(inside, outside))
    if why:
        return {"u": float(result.statistic), "p": None, "d": cohens_d(inside, outside), "p_na_reason": why}
    return {"u": float(result.statistic), "p": float(result.pvalue), "d": cohens_d(inside, outside)}


def paired_test(a: Sequence[float], b: Sequence[float]) -> dict[str, float | None]:
    """Wilcoxon signed-rank (two-sided) and paired Cohen's d over the same entities."""
    from scipy.stats import wilcoxon

    if len(a) < 2 or all(x == y for x, y in zip(a, b)):
        why = shown("few-paired-entities" if len(a) < 2 else "same-deltas")
        return {"statistic": None, "p": None, "d": cohens_d_paired(a, b), "p_na_reason": why}
    result = wilcoxon(a, b)
    floor = wilcoxon_floor([x - y for x, y in zip(a, b)])
    why = floor_reason("Wilcoxon", f"{len(a)} entities", floor)  # 5 untied: 0.062 at best
    if why:
        return {"statistic": float(result.statistic), "p": None, "d": cohens_d_paired(a, b), "p_na_reason": why}
    return {"statistic": float(result.statistic), "p": float(result.pvalue), "d": cohens_d_paired(a, b)}


def pearson(a: Sequence[float], b: Sequence[float]) -> dict[str, float | None]:
    from scipy.stats import pearsonr

    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return {"r": None, "p": None, "na_reason": shown("few-shared-entities" if len(a) < 3 else "flat-deltas")}
    result = pearsonr(a, b)
    return {"r": float(result.statistic), "p": float(result.pvalue)}
