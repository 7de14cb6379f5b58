"""Entity x template label-probability studies (docs/methods.md §4) through the queue.

    name = "countries-urgency"
    method = "entity"
    models = ["llama:default"]
    task = "urgency.task.json"        # labels with weights, instruction, few-shot examples
    templates = "urgency.csv"         # `sentence` with X, intended `label`, optional translations
    entities = "countries.csv"        # `name` plus metadata columns (region, GDP quantile, ...)
    languages = ["english"]           # locales of the task; other columns hold translations
    variants = ["zero_shot_text"]     # zero_shot|few_shot x text|numeric labels
    max_templates = 50                # first N templates (optional)
    max_entities = 30                 # first N entities (optional)
    min_entities = 5                  # coverage: a template counts with >= 5 scored entities (default 1)
    min_templates = 3                 # coverage: an entity counts with >= 3 such templates (default 1)
    scoring = "exact"                 # exact | first_token (an approximation, labelled) | naive
    group_by = ["Region"]             # metadata columns compared with Mann-Whitney U

One request per (entity, template, language, variant), stage `score`, keyed by its
content: a killed run resumes where it stopped. The prompt is the task's instruction,
label scale and (few-shot) examples — the part shared by every request, scored once —
then "Sentence: <template with X replaced by the entity>" and "Label:"; each label is
scored as the continuation " <label text>".
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.asking.keys import request_key
from workbench.engines.specs import ModelSpec
from workbench.methods.entity.vocabulary import SCORING, VARIANTS  # noqa: F401 (named here by callers)
from workbench.store.db import transaction
from workbench.store.requests.queue import PlannedRequest
from workbench.studies.spec import Where, beside

TEXT_COLUMNS = {"english": "sentence", "chinese": "sentence(zh)", "russian": "sentence(ru)"}
_PLACEHOLDER = re.compile(r"\bX\b")
NAME_COLUMNS = {"english": "name", "chinese": "name(zh)", "russian": "name(ru)"}


@dataclass(frozen=True)
class Label:
    id: str
    weight: float
    text: dict[str, str]  # language -> label text
    numeric: str


@dataclass
class Task:
    id: str
    labels: list[Label]
    locales: dict[str, dict[str, Any]]  # language -> instruction, text_scale, numerical_scale, few_shot, ...
    include_target: bool = False
    text_columns: dict[str, str] = field(default_factory=dict)


@dataclass
class EntityStudy:
    name: str
    path: str | None
    description: str
    models: list[ModelSpec]
    task: Task
    task_path: str
    templates: list[dict[str, str]]  # rows of the templates CSV (with `template_id`)
    entities: list[dict[str, str]]  # rows of the entities CSV
    languages: list[str]
    variants: list[str]
    scoring: str
    group_by: list[str]
    generation: dict[str, Any] = field(default_factory=dict)
    # Coverage filters (the framework's processing): a template counts when at least
    # min_entities entities were scored on it; an entity when it has min_templates templates.
    min_entities: int = 1
    min_templates: int = 1
    method: str = "entity"
    questions: list = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "method": self.method,
            "models": [str(m) for m in self.models],
            "task": self.task_path,
            "task_id": self.task.id,
            "templates": len(self.templates),
            "entities": len(self.entities),
            "languages": self.languages,
            "variants": self.variants,
            "scoring": self.scoring,
            "group_by": self.group_by,
            "min_entities": self.min_entities,
            "min_templates": self.min_templates,
        }


def _read_csv(where: Where, path: Path, required: str) -> list[dict[str, str]]:
    from workbench.files.csv_input import CsvInputError, read_rows

    if not path.is_file():
        raise where.error(f"file {path} does not exist")
    try:
        rows = [row for _line, row in read_rows(path)]
    except CsvInputError as exc:
        raise where.error(str(exc)) from None
    if not rows:
        raise where.error(f"{path} has no rows")
    if required not in rows[0]:
        raise where.error(f"{path} has no column {required!r} (columns: {', '.join(rows[0])})")
    for number, row in enumerate(rows, start=2):
        if not (row.get(required) or "").strip():
            raise where.error(f"{path} line {number}: empty {required!r}")
    return rows


def load_task(where: Where, path: Path) -> Task:
    """A task definition in the entity-bias framework's JSON format."""
    if not path.is_file():
        raise where.error(f"file {path} does not exist")
    from workbench.files.json_input import JsonInputError, load_json

    try:
        data = load_json(path)
    except JsonInputError as exc:
        raise where.error(str(exc)) from None
    try:
        labels = [
            Label(str(item["id"]), float(item["weight"]), dict(item["text"]), str(item.get("numeric", index + 1)))
            for index, item in enumerate(data["labels"])
        ]
        locales = dict(data["prompt"]["locales"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise where.error(
            f"{path}: missing or malformed {exc} (expected labels[].id/text/weight and prompt.locales)"
        ) from None
    for name, locale in locales.items():
        if not isinstance(locale, dict):
            raise where.error(
                f"{path}: prompt.locales.{name}: expected an object with the locale's "
                f"instruction, got {type(locale).__name__}"
            )
    for label in labels:
        if not all(isinstance(v, str) for v in label.text.values()):
            raise where.error(f"{path}: label {label.id!r}: expected text per locale as strings")
    if len(labels) < 2:
        raise where.error(f"{path}: a task needs at least two labels")
    return Task(
        str(data.get("id", path.stem)),
        labels,
        locales,
        bool(data["prompt"].get("include_target", False)),
        dict(data.get("dataset", {}).get("text_columns", {})),
    )


def from_toml(data: dict[str, Any], path: Path) -> EntityStudy:
    # pydantic is imported when a study is read, not with the command line.
    from workbench.methods.entity.study_schema import EntityFile
    from workbench.studies.schema import validate

    where = Where(str(path))
    file = validate(EntityFile, data, where)
    task = load_task(where.child("task"), beside(path, file.task))
    templates = _read_csv(where.child("templates"), beside(path, file.templates), "sentence")
    entities = _read_csv(where.child("entities"), beside(path, file.entities), "name")
    for index, row in enumerate(templates):
        row["template_id"] = str(index)
    for language in file.languages:
        if language not in task.locales:
            raise where.child("languages").error(
                f"the task has no locale {language!r} (it has: {', '.join(task.locales)})"
            )
        column = task.text_columns.get(language, TEXT_COLUMNS.get(language, f"sentence({language})"))
        if column not in templates[0]:
            raise where.child("languages").error(f"the templates have no column {column!r} for {language}")
    del templates[file.max_templates or len(templates) :]
    del entities[file.max_entities or len(entities) :]
    for column in file.group_by:
        if column not in entities[0]:
            raise where.child("group_by").error(f"the entities have no column {column!r}")
    intended = {label.text.get("english", label.id).lower(): label.id for label in task.labels}
    intended.update({label.id.lower(): label.id for label in task.labels})
    for number, row in enumerate(templates, start=2):
        if row.get("label") and row["label"].strip().lower() not in intended:
            raise where.child("templates").error(
                f"line {number}: label {row['label']!r} is not one of the task's labels"
            )
    return EntityStudy(
        name=file.name if file.name is not None else path.stem,
        path=str(path),
        description=str(file.description),
        models=file.models,
        task=task,
        task_path=str(beside(path, file.task)),
        templates=templates,
        entities=entities,
        languages=file.languages,
        variants=file.variants,
        scoring=file.scoring,
        group_by=file.group_by,
        min_entities=file.min_entities,
        min_templates=file.min_templates,
    )


def intended_label(task: Task, text: str | None) -> str | None:
    if not text:
        return None
    wanted = text.strip().lower()
    return next(
        (label.id for label in task.labels if wanted in (label.id.lower(), label.text.get("english", "").lower())), None
    )


def prompt_parts(task: Task, language: str, variant: str, sentence: str, entity: str) -> tuple[str, str, list[str]]:
    """(shared prefix, the prompt's own part, label continuations) for one prompt."""
    locale = task.locales[language]
    numeric = variant.endswith("_numeric")
    sentence_prefix = locale.get("sentence_prefix", "Sentence: ")
    label_prefix = locale.get("label_prefix", "Label: ").rstrip()

    def answer(label: Label) -> str:
        return label.numeric if numeric else label.text.get(language, label.text.get("english", label.id))

    prefix = locale.get("instruction", "") + locale.get("numerical_scale" if numeric else "text_scale", "")
    if variant.startswith("few_shot"):
        by_id = {label.id: label for label in task.labels}
        for example in locale.get("few_shot", []):
            if example.get("label") in by_id:  # examples keep the anonymous X
                prefix += (
                    f"{sentence_prefix}{example['sentence']}\n{label_prefix} {answer(by_id[example['label']])}\n\n"
                )
    # X is replaced where it stands alone ("X's" too, not "Xbox"), by plain substitution.
    suffix = f"{sentence_prefix}{_PLACEHOLDER.sub(lambda _: entity, sentence)}\n"
    if task.include_target:
        suffix += f"Target: {entity}\n"
    suffix += label_prefix
    return prefix, suffix, [" " + answer(label) for label in task.labels]


def plan_requests(study: EntityStudy, model_identity: str, params: dict[str, Any] | None = None):
    """Template-major order: prompts that share the most text follow each other, so the
    engine's cache keeps their common start. With a llama model the kernels that score
    (batch-invariant by default, or fast) are part of each request: their numbers differ."""
    kernels = {k: v for k, v in (params or {}).items() if k in ("kernels", "precision")}  # what scores
    for language in study.languages:
        column = study.task.text_columns.get(language, TEXT_COLUMNS.get(language, f"sentence({language})"))
        name_column = NAME_COLUMNS.get(language, f"name({language})")
        for variant in study.variants:
            for template in study.templates:
                for entity in study.entities:
                    name = entity["name"].strip()
                    shown = (entity.get(name_column) or name).strip() if language != "english" else name
                    prefix, suffix, continuations = prompt_parts(study.task, language, variant, template[column], shown)
                    payload = {
                        "score": {
                            "prefix": prefix,
                            "suffix": suffix,
                            "continuations": continuations,
                            "method": study.scoring,
                            **kernels,
                        },
                        "meta": {
                            "task": study.task.id,
                            "entity": name,
                            "template_id": int(template["template_id"]),
                            "language": language,
                            "variant": variant,
                            "intended": intended_label(study.task, template.get("label")),
                        },
                    }
                    yield PlannedRequest(
                        request_key(stage="score", model_identity=model_identity, payload=payload, repetition=None),
                        "score",
                        payload,
                    )


def store_scores(
    conn: sqlite3.Connection, study: EntityStudy, study_id: int, model_id: int, model_label: str
) -> dict[str, int]:
    """Parse stored score responses into label_scores (idempotent); keep entity metadata."""
    import math

    from workbench.store.requests.answers import answered

    weights = {label.id: label.weight for label in study.task.labels}
    done = {key for (key,) in conn.execute("SELECT request_key FROM label_scores WHERE study_id = ?", (study_id,))}
    rows = [row for row in answered(conn, study_id, model_id, "score") if row["key"] not in done]
    stored = unparseable = 0
    values = []
    with transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO entity_meta (study_id, entity, meta_json) VALUES (?, ?, ?)",
            [
                (study_id, e["name"].strip(), json.dumps({k: (v or "").strip() for k, v in e.items() if k != "name"}))
                for e in study.entities
            ],
        )
        for key, payload_json, text in rows:
            payload = json.loads(payload_json)
            meta, score = payload["meta"], payload["score"]
            try:
                result = json.loads(text)
                logprobs = [None if v is None else float(v) for v in result["logprobs"]]
                method = str(result.get("method", score["method"]))
            except (ValueError, KeyError, TypeError, RecursionError):
                unparseable += 1  # kept in responses; counted, never dropped silently
                continue
            known = [v for v in logprobs if v is not None]
            peak = max(known) if known else 0.0
            total = sum(math.exp(v - peak) for v in known)
            for label, continuation, logprob in zip(study.task.labels, score["continuations"], logprobs):
                prob = math.exp(logprob - peak) / total if logprob is not None and total else 0.0
                values.append(
                    (
                        key,
                        study_id,
                        model_label,
                        meta["task"],
                        meta["entity"],
                        meta["template_id"],
                        meta["language"],
                        meta["variant"],
                        method,
                        label.id,
                        meta.get("intended"),
                        weights[label.id],
                        continuation,
                        logprob,
                        prob,
                    )
                )
            stored += 1
        conn.executemany(
            "INSERT OR REPLACE INTO label_scores (request_key, study_id, model, task, entity, template_id, language, "
            "variant, method, label, intended, weight, continuation, logprob, prob) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
    return {"stored": stored, "unparseable": unparseable}
