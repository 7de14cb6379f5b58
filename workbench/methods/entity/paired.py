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
