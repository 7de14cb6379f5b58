"""Label-probability audits: metric records and exports from the stored label scores."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from itertools import combinations
from typing import Any

from workbench.methods.entity import metrics as em
from workbench.metrics.intervals import adjust, interval_fields, mean_ci

SCORE_FIELDS = [
    "study",
    "model",
    "task",
    "language",
    "variant",
    "method",
    "entity",
    "template_id",
    "label",
    "intended",
    "prompt",
    "continuation",
    "logprob",
    "prob",
]
BIAS_FIELDS = ["study", "model", "task", "language", "variant", "method", "entity", "delta", "templates", "mean_score"]


def _studies(conn: sqlite3.Connection, study: str | None) -> list[tuple[int, str, dict]]:
    where, args = ("AND s.name = ?", (study,)) if study else ("", ())
    return [
        (i, name, json.loads(spec))
        for i, name, spec in conn.execute(
            "SELECT s.id, s.name, s.spec_json FROM studies s WHERE EXISTS (SELECT 1 FROM label_scores l "
            f"WHERE l.study_id = s.id) {where} ORDER BY s.name",
            args,
        )
    ]


def _meta(conn: sqlite3.Connection, study_id: int) -> dict[str, dict[str, str]]:
    return {
        e: json.loads(m)
        for e, m in conn.execute("SELECT entity, meta_json FROM entity_meta WHERE study_id = ?", (study_id,))
    }


def entity_biases(conn: sqlite3.Connection, study: str | None = None) -> list[dict[str, Any]]:
    """Delta(e, T) per study x model x language x variant x method, with the entity's metadata."""
    out = []
    for study_id, name, spec in _studies(conn, study):
        min_entities, min_templates = spec.get("min_entities", 1), spec.get("min_templates", 1)
        meta = _meta(conn, study_id)
        cells: dict[tuple, list] = defaultdict(list)
        intended: dict[tuple, dict] = defaultdict(dict)
        for model, task, language, variant, method, entity, template, label, weight, prob, wanted in conn.execute(
            "SELECT model, task, language, variant, method, entity, template_id, label, weight, prob, intended "
            "FROM label_scores WHERE study_id = ? ORDER BY rowid",
            (study_id,),
        ):
            key = (model, task, language, variant, method)
            cells[key].append((entity, template, label, weight, prob or 0.0))
            intended[key][entity, template] = wanted
        for (model, task, language, variant, method), rows in cells.items():
            scores = em.covered(em.weighted_scores(rows), min_entities, min_templates)
            per_template = em.entity_deltas(em.normalised(scores))
            biases = {e: (sum(v) / len(v), len(v)) for e, v in per_template.items()}
            mean_score: dict[str, list[float]] = defaultdict(list)
            for (entity, _t), value in scores.items():
                mean_score[entity].append(value)
            best: dict[tuple, tuple[float, str]] = {}
            for entity, template, label, _w, prob in rows:
                if (entity, template) not in scores:  # left out by the coverage filters
                    continue
                if (entity, template) not in best or prob > best[entity, template][0]:
                    best[entity, template] = (prob, label)
            wanted = intended[model, task, language, variant, method]
            pairs = [(label, wanted[k]) for k, (_p, label) in best.items() if wanted.get(k)]
            task_labels = {label for _e, _t, label, _w, _p in rows}
            per_entity: dict[str, list] = defaultdict(list)
            for (entity, template), (_p, label) in best.items():
                if wanted.get((entity, template)):
                    per_entity[entity].append((label, wanted[entity, template]))
            base = {
                "study": name,
                "model": model,
                "task": task,
                "language": language,
                "variant": variant,
                "method": method,
            }
            for entity, (delta, n) in sorted(biases.items(), key=lambda kv: -kv[1][0]):
                out.append(
                    {
                        **base,
                        "entity": entity,
                        "delta": delta,
                        "templates": n,
                        "ci": mean_ci(per_template[entity]),  # templates resampled
                        "mean_score": sum(mean_score[entity]) / len(mean_score[entity]),
                        "macro_f1": em.macro_f1(per_entity.get(entity, []), task_labels),
                        "meta": meta.get(entity, {}),
                    }
                )
            out.append({**base, "entity": None, "macro_f1": em.macro_f1(pairs, task_labels), "prompts": len(pairs)})
    return out


