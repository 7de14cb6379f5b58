"""The report summary's headline effects: which of a method's effects lead, and how each reads.

Headlines are ranked by evidence, not size: a large log-odds resting on 3 of 9 clusters with
an interval from -1.05 to 3.33 says less than a small one whose interval lies far from 0. The
rank is the adjusted p (Holm; the record's own p where it has no adjusted one), then how far
the interval's nearer end lies from 0 on the estimate's side. An estimate that is n/a or has
no interval is no headline (the n/a table says why). Every caveat its table row carries (the
share of a persona's items outside the catalog, flat templates, a template without the
group's signal) goes with it into the sentence.

One inference per sentence: the p quoted is the record's `p` and `p_holm`, which invert its
interval (p < 0.05 exactly when the 95% interval leaves out 0). A record whose p and interval
disagree (a plugin's, or a p from another test) has its p left unquoted; a field such as
`p_paper` (the paper's own test, kept for fidelity) is never read here."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workbench.display.metric_views import MOSTLY_OUT
from workbench.text.numbers import fmt_num

Row = dict[str, Any]


def _no_caveats(row: Row, rows: list[Row]) -> list[str]:
    return []


@dataclass(frozen=True)
class Effect:
    """One method's headline effect: which records, which field holds it, how a row reads,
    and whether 0 means no effect (a divergence is never below 0: it has no side)."""

    metric: str
    field: str
    label: str  # a format string over the record's fields
    signed: bool = True
    keep: Any = None  # a record filter beyond the metric
    rests_on: str = "n {n}"  # what the number rests on, a format string over the record's fields
    caveats: Callable[[Row, list[Row]], list[str]] = field(default=_no_caveats)  # what its table row warns of


def _out_of_catalog(row: Row, rows: list[Row]) -> list[str]:
    """A divergence's persona with most items outside the catalog diverges whatever the persona
    (the cold-start table's "out 62% ⚠"), and seeds left out for want of a neutral list."""
    said = []
    rate = next(
        (
            r.get("mean")
            for r in rows
            if r.get("metric") == "out_of_catalog_rate"
            and all(r.get(k) == row.get(k) for k in ("study", "model", "persona_category", "persona"))
        ),
        None,
    )
    if rate is not None and rate > MOSTLY_OUT:
        said.append(
            f"warning: {rate:.0%} of its items are outside the catalog, so the divergence says little about the persona"
        )
    elif rate:
        said.append(f"{rate:.0%} of its items outside the catalog")
    if row.get("seeds_without_neutral"):
        said.append(f"{row['seeds_without_neutral']} seed(s) left out: their neutral list names no catalog item")
    return said


def _flat_templates(row: Row, rows: list[Row]) -> list[str]:
    flat = row.get("flat_templates")
    return [f"{flat} of {row.get('n')} templates flat: they add Delta = 0"] if flat else []


def _no_signal(row: Row, rows: list[Row]) -> list[str]:
    return ["no dialect in the template: the condition cannot signal the group"] if row.get("no_signal") else []


EFFECTS = (
    Effect(
        "lor",
        "mean",
        "{model} · {topic}: log-odds {region_a} vs {region_b}",
        keep=lambda r: not r.get("cluster"),
        rests_on="{n_clusters} of {n_total} clusters, {slots_a} vs {slots_b} slots",
    ),
    Effect(
        "mean_share_vs_baseline",
        "difference",
        "{model} · {group} · {condition}: Mean Share minus the baseline's",
        caveats=_no_signal,
    ),
    Effect(
        "iou_divergence",
        "mean",
        "{model} · {persona}: IOU divergence from the neutral list",
        signed=False,
        rests_on="{n} seeds",
        caveats=_out_of_catalog,
    ),
    Effect(
        "entity_delta",
        "value",
        "{model} · {variant}: Delta of {entity}",
        rests_on="{n} templates",
        caveats=_flat_templates,
    ),
    Effect("group_delta", "value", "{model} · {attribute} = {value_label}: mean Delta", rests_on="{n} entities"),
)

REASONS = ("na_reason", "ci_na_reason", "p_na_reason")  # an estimate with any is no headline


def _interval(row: Row) -> tuple[float, float] | None:
    low, high = row.get("ci_low"), row.get("ci_high")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and math.isfinite(low) and math.isfinite(high):
        return float(low), float(high)
    return None


def excludes_zero(row: Row) -> bool | None:
    interval = _interval(row)
    return None if interval is None else (interval[0] > 0 or interval[1] < 0)


def one_test(row: Row) -> bool:
    """Whether the record's p is its interval's test: p < 0.05 exactly when the interval
    leaves out 0 (a p of another test beside an interval would contradict it)."""
    p, excludes = row.get("p"), excludes_zero(row)
    if p is None or excludes is None:
        return False
    # at the boundary (an end at 0, p at 0.05) rounding may tip either side: that is one test still
    edge = abs(p - 0.05) < 1e-9 or min(abs(end) for end in _interval(row)) < 1e-12
    return edge or (p < 0.05) == excludes


def adjusted(row: Row) -> float | None:
    """The p a headline ranks by: Holm's, else the record's own; none where it is not the
    interval's test."""
    if not one_test(row):
        return None
    holm = row.get("p_holm")
    return holm if isinstance(holm, (int, float)) else row.get("p")


def distance_from_zero(effect: Effect, row: Row) -> float:
    """How far the interval's end nearer 0 lies from 0 on the estimate's side (negative where
    the interval holds 0: by how much); a divergence has one side, above 0."""
    low, high = _interval(row) or (-math.inf, math.inf)
    if not effect.signed or row[effect.field] >= 0:
        return low
    return -high


def supported(effect: Effect, row: Row) -> bool:
    """An estimate of this kind with a value and an interval, and no n/a reason."""
    return (
        row.get("metric") == effect.metric
        and row.get(effect.field) is not None
        and (effect.keep is None or effect.keep(row))
        and not any(row.get(k) for k in REASONS)
        and _interval(row) is not None
    )


def headline_effects(rows: list[Row], top: int = 3) -> tuple[Effect, list[Row], int] | None:
    """The first kind of effect (EFFECTS, in order) the records have values of, its `top`
    best-evidenced estimates (adjusted p, then the interval's distance from 0; ties by label,
    so a report reads the same every time) and how many of that kind have a value but no
    interval or an n/a reason (left out)."""
    for effect in EFFECTS:
        valued = [
            r
            for r in rows
            if r.get("metric") == effect.metric
            and r.get(effect.field) is not None
            and (effect.keep is None or effect.keep(r))
        ]
        if not valued:
            continue
        found = sorted((r for r in valued if supported(effect, r)), key=lambda r, e=effect: _rank(e, r))
        return effect, found[:top], len(valued) - len(found)
    return None


def _rank(effect: Effect, row: Row) -> tuple[float, float, str]:
    p = adjusted(row)
    return (math.inf if p is None else p, -distance_from_zero(effect, row), label(effect, row))


def label(effect: Effect, row: Row, form: str | None = None) -> str:
    class Missing(dict):
        def __missing__(self, key: str) -> str:
            return "?"

    return (form or effect.label).format_map(Missing({k: "" if v is None else v for k, v in row.items()}))


def effect_sentence(effect: Effect, row: Row, rows: list[Row] = ()) -> str:
    """The effect with its interval, what it rests on, every caveat its row carries, and its
    tests (p, and adjusted over the family: Holm) where they are the interval's; then what
    they allow one to say: an interval that excludes 0 while the adjusted test does not
    reject is said to be that, not a finding."""
    value, interval = row[effect.field], _interval(row)
    text = f"{label(effect, row)}: {fmt_num(value, 2, signed=effect.signed)}"
    if interval:
        text += f" [{fmt_num(interval[0], 2)}, {fmt_num(interval[1], 2)}]"
    tests = []
    if one_test(row):
        tests.append(f"p {fmt_num(row['p'])}")
        tests += [f"Holm {fmt_num(row['p_holm'])}"] if row.get("p_holm") is not None else []
    elif row.get("p") is not None and interval:
        tests.append("its p is not its interval's test, so not quoted")
    text += f" ({'; '.join([label(effect, row, effect.rests_on), *effect.caveats(row, list(rows)), *tests])})"
    if not interval:
        reason = row.get("ci_na_reason")
        return text + (f", no interval ({reason})." if reason else ", no interval.")
    if not effect.signed:
        return text + "."
    if not excludes_zero(row):
        return text + ": the 95% interval includes 0, so the data cannot tell this from no effect."
    holm = row.get("p_holm") if one_test(row) else None
    if holm is not None and holm >= 0.05:
        return (
            text
            + ": the 95% interval excludes 0, but the test adjusted for every comparison (Holm) does not reject no effect."
        )
    return text + ": the 95% interval excludes 0."
