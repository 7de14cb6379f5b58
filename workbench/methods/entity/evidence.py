"""Label probabilities' evidence (workbench/analysis/evidence.py): behind an entity's Delta, each template's
prompt with the entity in it, its label scores, the entity's score s(e, t) and where it stands
among the template's entities (its delta), as the metrics compute them (coverage filters kept)."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

from workbench.display.evidence import Answer, Evidence, EvidenceError, Query, known, model_named
from workbench.methods.entity import metrics as em
from workbench.methods.entity.data import CURRENT
from workbench.store.requests.answers import payloads
from workbench.store.requests.studies import study_spec
from workbench.text.numbers import fmt_num

METRICS = {"delta": "each template's label scores of the entity (--entity), its standing among the template's"}
OPTIONS = {"delta": ("cluster", "entity")}  # --cluster: one condition, as the entity table's header names it
CELL = ("model", "task", "language", "variant", "method")


def condition_label(cell: dict) -> str:
    """A condition as the entity table's header names it (workbench/methods/entity/views.py)."""
    parts = [cell["model"], cell["variant"]]
    parts += [cell["language"]] if cell["language"] != "english" else []
    parts += [cell["method"]] if cell["method"] != "exact" else []
    return " · ".join(parts)


def evidence(conn: sqlite3.Connection, study_id: int, query: Query) -> list[Evidence]:
    rows = conn.execute(
        "SELECT model, task, language, variant, method, entity, template_id, label, weight, prob, request_key "
        f"FROM label_scores WHERE study_id = ? AND {CURRENT} ORDER BY rowid",
        (study_id,),
    ).fetchall()
    cells: dict[tuple, list] = defaultdict(list)
    for row in rows:
        cells[tuple(row[:5])].append(row[5:])
    entities = sorted({row[5] for row in rows})
    if query.target is None:
        raise EvidenceError(f"name the entity with --entity (known: {', '.join(map(repr, entities[:20]))})")
    known(query.target, entities, "entity")
    known(query.topic, sorted({c[1] for c in cells}), "task")
    model = model_named(query.model, sorted({c[0] for c in cells}))
    conditions = sorted({condition_label(dict(zip(CELL, key))) for key in cells})
    if query.cluster is not None and query.cluster.removeprefix(f"{query.study} · ") not in conditions:
        known(query.cluster, conditions, "condition")
    spec = study_spec(conn, query.study)
    out = []
    for key, scored in sorted(cells.items()):
        cell = dict(zip(CELL, key))
        label = condition_label(cell)
        wanted = query.cluster in (None, label, f"{query.study} · {label}")
        if not wanted or (model and cell["model"] != model) or (query.topic and cell["task"] != query.topic):
            continue
        found = _delta(conn, query, cell, scored, spec)
        if found is not None:
            out.append(found)
    return out


def _delta(conn, query: Query, cell: dict, scored: list, spec: dict) -> Evidence | None:
    entity = query.target
    scores = em.covered(
        em.weighted_scores((e, t, lab, w, p or 0.0) for e, t, lab, w, p, _k in scored),
        spec.get("min_entities", 1),
        spec.get("min_templates", 1),
    )
    deltas = em.normalised(scores)
    stats = em._template_stats(scores)  # each template's mean and sd over its entities
    templates = sorted(t for e, t in scores if e == entity)
    if not templates:
        return None
    asked = payloads(conn, {k for e, _t, _l, _w, _p, k in scored if e == entity})
    answers = []
    for template in templates:
        labels = [(lab, w, p or 0.0, k) for e, t, lab, w, p, k in scored if e == entity and t == template]
        mean, sd, flat = stats[template]
        each = ", ".join(f"{lab} {fmt_num(p, 3)} x {fmt_num(w, 2)}" for lab, w, p, _k in labels)
        standing = "a flat template: delta 0" if flat else f"template mean {fmt_num(mean, 3)}, sd {fmt_num(sd, 3)}"
        note = (
            f"score {fmt_num(scores[entity, template], 3)} = {each}; {standing}; "
            f"delta {fmt_num(deltas[entity, template], 3, signed=True)}"
        )
        payload = json.loads(asked.get(labels[0][3], "{}")) if labels else {}
        score = payload.get("score")
        prompt = score["prefix"] + score["suffix"] if score else payload.get("prompt")
        answers.append(
            Answer(cell["model"], cell["task"], f"template {template}", prompt, (entity,), (entity,), note=note)
        )
    values = [deltas[entity, t] for t in templates]
    flat = sum(1 for t in templates if stats[t][2])
    sentence = (
        f"Delta of {entity} {fmt_num(sum(values) / len(values), 3, signed=True)}: the mean over "
        f"{len(templates)} templates of its label score standardised among the template's entities"
        + (f" ({flat} flat, adding 0)" if flat else "")
    )
    return Evidence(
        study=query.study,
        method="entity",
        metric="delta",
        model=cell["model"],
        topic=" · ".join([cell["task"], *condition_label(cell).split(" · ")[1:]]),  # the model has its own field
        target=entity,
        sentence=sentence,
        answers=tuple(answers),
        counting=len(answers),
    )


def cell_query(panel_id: str, header: list[str], row: list[str], column: int, choices: dict) -> Query | None:
    """A cell of the entity table: its row's entity, its column's condition ("Delta model · variant")."""
    if panel_id != "entity-table" or column < 2 or column >= len(header) or len(row) < 2:
        return None
    return Query("delta", None, None, header[column].removeprefix("Delta "), row[1])


def record_query(row: dict) -> Query | None:
    if row.get("metric") == "entity_delta" and row.get("entity"):
        cell = {k: row.get(k) for k in CELL}
        return Query("delta", row["task"], row["model"], condition_label(cell), row["entity"])
    return None
