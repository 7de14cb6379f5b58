"""Everything a method plugin imports, in one module: the plugin API (docs/writing-a-method.md).

A method package imports from here and nowhere else in the workbench; what is here keeps its
name and meaning within an API version (`API_VERSION`), and a name that changes is kept, with a
DeprecationWarning, for one version more (CHANGELOG.md lists each change). Modules elsewhere in
the workbench move as it grows: a plugin importing them directly breaks without notice.

    from workbench import plugin

    class MyMethod(plugin.Method):
        name = "mymethod"
        ...

Errors: `plugin.errors` is the workbench's one family (`workbench.errors`); raise a
`UserFacingError` (or a subclass: `StudyError`, `InputError`, ...) for what a user can fix: one
line, naming what and where, shown without a traceback.

Records: a method's numbers are frozen dataclasses (or flat dicts). Their interval and test
come from the core as values (`Interval`, `Test`, declared with `nested()`), so the keys they
write (`ci_low`, `ci_high`, `ci_level`, `n_boot`, `ci_unit`, `ci_na_reason`; `p`, `p_holm`,
`p_bh`) follow the core's without the record naming them: a key the core adds reaches the
plugin's records without an edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench import errors
from workbench.asking.keys import request_key
from workbench.asking.prompts import fill, load_prompt
from workbench.display.evidence import Answer, Evidence, EvidenceError, Query, known, model_named
from workbench.display.metric_views import Filter, Forest, Panel
from workbench.engines.specs import ModelSpec
from workbench.errors import (
    CsvInputError,
    InputError,
    JsonInputError,
    StudyError,
    UserFacingError,
    WorkbenchError,
)
from workbench.files.csv_input import read_rows
from workbench.files.json_input import load_json
from workbench.methods.base import API_VERSION, MethodBase, lazy
from workbench.methods.hook_types import Comparing, EvidenceSource, ReviewView, Sizing, TemplateEditing
from workbench.methods.kinds import ExportKind, ImportKind, Option
from workbench.methods.registry import Stages, register
from workbench.metrics.records import (
    UNSET,
    Interval,
    Test,
    Unset,
    as_row,
    as_rows,
    has,
    nested,
    spliced,
    value_of,
    with_adjusted_p,
)
from workbench.store.db import transaction
from workbench.store.requests.answer_texts import answer_texts
from workbench.store.requests.answers import answered, payloads
from workbench.store.requests.queue import PlannedRequest, PlanUnit
from workbench.studies.spec import (
    Where,
    beside,
    expect,
    read_generation,
    read_models,
    read_name,
    read_toml,
)
from workbench.text.literal import literal_text, visible_line
from workbench.text.numbers import fmt_num, with_interval
from workbench.text.words import plural

# The base every method subclasses: every hook with its default (workbench/methods/base.py).
Method = MethodBase


def proportion_interval(hits: int, n: int, unit: str = "answer") -> Interval:
    """The interval of a share of `n` independent units (`hits` of them counted): Clopper-
    Pearson's on n, never zero-width at 0 or 1; n/a, with its reason, under 2 units. Where
    units repeat one question (answers to the same prompt), resample the questions instead
    (`mean_interval` of each question's share, unit "question")."""
    from workbench.metrics.intervals import effective_n_interval, units_text

    if not 0 <= hits <= n:
        raise ValueError(f"a share counts 0 to n units: {hits!r} of {n!r}")
    if n < 2:
        return Interval(None, None, unit=unit, na_reason=units_text(n, unit))
    low, high = effective_n_interval(hits / n, None, n)
    return Interval(low, high, unit=unit)


def mean_interval(values: Sequence[float], unit: str, bounds: tuple[float, float] | None = None) -> Interval:
    """The interval of the mean of `values`, one per unit (seed, prompt, question): Student's t
    over the units, clipped to `bounds`; n/a, with its reason, under 2 units or with no spread."""
    import math

    from workbench.metrics.support import mean_interval as core_mean_interval

    if any(not math.isfinite(value) for value in values):
        return Interval(None, None, unit=unit, na_reason=f"a {unit}'s value is not a number")
    low, high, why = core_mean_interval(values, unit, bounds=bounds)
    return Interval(low, high, unit=unit, na_reason=why)


__all__ = [
    "API_VERSION",
    "UNSET",
    "Answer",
    "Comparing",
    "CsvInputError",
    "Evidence",
    "EvidenceError",
    "EvidenceSource",
    "ExportKind",
    "Filter",
    "Forest",
    "ImportKind",
    "InputError",
    "Interval",
    "JsonInputError",
    "Method",
    "MethodBase",
    "ModelSpec",
    "Option",
    "Panel",
    "PlanUnit",
    "PlannedRequest",
    "Query",
    "ReviewView",
    "Sizing",
    "Stages",
    "StudyError",
    "TemplateEditing",
    "Test",
    "Unset",
    "UserFacingError",
    "WorkbenchError",
    "Where",
    "answer_texts",
    "answered",
    "as_row",
    "as_rows",
    "beside",
    "errors",
    "expect",
    "fill",
    "fmt_num",
    "has",
    "known",
    "lazy",
    "literal_text",
    "load_json",
    "load_prompt",
    "mean_interval",
    "model_named",
    "nested",
    "payloads",
    "plural",
    "proportion_interval",
    "read_generation",
    "read_models",
    "read_name",
    "read_rows",
    "read_toml",
    "register",
    "request_key",
    "spliced",
    "transaction",
    "value_of",
    "visible_line",
    "with_adjusted_p",
    "with_interval",
]
