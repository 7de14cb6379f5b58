"""Label-probability audits: metric records and exports from the stored label scores."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from itertools import combinations
from typing import Any

from workbench.methods.entity import metrics as em
from workbench.methods.entity.records import (
    DeltaPearson,
    EntityDelta,
    EntityDeltaGlobal,
    EntityMacroF1,
    EntityRecord,
    GroupDelta,
    MacroF1,
    PairedDelta,
)
from workbench.metrics.records import with_adjusted_p
from workbench.metrics.support import mean_interval_fields
from workbench.store.current_lists import counts_now
from workbench.store.requests import answers
from workbench.store.requests.studies import study_names_by_id, study_rows

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


# A score read from a request no plan asks any more (its model removed from the study file, its
# template or entity dropped) is kept, not counted; an imported score's request is never superseded.
CURRENT = counts_now("label_scores", "request_key")


def _studies(conn: sqlite3.Connection, study: str | None) -> list[tuple[int, str, dict]]:
    """The studies (or the one named) with label scores, by name: id, name, spec."""
    scored = {study_id for (study_id,) in conn.execute(f"SELECT DISTINCT study_id FROM label_scores WHERE {CURRENT}")}
    return [(row.id, row.name, row.spec) for row in study_rows(conn, study) if row.id in scored]


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
            f"FROM label_scores WHERE study_id = ? AND {CURRENT} ORDER BY rowid",
            (study_id,),
        ):
            key = (model, task, language, variant, method)
            cells[key].append((entity, template, label, weight, prob or 0.0))
            intended[key][entity, template] = wanted
        for (model, task, language, variant, method), rows in cells.items():
            scores = em.covered(em.weighted_scores(rows), min_entities, min_templates)
            per_template = em.entity_deltas(em.normalised(scores))
            flat = em.flat_templates(scores)  # delta 0 there: flagged, not standardised noise
            flat_count: dict[str, int] = defaultdict(int)
            for entity, template in scores:
                flat_count[entity] += template in flat
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
                        "flat_templates": flat_count[entity],
                        "per_template": per_template[entity],  # what its interval is over
                        "mean_score": sum(mean_score[entity]) / len(mean_score[entity]),
                        "macro_f1": em.macro_f1(per_entity.get(entity, []), task_labels),
                        "meta": meta.get(entity, {}),
                    }
                )
            out.append({**base, "entity": None, "macro_f1": em.macro_f1(pairs, task_labels), "prompts": len(pairs)})
    return out


_CONDITION = ("study", "model", "task", "language", "variant", "method")


def metric_records(conn: sqlite3.Connection, study: str | None = None, convention: str = "paper") -> list[EntityRecord]:
    """entity_delta, macro_f1, group_delta (Mann-Whitney U, Cohen's d), paired_delta
    (Wilcoxon between variants or languages), entity_delta_global and delta_pearson, as typed
    records (workbench/methods/entity/records.py). One convention: the records name the one asked for."""
    biases = entity_biases(conn, study)
    group_by = {name: spec.get("group_by", []) for _i, name, spec in _studies(conn, study)}
    records, per_condition, metas = _entity_records(biases, convention)
    records += _group_records(per_condition, metas, group_by, convention)
    records += _paired_records(per_condition, convention)
    records += _global_records(per_condition, convention)
    records += _pearson_records(per_condition, convention)
    # Families of tests: the groups of one attribute in one condition.
    with_adjusted_p(
        records,
        lambda r: isinstance(r, GroupDelta),
        ("study", "model", "task", "language", "variant", "method", "attribute"),
    )
    # The paired comparisons of one study x model x task, and the Pearson r of one model x task.
    with_adjusted_p(records, lambda r: isinstance(r, PairedDelta), ("study", "model", "task"))
    with_adjusted_p(records, lambda r: isinstance(r, DeltaPearson), ("model", "task"))
    return records


def _entity_records(biases: list[dict[str, Any]], convention: str) -> tuple[list[EntityRecord], dict, dict]:
    """macro_f1 per condition, entity_delta and entity_macro_f1 per entity; and each
    condition's (study, model, task, language, variant, method) deltas and metadata by entity."""
    records: list[EntityRecord] = []
    per_condition: dict[tuple, dict[str, float]] = defaultdict(dict)
    metas: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for b in biases:
        condition = {k: b[k] for k in _CONDITION}
        base = {"convention": convention, **condition}
        if b["entity"] is None:
            records.append(MacroF1(**base, value=b["macro_f1"], n=b["prompts"], **_no_f1(b)))
            continue
        interval = mean_interval_fields(b["per_template"], "template")
        records.append(
            EntityDelta(
                **base,
                entity=b["entity"],
                value=b["delta"],
                n=b["templates"],
                flat_templates=b["flat_templates"],
                mean=b["mean_score"],
                **interval,
                meta=b["meta"],
            )
        )
        records.append(EntityMacroF1(**base, entity=b["entity"], value=b["macro_f1"], n=b["templates"], **_no_f1(b)))
        key = tuple(condition.values())
        per_condition[key][b["entity"]] = b["delta"]
        metas[key][b["entity"]] = b["meta"]
    return records, per_condition, metas


def _group_records(
    per_condition: dict, metas: dict, group_by: dict[str, list[str]], convention: str
) -> list[GroupDelta]:
    """group_delta: per metadata value, its entities' deltas against the others'."""
    records = []
    for key, deltas in per_condition.items():
        base = {"convention": convention, **dict(zip(_CONDITION, key))}
        for column in group_by.get(base["study"], []):
            values = sorted({metas[key][e].get(column, "") for e in deltas})
            for value in values:
                inside = [d for e, d in deltas.items() if metas[key][e].get(column, "") == value]
                outside = [d for e, d in deltas.items() if metas[key][e].get(column, "") != value]
                test = em.group_test(inside, outside)
                records.append(
                    GroupDelta(
                        **base,
                        attribute=column,
                        value_label=value,
                        value=sum(inside) / len(inside),
                        n=len(inside),
                        u=test["u"],
                        p=test["p"],
                        d=test["d"],
                        **_why(test, "p_na_reason"),
                    )
                )
    return records


def _paired_records(per_condition: dict, convention: str) -> list[PairedDelta]:
    """Paired conditions: the same study, model and method, two variants or two languages."""
    names, records = _CONDITION, []
    for a, b in combinations(sorted(per_condition), 2):
        same = [i for i in range(len(names)) if a[i] == b[i]]
        differs = [names[i] for i in range(len(names)) if a[i] != b[i]]
        if {0, 1, 2, 5} <= set(same) and len(differs) == 1:
            shared = sorted(set(per_condition[a]) & set(per_condition[b]))
            xs, ys = [per_condition[a][e] for e in shared], [per_condition[b][e] for e in shared]
            test = em.paired_test(xs, ys)
            records.append(
                PairedDelta(
                    convention=convention,
                    **dict(zip(names, a)),
                    between=differs[0],
                    condition_a=a[names.index(differs[0])],
                    condition_b=b[names.index(differs[0])],
                    statistic=test["statistic"],
                    p=test["p"],
                    d=test["d"],
                    n=len(shared),
                    **_why(test, "p_na_reason"),
                )
            )
    return records


def _no_f1(bias: dict[str, Any]) -> dict[str, str]:
    """Why a macro-F1 is n/a: its prompts have no intended label to match (none when it has one)."""
    from workbench.display.na_reasons import shown

    return {"na_reason": shown("no-intended")} if bias["macro_f1"] is None else {}


def _why(test: dict[str, Any], name: str) -> dict[str, str]:
    """A test's reason for its n/a numbers, as the record's field `name` (none when it ran)."""
    return {name: test[name]} if test.get(name) else {}


def _global_records(per_condition: dict, convention: str) -> list[EntityDeltaGlobal]:
    """entity_delta_global: an entity's delta across tasks (Eq. 4), per model and condition."""
    global_delta: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for key, deltas in per_condition.items():
        base = dict(zip(_CONDITION, key))
        for entity, delta in deltas.items():
            global_delta[base["model"], base["language"], base["variant"], base["method"]][entity].append(delta)
    records = []
    for (model, language, variant, method), entities in global_delta.items():
        for entity, values in sorted(entities.items()):
            records.append(
                EntityDeltaGlobal(
                    convention=convention,
                    model=model,
                    language=language,
                    variant=variant,
                    method=method,
                    entity=entity,
                    value=sum(values) / len(values),
                    n=len(values),
                )
            )
    return records


def _pearson_records(per_condition: dict, convention: str) -> list[DeltaPearson]:
    """delta_pearson: two studies of the same task, model and condition (two template sets)."""
    records = []
    for a, b in combinations(sorted(per_condition), 2):
        if a[0] != b[0] and a[1:] == b[1:]:
            shared = sorted(set(per_condition[a]) & set(per_condition[b]))
            result = em.pearson([per_condition[a][e] for e in shared], [per_condition[b][e] for e in shared])
            records.append(
                DeltaPearson(
                    convention=convention,
                    **dict(zip(_CONDITION, a)),
                    study_b=b[0],
                    r=result["r"],
                    p=result["p"],
                    n=len(shared),
                    **_why(result, "na_reason"),
                )
            )
    return records


# The columns of a score record as label_scores holds them (the study and prompt come from the store).
_SCORE_COLUMNS = [f for f in SCORE_FIELDS if f not in ("study", "prompt")]


def score_records(conn: sqlite3.Connection, study: str | None = None):
    """Every scored (entity, template, label): the exact prompt scored and the label text appended."""
    names = study_names_by_id(conn)
    ids = [study_id for study_id, name in names.items() if study is None or name == study]
    if not ids:
        return
    rows = conn.execute(
        "SELECT study_id, request_key, model, task, language, variant, method, entity, template_id, label, "
        f"intended, continuation, logprob, prob FROM label_scores WHERE study_id IN ({','.join('?' * len(ids))}) "
        f"AND {CURRENT} ORDER BY rowid",
        ids,
    )
    while chunk := rows.fetchmany(500):
        asked = answers.payloads(conn, (row["request_key"] for row in chunk))
        for row in chunk:
            record = {"study": names[row["study_id"]], **{k: row[k] for k in _SCORE_COLUMNS}}
            payload = json.loads(asked[row["request_key"]])
            score = payload.get("score")  # an imported prompt has the text its file gave, if any
            record["prompt"] = score["prefix"] + score["suffix"] if score else payload.get("prompt")
            yield record


def bias_records(conn: sqlite3.Connection, study: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Delta per entity with its metadata columns flattened (for `export --what entity_bias`)."""
    rows = [b for b in entity_biases(conn, study) if b["entity"] is not None]
    extra = sorted({k for b in rows for k in b["meta"]})
    return [{**{k: v for k, v in b.items() if k != "meta"}, **b["meta"]} for b in rows], BIAS_FIELDS + extra


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
    before anything is stored, and it is stored in one transaction; it is read and stored a
    chunk at a time (see `imported_scores`), so a file of any size takes the memory of one chunk."""
    from pathlib import Path

    from workbench.files.csv_input import CsvInputError, ImportError_, read_rows
    from workbench.methods.entity.imported_scores import stage_scores, staging, store_imported
    from workbench.methods.entity.study import load_task
    from workbench.studies.spec import StudyError, Where

    path, task_path = Path(path), Path(task_path)
    try:
        task = load_task(Where("--task"), task_path)  # its messages name the file
    except StudyError as exc:
        raise ImportError_(str(exc)) from None
    with staging(conn):
        try:
            got = stage_scores(conn, path, {label.id: label.weight for label in task.labels})
            meta = {}
            if entities_path:  # one row per entity: small beside the scores
                meta = {
                    r["name"].strip(): {k: (v or "").strip() for k, v in r.items() if k != "name"}
                    for _line, r in read_rows(Path(entities_path), ("name",))
                }
        except CsvInputError as exc:
            raise ImportError_(str(exc)) from None
        if not got["prompts"]:
            raise ImportError_(f"{path}: no scores")
        spec = {
            "name": study,
            "method": "entity",
            "imported": str(path),
            "task": str(task_path),
            "task_id": task.id,
            "group_by": group_by or [],
        }
        scores = store_imported(conn, spec, path, task, meta)
    return {"prompts": got["prompts"], "scores": scores, "entities": got["entities"]}
