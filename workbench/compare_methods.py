"""`workbench compare` for identity and entity studies (docs/methods.md, "Comparing two models").

Identity: each group x condition's Mean Share, B's minus A's, over the prompts both models
answered (both are asked the same sampled prompts): the paired unit is the prompt. Entity:
each entity's Delta per task x language x variant x scoring, over the templates both models
scored: the paired unit is the template. Intervals and p-values as for ChoiceEval (a paired
bootstrap of the units, a sign-flip permutation test, Holm and BH over the comparison)."""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np

from workbench.metrics.paired import PairedColumns, share
from workbench.metrics.records import with_adjusted_p


def compare_other(conn: sqlite3.Connection, study_id: int, study: str, model_a: str, model_b: str) -> list | None:
    """The records of an identity or entity study; None for any other (ChoiceEval's lists)."""
    from workbench.compare import check_models

    (method,) = conn.execute("SELECT method FROM studies WHERE id = ?", (study_id,)).fetchone()
    if method == "identity":
        from workbench.methods.identity import paired as identity

        check_models(identity.models(conn, study_id), model_a, model_b, study)
        a, b = (identity.prompt_sums(conn, study_id, m) for m in (model_a, model_b))
        records = _identity_records(study, (model_a, model_b), a, b)
    elif method == "entity":
        from workbench.methods.entity import paired as entity
        from workbench.store.studies import study_rows

        spec = study_rows(conn, study)[0].spec
        check_models(entity.models(conn, study_id), model_a, model_b, study)
        a, b = (entity.template_deltas(conn, study_id, m, spec) for m in (model_a, model_b))
        records = _entity_records(study, (model_a, model_b), a, b)
    else:
        return None
    with_adjusted_p(records, lambda _r: True, ("study",))  # one family: every difference compared
    return records


def _identity_records(study: str, models: tuple[str, str], a: dict, b: dict) -> list[dict[str, Any]]:
    records = []
    for group, condition in sorted(set(a) | set(b)):
        base = {"study": study, "metric": "mean_share", "topic": None, "entity": None}
        base.update(model_a=models[0], model_b=models[1], group=group, condition=condition)
        held_a, held_b = a.get((group, condition), {}), b.get((group, condition), {})
        common = sorted(set(held_a) & set(held_b))
        rows_a = np.asarray([held_a[p] for p in common], dtype=float).reshape(-1, 2)
        rows_b = np.asarray([held_b[p] for p in common], dtype=float).reshape(-1, 2)
        records.append(_paired(base, rows_a, rows_b, "prompt"))
    return records


def _entity_records(study: str, models: tuple[str, str], a: dict, b: dict) -> list[dict[str, Any]]:
    records = []
    for condition in sorted(set(a) & set(b)):
        task, language, variant, method = condition
        for entity in sorted(set(a[condition]) & set(b[condition])):
            base = {"study": study, "metric": "entity_delta", "topic": task, "entity": entity}
            base.update(model_a=models[0], model_b=models[1], condition=f"{language}/{variant}/{method}")
            deltas_a, deltas_b = a[condition][entity], b[condition][entity]
            common = sorted(set(deltas_a) & set(deltas_b))
            rows_a = np.asarray([(1.0, deltas_a[t]) for t in common], dtype=float).reshape(-1, 2)
            rows_b = np.asarray([(1.0, deltas_b[t]) for t in common], dtype=float).reshape(-1, 2)
            records.append(_paired(base, rows_a, rows_b, "template"))
    return records


def _paired(base: dict[str, Any], rows_a: np.ndarray, rows_b: np.ndarray, unit: str) -> dict[str, Any]:
    """B's mean minus A's over the units both have (rows: count, sum), paired by unit."""
    from workbench.compare import _missing, _record

    n = rows_a.shape[0]
    if not n or not rows_a[:, 0].sum() or not rows_b[:, 0].sum():
        record = _missing(base, f"no {unit} both answered with a number", n)
    else:
        columns = PairedColumns(np.zeros(n, dtype=np.int64), [""], rows_a, rows_b)
        record = _record(base, columns, share(1, 0), unit=unit)
    record["ci_unit"] = unit
    record["n_units"] = record.pop("n_questions")
    return record
