"""Writing a ChoiceEval study back to TOML (the Design screen's save).

The saved file starts from the study file as it was read, so every key the user
wrote survives a save ([question_generation], [metrics], prompt paths, keys a
newer workbench added); only what the Design screen edits is replaced: the
models, the clusters' definitions, and each topic's questions, written inline with their current wording
(after reviewers' edits, imports and generation), so the saved file alone
reproduces the study. Given the file's text, the save is an edit of that text
(tomlkit keeps its comments, blank lines and layout): a value the screen did not
change is left as written, and a file saved without a change is saved unchanged.
"""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import AoT, Array, Table

from workbench.methods.choice.study import ChoiceStudy, default_clusters

# Topic keys the inline questions replace (they would read the questions again from elsewhere).
_QUESTION_SOURCES = ("questions", "questions_file", "questions_per_cluster")
HEADER = "# Saved by Audit Workbench.\n"


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _item(value: Any) -> Any:
    """A new TOML item for a plain value: tables for dicts, arrays of tables for lists
    of dicts, and a long list of strings one string a line."""
    if isinstance(value, dict):
        table = tomlkit.table()
        for key, inner in value.items():
            table.add(key, _item(inner))
        return table
    if _is_table_array(value):
        return _aot(value)
    if isinstance(value, list | tuple):
        array = tomlkit.array()
        array.extend(_item(v) for v in value)
        if len(value) > 3 and all(isinstance(v, str) for v in value):
            array.multiline(True)
        return array
    return tomlkit.item(value)


def _aot(value: list[dict[str, Any]]) -> AoT:
    tables = tomlkit.aot()
    for entry in value:
        tables.append(_item(entry))
    return tables


def dump_toml(data: dict[str, Any]) -> str:
    """A TOML document for `data` (as tomllib returns it): plain keys first, then
    tables and arrays of tables, in the order they come."""
    document = tomlkit.document()
    plain = {k: v for k, v in data.items() if not isinstance(v, dict) and not _is_table_array(v)}
    for key, value in [*plain.items(), *((k, v) for k, v in data.items() if k not in plain)]:
        document.add(key, _item(value))
    return tomlkit.dumps(document)


def _merge(container: Container | Table, new: dict[str, Any]) -> None:
    """Make `container` (part of a parsed file) hold `new`, touching only what differs."""
    for key in [k for k in container if k not in new]:
        del container[key]
    for key, value in new.items():
        old = container.get(key)
        if old is None:
            container[key] = _item(value)
        elif _plain(old) == value:
            continue  # unchanged: kept as written, comments and all
        elif isinstance(old, Table) and isinstance(value, dict):
            _merge(old, value)
        elif isinstance(old, AoT) and _is_table_array(value) and _same_tables(old, value):
            for table, entry in zip(old.body, value):
                _merge(table, entry)
            for entry in value[len(old.body) :]:
                old.append(_item(entry))
        elif isinstance(old, Array) and isinstance(value, list) and not _is_table_array(value):
            _merge_array(old, value)
        else:
            container[key] = _item(value)


def _merge_array(old: Array, new: list[Any]) -> None:
    """A list edited element by element, so each kept element keeps its comment."""
    for index, value in enumerate(new[: len(old)]):
        if _plain(old[index]) != value:
            old[index] = _item(value)
    while len(old) > len(new):
        del old[len(old) - 1]
    for value in new[len(old) :]:
        old.append(_item(value))


def _same_tables(old: AoT, new: list[dict[str, Any]]) -> bool:
    """Whether an array of tables can be edited table by table: the file's tables are
    the first entries, in order, each with the `name` it had (topics, clusters)."""
    return len(new) >= len(old.body) and all(
        table.get("name") == entry.get("name") for table, entry in zip(old.body, new)
    )


def _plain(item: Any) -> Any:
    return item.unwrap() if hasattr(item, "unwrap") else item


def edit_toml(text: str, data: dict[str, Any]) -> str:
    """`text` (a TOML file) changed to hold `data`, keeping what did not change as written."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    document = tomlkit.parse(text.removeprefix(bom))
    _merge(document, data)
    return bom + tomlkit.dumps(document)


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
        **({"entities": x.entities, "fuzzy": x.fuzzy} if x.entities is not None else {}),
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
    study: ChoiceStudy,
    questions: dict[str, dict[str, list[str]]],
    original: dict[str, Any] | None = None,
    text: str | None = None,
) -> str:
    """`questions`: topic -> cluster -> ordered question texts; `original`: the
    study file as read (every key of it is kept but the models and questions), and
    `text` the file's text, which the save then edits (its comments and layout kept)."""
    data = dict(original) if original is not None else study_dict(study)
    # What the Design screen edits comes from the study; everything else from the file.
    data["models"] = [str(m) for m in study.models]
    if original is None or "clusters" in original or study.clusters != default_clusters():
        data["clusters"] = [{"name": c.name, "description": c.description} for c in study.clusters]
    old_topics = {t.get("name"): t for t in (original or {}).get("topics", []) if isinstance(t, dict)}
    kept = [name for name in old_topics if name in questions or name in study.generate]
    topics = []
    for topic in dict.fromkeys(kept + list(questions) + list(study.generate)):  # the file's order first
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
    if text is not None and original is not None:
        return edit_toml(text, data)
    return HEADER + dump_toml(data)
