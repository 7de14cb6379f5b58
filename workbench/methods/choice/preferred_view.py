"""How a PEIR cell says what e* was chosen over (workbench/methods/choice/preferred.py): the
Metrics screen, `workbench metrics` and the report draw the same cell."""

from __future__ import annotations

from workbench.methods.choice.records import Peir
from workbench.metrics.records import has, value_of
from workbench.text.numbers import fmt_num


def rival(r: Peir) -> str:
    """ " · runner-up Adidas 0.33 · first in >99% of draws": what e* was chosen over and how
    often another draw of the questions keeps it first (a close call must not read as a clear
    preference), or why there is none; "" for a tie (the cell names every tied entity) or no e*."""
    if r.entity is None or (has(r, "tied_with") and r.tied_with):
        return ""
    if r.runner_up is None:
        reason = value_of(r, "runner_up_na_reason")
        return f" · runner-up n/a ({reason})" if reason else ""
    text = f" · runner-up {r.runner_up} {fmt_num(r.runner_up_value, 2)}"
    stays = r.stays_preferred
    if stays is None:
        reason = value_of(r, "stays_preferred_na_reason")
        return text + (f" · first in draws n/a ({reason})" if reason else "")
    if stays >= 1:
        return f"{text} · first in all {fmt_num(r.n_boot)} draws"
    shown = ">99%" if stays > 0.99 else "<1%" if stays < 0.01 else f"{stays:.0%}"
    return f"{text} · first in {shown} of draws"
