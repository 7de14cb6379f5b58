"""A study's question files: a ChoiceEval JSON bank or a CSV topic,cluster,question, read for
a study file's `questions_file` and for `workbench import questions` alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.studies.limits import MAX_PROMPT_CHARS
from workbench.studies.spec import StudyError, Where


def read_question_file(path: Path, clusters: list[Any], *, topic: str, where: Where):
    """Questions from a ChoiceEval JSON bank or a CSV with topic,cluster,question (`clusters`:
    the study's, each with a `name`).

    A ChoiceEval file lists its topic-adapted clusters in the paper's order, so
    key i maps to cluster i; the adapted name is kept as the cluster label.
    """
    named = f"{path} " if where.key else ""  # a study's key names the file; an import's message starts with it
    if not path.exists():
        raise where.error(f"file {path} does not exist" if where.key else "no such file")
    if path.suffix.lower() == ".csv":
        return _csv_questions(path, clusters, topic)
    if path.is_dir():
        raise where.error(f"{named}is a directory, not a question file")
    from workbench.files.json_input import JsonInputError, load_json

    try:
        data = load_json(path)
    except JsonInputError as exc:
        raise StudyError(str(exc)) from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise StudyError(f'{path}: expected the ChoiceEval format {{"<cluster name>": ["question", ...]}}')
    if len(data) != len(clusters):
        raise StudyError(
            f"{path}: has {len(data)} clusters but the study defines {len(clusters)}; "
            "ChoiceEval files map to the clusters by position"
        )
    grouped = []
    for cluster, (label, texts) in zip(clusters, data.items()):
        bad = [i for i, t in enumerate(texts) if not isinstance(t, str) or not t.strip()]
        if bad:
            raise StudyError(f"{path}: key {label!r} item {bad[0]}: expected a non-empty question string")
        for i, t in enumerate(texts):
            _check_length(t, f"{path}: key {label!r} item {i}")
        grouped.append((cluster.name, label, texts))
    return grouped


def _check_length(question: str, where: str) -> None:
    """A bank's question is capped as a study file's is (studies/schema.py, prompt_text): every
    request stores its prompt, so one question of megabytes costs that much per repetition."""
    if len(question) > MAX_PROMPT_CHARS:
        raise StudyError(
            f"{where}: expected a question string of at most {MAX_PROMPT_CHARS:,} characters, "
            f"got {len(question):,} (every request stores its prompt)"
        )


def _csv_questions(path: Path, clusters: list[Any], topic: str):
    known = {c.name for c in clusters}
    order: dict[str, list[str]] = {}
    from workbench.files.csv_input import CsvInputError, read_rows

    try:
        for line, row in read_rows(path, ("topic", "cluster", "question")):
            if row["topic"] != topic:
                continue
            if row["cluster"] not in known:
                raise StudyError(f"{path}: line {line}: unknown cluster {row['cluster']!r}")
            question = " ".join(row["question"].split())
            if not question:  # dropped silently before: say which row
                raise StudyError(f"{path}: line {line}: empty question")
            _check_length(question, f"{path}: line {line}: column 'question'")
            order.setdefault(row["cluster"], []).append(question)
    except CsvInputError as exc:
        raise StudyError(str(exc)) from None
    if not order:
        raise StudyError(f"{path}: no questions for topic {topic!r}")
    return [(name, name, texts) for name, texts in order.items()]
