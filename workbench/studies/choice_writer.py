"""Writing a ChoiceEval study back to TOML (the Design screen's save).

Questions are written inline with their current wording (after reviewers' edits,
imports and generation), so the saved file alone reproduces the study.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.studies.choice import ChoiceStudy


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() and name.isascii() else _value(name)


def study_to_toml(study: ChoiceStudy, questions: dict[str, dict[str, list[str]]]) -> str:
    """`questions`: topic -> cluster -> ordered question texts."""
    lines = [
        "# Saved by Audit Workbench.",
        f"name = {_value(study.name)}",
        'method = "choice"',
    ]
    if study.description:
        lines.append(f"description = {_value(study.description)}")
    lines += [f"repetitions = {study.repetitions}", f"seed = {study.seed}"]
    if study.verified_only:
        lines.append("verified_only = true")
    lines.append(f"models = {_value([str(m) for m in study.models])}")
    lines += ["", "[generation]"] + [f"{k} = {_value(v)}" for k, v in study.generation.items()]
    x = study.extraction
    lines += ["", "[extraction]", f"method = {_value(x.method)}", f"experts = {x.experts}", f"k = {x.k}",
              f"temperature = {x.temperature!r}", f"max_tokens = {x.max_tokens}", f"output = {_value(x.output)}"]
    if x.model is not None:
        lines.append(f"model = {_value(str(x.model))}")
    if study.metrics:
        lines += ["", "[metrics]"] + [f"{k} = {_value(v)}" for k, v in study.metrics.items()]
    for cluster in study.clusters:
        lines += ["", "[[clusters]]", f"name = {_value(cluster.name)}", f"description = {_value(cluster.description)}"]
    topics = list(dict.fromkeys(list(questions) + list(study.generate)))
    for topic in topics:
        lines += ["", "[[topics]]", f"name = {_value(topic)}"]
        if topic in study.generate:
            lines.append(f"generate = {study.generate[topic]}")
        if questions.get(topic):
            lines.append("[topics.questions]")
            for cluster, texts in questions[topic].items():
                lines.append(f"{_key(cluster)} = [")
                lines += [f"    {_value(t)}," for t in texts]
                lines.append("]")
    return "\n".join(lines) + "\n"
