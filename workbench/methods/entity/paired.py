"""Entity deltas per template, for a paired comparison of two models (`workbench compare`):
both models score the same entity x template prompts, so a template is the unit they are
paired by (Delta averages an entity's delta over templates)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict


def template_deltas(conn: sqlite3.Connection, study_id: int, model: str, spec: dict) -> dict[tuple, dict]:
    """Per (task, language, variant, method), per entity: its delta on each template."""
    from workbench.methods.entity import metrics as em
    from workbench.methods.entity.data import CURRENT

    cells: dict[tuple, list] = defaultdict(list)
    for task, language, variant, method, entity, template, label, weight, prob in conn.execute(
        "SELECT task, language, variant, method, entity, template_id, label, weight, prob FROM label_scores "
        f"WHERE study_id = ? AND model = ? AND {CURRENT} ORDER BY rowid",
        (study_id, model),
    ):
        cells[task, language, variant, method].append((entity, template, label, weight, prob or 0.0))
    out: dict[tuple, dict] = {}
    for condition, rows in cells.items():
        scores = em.covered(em.weighted_scores(rows), spec.get("min_entities", 1), spec.get("min_templates", 1))
        per_entity: dict[str, dict[int, float]] = defaultdict(dict)
        for (entity, template), delta in em.normalised(scores).items():
            per_entity[entity][template] = delta
        out[condition] = dict(per_entity)
    return out


def models(conn: sqlite3.Connection, study_id: int) -> list[str]:
    """The models with scores that count in the study, by name."""
    from workbench.methods.entity.data import CURRENT

    rows = conn.execute(
        f"SELECT DISTINCT model FROM label_scores WHERE study_id = ? AND {CURRENT} ORDER BY model", (study_id,)
    )
    return [row[0] for row in rows]


def paired_records(conn: sqlite3.Connection, study_id: int, pairing) -> list[dict]:
    """Each entity's Delta per task x language x variant x scoring, B's minus A's, over the
    templates both scored."""
    import numpy as np

    from workbench.store.requests.studies import study_rows

    pairing.check(models(conn, study_id))
    spec = study_rows(conn, pairing.study)[0].spec
    a, b = (template_deltas(conn, study_id, m, spec) for m in (pairing.model_a, pairing.model_b))
    records = []
    for condition in sorted(set(a) & set(b)):
        task, language, variant, method = condition
        for entity in sorted(set(a[condition]) & set(b[condition])):
            base = {"study": pairing.study, "metric": "entity_delta", "topic": task, "entity": entity}
            base.update(model_a=pairing.model_a, model_b=pairing.model_b, condition=f"{language}/{variant}/{method}")
            deltas_a, deltas_b = a[condition][entity], b[condition][entity]
            common = sorted(set(deltas_a) & set(deltas_b))
            rows_a = np.asarray([(1.0, deltas_a[t]) for t in common], dtype=float).reshape(-1, 2)
            rows_b = np.asarray([(1.0, deltas_b[t]) for t in common], dtype=float).reshape(-1, 2)
            records.append(pairing.paired(base, rows_a, rows_b, "template"))
    return records