def metric_records(conn: sqlite3.Connection, study: str | None = None) -> list[dict[str, Any]]:
    """entity_delta, macro_f1, group_delta (Mann-Whitney U, Cohen's d), paired_delta
    (Wilcoxon between variants or languages), entity_delta_global and delta_pearson."""
    biases = entity_biases(conn, study)
    group_by = {name: spec.get("group_by", []) for _i, name, spec in _studies(conn, study)}
    records: list[dict[str, Any]] = []
    per_condition: dict[tuple, dict[str, float]] = defaultdict(dict)
    metas: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for b in biases:
        base = {k: b[k] for k in ("study", "model", "task", "language", "variant", "method")}
        if b["entity"] is None:
            records.append({**base, "metric": "macro_f1", "value": b["macro_f1"], "n": b["prompts"]})
            continue
        records.append(
            {
                **base,
                "metric": "entity_delta",
                "entity": b["entity"],
                "value": b["delta"],
                "n": b["templates"],
                "mean": b["mean_score"],
                **interval_fields(*b["ci"]),
                **{f"meta_{k}": v for k, v in b["meta"].items()},
            }
        )
        records.append(
            {**base, "metric": "entity_macro_f1", "entity": b["entity"], "value": b["macro_f1"], "n": b["templates"]}
        )
        key = tuple(base.values())
        per_condition[key][b["entity"]] = b["delta"]
        metas[key][b["entity"]] = b["meta"]
    names = ("study", "model", "task", "language", "variant", "method")
    for key, deltas in per_condition.items():
        base = dict(zip(names, key))
        for column in group_by.get(base["study"], []):
            values = sorted({metas[key][e].get(column, "") for e in deltas})
            for value in values:
                inside = [d for e, d in deltas.items() if metas[key][e].get(column, "") == value]
                outside = [d for e, d in deltas.items() if metas[key][e].get(column, "") != value]
                test = em.group_test(inside, outside)
                records.append(
                    {
                        **base,
                        "metric": "group_delta",
                        "attribute": column,
                        "value_label": value,
                        "value": sum(inside) / len(inside),
                        "n": len(inside),
                        "u": test["u"],
                        "p": test["p"],
                        "d": test["d"],
                    }
                )
    # Paired conditions: the same study, model and method, two variants or two languages.
    for a, b in combinations(sorted(per_condition), 2):
        same = [i for i in range(len(names)) if a[i] == b[i]]
        differs = [names[i] for i in range(len(names)) if a[i] != b[i]]
        if {0, 1, 2, 5} <= set(same) and len(differs) == 1:
            shared = sorted(set(per_condition[a]) & set(per_condition[b]))
            xs, ys = [per_condition[a][e] for e in shared], [per_condition[b][e] for e in shared]
            test = em.paired_test(xs, ys)
            records.append(
                {
                    **dict(zip(names, a)),
                    "metric": "paired_delta",
                    "between": differs[0],
                    "condition_a": a[names.index(differs[0])],
                    "condition_b": b[names.index(differs[0])],
                    "statistic": test["statistic"],
                    "p": test["p"],
                    "d": test["d"],
                    "n": len(shared),
                }
            )
    # Across tasks (Eq. 4) and across template sets of one task (Pearson of Delta).
    global_delta: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for key, deltas in per_condition.items():
        base = dict(zip(names, key))
        for entity, delta in deltas.items():
            global_delta[base["model"], base["language"], base["variant"], base["method"]][entity].append(delta)
    for (model, language, variant, method), entities in global_delta.items():
        for entity, values in sorted(entities.items()):
            records.append(
                {
                    "metric": "entity_delta_global",
                    "model": model,
                    "language": language,
                    "variant": variant,
                    "method": method,
                    "entity": entity,
                    "value": sum(values) / len(values),
                    "n": len(values),
                }
            )
    for a, b in combinations(sorted(per_condition), 2):
        if a[0] != b[0] and a[1:] == b[1:]:  # two studies of the same task, model and condition
            shared = sorted(set(per_condition[a]) & set(per_condition[b]))
            result = em.pearson([per_condition[a][e] for e in shared], [per_condition[b][e] for e in shared])
            records.append(
                {
                    **dict(zip(names, a)),
                    "metric": "delta_pearson",
                    "study_b": b[0],
                    "r": result["r"],
                    "p": result["p"],
                    "n": len(shared),
                }
            )
    # Families of tests: the groups of one attribute in one condition.
    adjust(
        [r for r in records if r["metric"] == "group_delta"],
        ("study", "model", "task", "language", "variant", "method", "attribute"),
    )
    return records


