"""`workbench compare`: two models of one study, paired over what both answered (docs/methods.md,
"Comparing two models").

The study's method pairs its own units: its `compare` part
(docs/writing-a-method.md, "Comparing two models") whose `paired_records` gives every
difference B - A as a flat record, each with a paired interval (ChoiceEval: the same questions
resampled for both models; identity's prompts and entity's templates, paired one to one:
Student's t on their differences) and the p of the same test (workbench.metrics.paired_records);
here the study is found, the pair checked and Holm and Benjamini-Hochberg p-values put over
the comparison's differences that have a p (one family: a difference that is n/a, and so has
no p, is no finding and stays out). A study whose method has no such module is refused in one
line naming the methods that have one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.errors import CompareError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.metrics.paired import PairedColumns, jackknife_se, share
from workbench.metrics.paired_records import adjusted, missing_record, paired_record

# The flat record's keys (CSV columns) in order; reasons appear only where a number is missing.
COMPARE_FIELDS = [
    "study",
    "metric",
    "topic",
    "entity",
    "region",
    "region_a",
    "region_b",
    "model_a",
    "model_b",
    "value_a",
    "value_b",
    "difference",
    "ci_low",
    "ci_high",
    "ci_level",
    "n_boot",
    "ci_unit",
    "p",
    "p_holm",
    "p_bh",
    "n_questions",
    "questions_only_a",
    "questions_only_b",
    "tied_with",
    "group",
    "condition",
    "n_units",
    "na_reason",
    "ci_na_reason",
    "p_na_reason",
]


@dataclass(frozen=True)
class Pairing:
    """What a method's `paired_records` is handed: the study, the two models, the check that
    refuses a pair (`check(models)`: the study's models, in name order), and `paired` (a
    record of B's mean minus A's from per-unit rows, for a method whose units carry one number)."""

    study: str
    model_a: str
    model_b: str
    check: Callable[[list[str]], None]
    paired: Callable[[dict[str, Any], np.ndarray, np.ndarray, str], dict[str, Any]]


def check_models(models: Sequence[str], model_a: str, model_b: str, study: str) -> None:
    """Refuse, in one line, a pair that cannot be compared."""
    listed = ", ".join(models) or "none"
    if len(models) < 2:
        raise CompareError(f"study {study!r} has {len(models)} model(s) ({listed}): a comparison needs two")
    for name in (model_a, model_b):
        if name not in models:
            raise CompareError(f"no model {name!r} in study {study!r} (its models: {listed})")
    if model_a == model_b:
        raise CompareError(f"--models names {model_a!r} twice: name two of {listed}")


def paired_units(base: dict[str, Any], rows_a: np.ndarray, rows_b: np.ndarray, unit: str) -> dict[str, Any]:
    """B's mean minus A's over the units both have a number on (rows: count, sum), paired by
    unit: Student's t on the units' paired differences (workbench.metrics.paired.jackknife_se)."""
    both = (rows_a[:, 0] > 0) & (rows_b[:, 0] > 0)
    rows_a, rows_b = rows_a[both], rows_b[both]
    n = rows_a.shape[0]
    if not n:
        out = missing_record(base, f"no {unit} both answered with a number", n)
    else:
        columns = PairedColumns(np.zeros(n, dtype=np.int64), [""], rows_a, rows_b)
        out = paired_record(base, columns, share(1, 0), unit=unit, se=jackknife_se)
    out["ci_unit"] = unit
    out["n_units"] = out.pop("n_questions")
    return out


def comparable_methods() -> list[str]:
    """The methods whose studies can be compared (those offering a `compare` part), in order."""
    from workbench.methods import registry
    from workbench.methods.hooks import part

    return [name for name in registry.names() if part(registry.get(name), "compare") is not None]


def _comparing(conn: sqlite3.Connection, study: str) -> Any:
    """The part pairing the study's method's own units (`hook_types.Comparing`), None for a
    method that has none."""
    from workbench.methods import registry
    from workbench.methods.hooks import part
    from workbench.store.requests.studies import study_method

    name = study_method(conn, study)
    return part(registry.get(name), "compare") if name in registry.names() else None


def _not_compared(conn: sqlite3.Connection, study: str) -> CompareError:
    """The refusal of a study whose method pairs nothing, naming the methods that do."""
    from workbench.methods import registry
    from workbench.store.requests.studies import study_method

    name = study_method(conn, study)
    method = name if name in registry.names() else f"{name}, not installed here"
    methods = comparable_methods() or ["no"]
    listed = " or ".join(filter(None, (", ".join(methods[:-1]), methods[-1])))
    return CompareError(
        f"study {study!r} (method {method}) is not paired by `workbench compare`: it compares {listed} studies"
    )


def nothing_to_pair(conn: sqlite3.Connection) -> str | None:
    """Why no study of the store can be compared when none is of a method that pairs its units
    (the Metrics screen's c), naming the methods that do; None when one is."""
    from workbench.store.requests import studies

    names = studies.study_names(conn)
    if not names or any(_comparing(conn, study) is not None for study in names):
        return None
    if len(names) == 1:
        return str(_not_compared(conn, names[0]))
    said = str(_not_compared(conn, names[0]))
    return "no study here is of a method `workbench compare` pairs: " + said.split(": ", 1)[1]


def compare_study(conn: sqlite3.Connection, study: str, model_a: str, model_b: str) -> list[dict[str, Any]]:
    """The comparison `workbench compare` prints, from the study's method's compare module."""

    from workbench.store.requests import studies

    study_id = studies.study_id(conn, study)
    if study_id is None:
        known = ", ".join(studies.study_names(conn)) or "none"
        raise CompareError(f"no study named {study!r} in this database (known: {known})")
    comparing = _comparing(conn, study)
    if comparing is None:
        raise _not_compared(conn, study)
    pairing = Pairing(study, model_a, model_b, lambda names: check_models(names, model_a, model_b, study), paired_units)
    records = comparing.paired_records(conn, study_id, pairing)
    adjusted(records)
    return records


def comparable_models(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Every study by name with the models a comparison of it can pick from, in name order:
    those whose answers count now (its method's compare module's `models`), not a model
    removed from the study file; none for a study whose method pairs nothing. Read inside
    one `snapshot`."""

    from workbench.store.requests import studies

    out: dict[str, list[str]] = {}
    for study in studies.study_names(conn):
        comparing = _comparing(conn, study)
        out[study] = comparing.models(conn, studies.study_id(conn, study)) if comparing is not None else []
    return out
