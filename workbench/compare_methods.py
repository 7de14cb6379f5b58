"""`workbench compare` for the methods that pair their own units (docs/methods.md, "Comparing
two models"): a method whose class names a `compare_module` gives, from that module's
`paired_records`, its numbers per unit for both models (identity: each group x condition's
Mean Share per prompt; entity: each entity's delta per template), and each difference is made
here as for ChoiceEval: a paired bootstrap of the units, a sign-flip permutation test, Holm
and BH over the comparison."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.metrics.paired import PairedColumns, share
from workbench.metrics.records import with_adjusted_p


@dataclass(frozen=True)
class Pairing:
    """What a method's `paired_records` is handed: the study, the two models, the check that
    refuses a pair, and `paired` (a record of B's mean minus A's from per-unit rows)."""

    study: str
    model_a: str
    model_b: str
    check: Callable[[list[str]], None]
    paired: Callable[[dict[str, Any], np.ndarray, np.ndarray, str], dict[str, Any]]


def _compare_module(conn: sqlite3.Connection, study: str) -> str:
    """The module pairing the study's method's own units, "" for a method that has none."""
    from workbench.methods import registry
    from workbench.store.studies import study_spec

    name = study_spec(conn, study).get("method", "")
    return getattr(registry.get(name), "compare_module", "") if name in registry.names() else ""


def other_models(conn: sqlite3.Connection, study_id: int, study: str) -> list[str] | None:
    """The models whose answers count now in a study whose method pairs its own units (its
    module's `models`: identity's outputs, entity's scores); None for any other."""
    from importlib import import_module

    module = _compare_module(conn, study)
    return import_module(module).models(conn, study_id) if module else None


def compare_other(conn: sqlite3.Connection, study_id: int, study: str, models: tuple[str, str], core) -> list | None:
    """The records of a study whose method pairs its own units; None for any other.
    `core`: (check_models, the record maker, the missing-record maker) of workbench.compare."""
    from importlib import import_module

    module = _compare_module(conn, study)
    if not module:
        return None
    check_models, record, missing = core

    def paired(base: dict[str, Any], rows_a: np.ndarray, rows_b: np.ndarray, unit: str) -> dict[str, Any]:
        """B's mean minus A's over the units both have (rows: count, sum), paired by unit."""
        n = rows_a.shape[0]
        if not n or not rows_a[:, 0].sum() or not rows_b[:, 0].sum():
            out = missing(base, f"no {unit} both answered with a number", n)
        else:
            out = record(base, PairedColumns(np.zeros(n, dtype=np.int64), [""], rows_a, rows_b), share(1, 0), unit=unit)
        out["ci_unit"] = unit
        out["n_units"] = out.pop("n_questions")
        return out

    pairing = Pairing(study, *models, lambda names: check_models(names, *models, study), paired)
    records = import_module(module).paired_records(conn, study_id, pairing)
    with_adjusted_p(records, lambda _r: True, ("study",))  # one family: every difference compared
    return records
