"""Writing a ChoiceEval study back to TOML (the Design screen's save).

The saved file starts from the study file as it was read, so every key the user
wrote survives a save ([question_generation], [metrics], prompt paths, keys a
newer workbench added); only what the Design screen edits is replaced: the
models, the clusters' definitions, and each topic's questions, written inline with their current wording
(after reviewers' edits, imports and generation), so the saved file alone
reproduces the study.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

from workbench.methods.choice.study import ChoiceStudy, default_clusters

# Topic keys the inline questions replace (they would read the questions again from elsewhere).
_QUESTION_SOURCES = ("questions", "questions_file", "questions_per_cluster")


def _value(value: Any) -> str:
    """An inline TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _key(name: str) -> str:
    return name if name and name.replace("_", "").replace("-", "").isalnum() and name.isascii() else _value(name)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def dump_toml(data: dict[str, Any]) -> str:
    """A TOML document for `data` (as tomllib returns it): plain keys first, then
    tables and arrays of tables, in the order they come."""
    lines: list[str] = []
    _table(lines, data, [])
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(lines: list[str], table: dict[str, Any], path: list[str]) -> None:
    for key, value in table.items():
        if not isinstance(value, dict) and not _is_table_array(value):
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value) and len(value) > 3:
                lines.append(f"{_key(key)} = [")
                lines += [f"    {_value(v)}," for v in value]
                lines.append("]")
            else:
                lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in table.items():
        dotted = ".".join(_key(k) for k in [*path, key])
        if isinstance(value, dict):
            lines += ["", f"[{dotted}]"]
            _table(lines, value, [*path, key])
        elif _is_table_array(value):
            for item in value:
                lines += ["", f"[[{dotted}]]"]
                _table(lines, item, [*path, key])


def study_dict(study: ChoiceStudy) -> dict[str, Any]:
    """Every setting of the study as a study file's table (for a study without a file)."""
    x, g = study.extraction, study.question_generation
    data: dict[str, Any] = {"name": study.name, "method": "choice"}
    if study.description:
        data["description"] = study.description
    data.update(repetitions=study.repetitions, seed=study.seed)
    if study.verified_only:
        data["verified_only"] = True
    data["models"] = [str(m) for m in study.models]
    data["generation"] = dict(study.generation)
    data["extraction"] = {
        "method": x.method,
        "experts": x.experts,
        "k": x.k,
        "temperature": x.temperature,
        "max_tokens": x.max_tokens,
        "output": x.output,
        **({"model": str(x.model)} if x.model is not None else {}),
    }
    data["question_generation"] = {
        **({"model": str(g.model)} if g.model is not None else {}),
        "temperature": g.temperature,
        "max_tokens": g.max_tokens,
        **({"adapt_prompt": g.adapt_prompt} if g.adapt_prompt else {}),
        **({"generate_prompt": g.generate_prompt} if g.generate_prompt else {}),
    }
    if study.metrics:
        data["metrics"] = dict(study.metrics)
    data["clusters"] = [{"name": c.name, "description": c.description} for c in study.clusters]
    return data


def study_to_toml(
    study: ChoiceStudy, questions: dict[str, dict[str, list[str]]], original: dict[str, Any] | None = None
) -> str:
    """`questions`: topic -> cluster -> ordered question texts; `original`: the
    study file as read (every key of it is kept but the models and questions)."""
    data = dict(original) if original is not None else study_dict(study)
    # What the Design screen edits comes from the study; everything else from the file.
    data["models"] = [str(m) for m in study.models]
    if original is None or "clusters" in original or study.clusters != default_clusters():
        data["clusters"] = [{"name": c.name, "description": c.description} for c in study.clusters]
    old_topics = {t.get("name"): t for t in (original or {}).get("topics", []) if isinstance(t, dict)}
    topics = []
    for topic in dict.fromkeys(list(questions) + list(study.generate)):
        entry = {k: v for k, v in old_topics.get(topic, {}).items() if k not in _QUESTION_SOURCES}
        entry["name"] = topic
        if topic in study.generate:
            entry["generate"] = study.generate[topic]
        else:
            entry.pop("generate", None)
        if questions.get(topic):
            entry["questions"] = {cluster: list(texts) for cluster, texts in questions[topic].items()}
        topics.append(entry)
    data.pop("topics", None)
    data["topics"] = topics  # last: the longest part of the file
    return "# Saved by Audit Workbench.\n" + dump_toml(data)