def score_records(conn: sqlite3.Connection, study: str | None = None):
    """Every scored (entity, template, label): the exact prompt scored and the label text appended."""
    where, args = ("WHERE s.name = ?", (study,)) if study else ("", ())
    for row in conn.execute(
        "SELECT s.name AS study, l.model, l.task, l.language, l.variant, l.method, l.entity, l.template_id, "
        "l.label, l.intended, r.payload_json, l.continuation, l.logprob, l.prob FROM label_scores l "
        f"JOIN studies s ON s.id = l.study_id JOIN requests r ON r.key = l.request_key {where} "
        "ORDER BY l.rowid",
        args,
    ):
        record = dict(row)
        payload = json.loads(record.pop("payload_json"))
        score = payload.get("score")  # an imported prompt has the text its file gave, if any
        record["prompt"] = score["prefix"] + score["suffix"] if score else payload.get("prompt")
        yield record


def bias_records(conn: sqlite3.Connection, study: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Delta per entity with its metadata columns flattened (for `export --what entity_bias`)."""
    rows = [b for b in entity_biases(conn, study) if b["entity"] is not None]
    extra = sorted({k for b in rows for k in b["meta"]})
    return [{**{k: v for k, v in b.items() if k != "meta"}, **b["meta"]} for b in rows], BIAS_FIELDS + extra


SCORE_IMPORT_COLUMNS = ("entity", "template_id", "label", "logprob")


def import_scores(
    conn: sqlite3.Connection, study: str, path, task_path, entities_path=None, group_by: list[str] | None = None
) -> dict[str, int]:
    """Label log-probabilities computed elsewhere (vLLM, another harness), in the columns of
    `export --what scores`: entity, template_id, label (the task's label id) and logprob
    required; model, language, variant, method, intended and continuation optional. Labels
    and weights come from the task file; entity metadata from an optional CSV (`name` plus
    columns). Each (model, language, variant, method, entity, template) is one scored prompt,
    stored as a request of the study (stage `score`, engine `import`) so status, exports and
    metrics treat it like a scored one. A prompt is a unit: it must carry every label of the
    task, and a re-imported prompt replaces the stored one whole. The whole file is checked
    before anything is stored, and it is stored in one transaction."""
    import hashlib
    import math
    from pathlib import Path

    from workbench.csv_input import CsvInputError, ImportError_, read_rows, real, whole
    from workbench.methods.entity.study import load_task
    from workbench.store import queue
    from workbench.studies.spec import StudyError, Where

    path, task_path = Path(path), Path(task_path)
    try:
        task = load_task(Where(str(task_path)), task_path)
    except StudyError as exc:
        raise ImportError_(str(exc)) from None
    weights = {label.id: label.weight for label in task.labels}
    prompts: dict[tuple, dict[str, Any]] = {}
    try:
        for line, row in read_rows(path, SCORE_IMPORT_COLUMNS):
            label = row["label"].strip()
            if label not in weights:
                raise CsvInputError(
                    f"{path}: line {line}: column 'label': {label!r} is not a label id of the task "
                    f"(one of: {', '.join(weights)})"
                )
            logprob = real(path, line, "logprob", row["logprob"]) if row["logprob"].strip() else None
            if logprob is not None and logprob > 1e-9:
                raise CsvInputError(
                    f"{path}: line {line}: column 'logprob': a log-probability is at most 0, got {logprob}"
                )
            key = (
                row.get("model") or "imported",
                row.get("language") or "english",
                row.get("variant") or "zero_shot_text",
                row.get("method") or "exact",
                row["entity"].strip(),
                whole(path, line, "template_id", row["template_id"], 0),
            )
            prompt = prompts.setdefault(
                key,
                {
                    "labels": {},
                    "intended": (row.get("intended") or "").strip() or None,
                    "line": line,
                    "text": row.get("prompt") or None,  # as `export --what scores` writes it
                },
            )
            if label in prompt["labels"]:
                raise CsvInputError(f"{path}: line {line}: label {label!r} of this prompt appears twice")
            prompt["labels"][label] = (logprob, row.get("continuation") or f" {label}")
        for key, prompt in prompts.items():
            # A prompt is one unit: probabilities are normalised over its labels, so a label
            # left out would be kept from an earlier import, or shift the others' share.
            missing = [label for label in weights if label not in prompt["labels"]]
            if missing:
                model, language, variant, method, entity, template = key
                raise CsvInputError(
                    f"{path}: line {prompt['line']}: the prompt of entity {entity!r}, template_id {template} "
                    f"(model {model!r}, language {language!r}, variant {variant!r}, method {method!r}) has no "
                    f"row for label(s) {', '.join(repr(m) for m in missing)}; each prompt needs every label "
                    f"of the task ({', '.join(weights)})"
                )
        meta = {}
        if entities_path:
            meta = {
                r["name"].strip(): {k: (v or "").strip() for k, v in r.items() if k != "name"}
                for _line, r in read_rows(Path(entities_path), ("name",))
            }
    except CsvInputError as exc:
        raise ImportError_(str(exc)) from None
    if not prompts:
        raise ImportError_(f"{path}: no scores")
    spec = {
        "name": study,
        "method": "entity",
        "imported": str(path),
        "task": str(task_path),
        "task_id": task.id,
        "group_by": group_by or [],
    }
    from workbench.store.db import utc_now

    now = utc_now()
    # One transaction: the study, its models and every prompt are stored, or nothing is.
    with queue.transaction(conn):
        study_id = queue.upsert_study(conn, study, "entity", spec, None)
        values, requests = [], {}
        models = {}
        for (model, language, variant, method, entity, template), prompt in prompts.items():
            if model not in models:
                models[model] = queue.upsert_model(
                    conn,
                    identity=f"import:{model}",
                    spec=model,
                    engine="import",
                    name=model,
                    base_url=None,
                    file_path=str(path),
                    file_hash=None,
                    params={},
                )
            key = hashlib.sha256(
                json.dumps([study_id, model, language, variant, method, entity, template]).encode()
            ).hexdigest()[:32]
            payload = {"imported": str(path), "meta": {"entity": entity, "template_id": template}}
            if prompt["text"]:
                payload["prompt"] = prompt["text"]
            requests[key] = (models[model], payload)
            known = [lp for lp, _c in prompt["labels"].values() if lp is not None]
            peak = max(known) if known else 0.0
            total = sum(math.exp(lp - peak) for lp in known)
            for label, (logprob, continuation) in prompt["labels"].items():
                prob = math.exp(logprob - peak) / total if logprob is not None and total else 0.0
                values.append(
                    (
                        key,
                        study_id,
                        model,
                        task.id,
                        entity,
                        template,
                        language,
                        variant,
                        method,
                        label,
                        prompt["intended"],
                        weights[label],
                        continuation,
                        logprob,
                        prob,
                    )
                )
        conn.executemany(
            "INSERT INTO requests (key, study_id, model_id, stage, payload_json, status, created_at, updated_at) "
            "VALUES (?, ?, ?, 'score', ?, 'done', ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET payload_json = excluded.payload_json, updated_at = excluded.updated_at",
            [(key, study_id, model_id, json.dumps(payload), now, now) for key, (model_id, payload) in requests.items()],
        )
        # A re-imported prompt replaces the stored one whole: none of its old labels stay.
        conn.executemany("DELETE FROM label_scores WHERE request_key = ?", [(key,) for key in requests])
        conn.executemany(
            "INSERT INTO label_scores (request_key, study_id, model, task, entity, template_id, language, "
            "variant, method, label, intended, weight, continuation, logprob, prob) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
        conn.executemany(
            "INSERT OR REPLACE INTO entity_meta (study_id, entity, meta_json) VALUES (?, ?, ?)",
            [(study_id, name, json.dumps(m)) for name, m in meta.items()],
        )
    return {"prompts": len(prompts), "scores": len(values), "entities": len({k[4] for k in prompts})}
