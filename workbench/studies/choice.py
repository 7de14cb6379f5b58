"""ChoiceEval studies: clusters x topics x questions, asked R times of each model.

See METHODS.md §1. A study file looks like:

    name = "shoes"
    method = "choice"
    repetitions = 5
    seed = 1
    models = ["llama:default"]
    [generation]            # temperature, top_p, max_tokens, stop, system
    [[topics]]
    name = "running shoes"
    questions_file = "running_shoes.json"     # ChoiceEval JSON, or CSV topic,cluster,question
    # or inline:  [topics.questions]  "Budget-Conscious" = ["...", ...]
    questions_per_cluster = 3                 # optional: the first N of each cluster
"""

from __future__ import annotations

import csv
import json
import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from workbench.specs import ModelSpec
from workbench.studies.spec import StudyError, Where, check_keys, expect, read_models

TOP_KEYS = {"name", "method", "description", "repetitions", "seed", "models", "generation",
            "clusters", "topics"}
GENERATION_KEYS = {"temperature", "top_p", "max_tokens", "stop", "system"}
TOPIC_KEYS = {"name", "questions", "questions_file", "questions_per_cluster"}


@dataclass(frozen=True)
class Cluster:
    name: str
    description: str


@dataclass(frozen=True)
class Question:
    topic: str
    cluster: str  # one of the study's cluster names
    cluster_label: str  # the topic-adapted name, when the source has one
    position: int  # order within (topic, cluster)
    text: str
    source: str


@dataclass
class ChoiceStudy:
    name: str
    path: str | None
    description: str
    repetitions: int
    seed: int
    models: list[ModelSpec]
    generation: dict[str, Any]
    clusters: list[Cluster]
    questions: list[Question] = field(default_factory=list)
    method: str = "choice"

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(q.topic for q in self.questions))

    def to_json(self) -> dict[str, Any]:
        """What the store keeps of the study (enough to re-plan it)."""
        return {
            "name": self.name,
            "method": self.method,
            "description": self.description,
            "repetitions": self.repetitions,
            "seed": self.seed,
            "models": [str(m) for m in self.models],
            "generation": self.generation,
            "clusters": [c.__dict__ for c in self.clusters],
        }


def default_clusters() -> list[Cluster]:
    data = tomllib.loads(files("assets").joinpath("clusters.toml").read_text("utf-8"))
    return [Cluster(c["name"], c["description"]) for c in data["clusters"]]


def from_toml(data: dict[str, Any], path: Path) -> ChoiceStudy:
    where = Where(str(path))
    check_keys(where, data, TOP_KEYS)
    name = expect(where.child("name"), data.get("name", path.stem), str, "a study name")
    repetitions = expect(where.child("repetitions"), data.get("repetitions", 1), int,
                         "a whole number of repetitions (paper: 5)")
    if repetitions < 1:
        raise where.child("repetitions").error("expected at least 1")
    seed = expect(where.child("seed"), data.get("seed", 0), int, "an integer seed")
    if "models" not in data:
        raise where.child("models").error('missing; expected a list such as ["llama:default"]')
    models = read_models(where.child("models"), data["models"])
    generation = _generation(where.child("generation"), data.get("generation", {}))
    clusters = _clusters(where.child("clusters"), data.get("clusters"))
    topics = expect(where.child("topics"), data.get("topics"), list,
                    "a list of [[topics]] tables, each with a name and questions")
    if not topics:
        raise where.child("topics").error("expected at least one [[topics]] table")
    questions: list[Question] = []
    for index, topic in enumerate(topics):
        questions.extend(_topic_questions(where.child("topics").child(index), topic, clusters, path))
    return ChoiceStudy(
        name=name,
        path=str(path),
        description=str(data.get("description", "")),
        repetitions=repetitions,
        seed=seed,
        models=models,
        generation=generation,
        clusters=clusters,
        questions=questions,
    )


def _generation(where: Where, table: Any) -> dict[str, Any]:
    expect(where, table, dict, "a [generation] table")
    check_keys(where, table, GENERATION_KEYS)
    out: dict[str, Any] = {"temperature": 0.7, "max_tokens": 256}
    for key, value in table.items():
        if key in ("temperature", "top_p"):
            out[key] = float(expect(where.child(key), value, (int, float), "a number"))
        elif key == "max_tokens":
            out[key] = expect(where.child(key), value, int, "a whole number of tokens")
            if out[key] < 1:
                raise where.child(key).error("expected at least 1")
        elif key == "stop":
            expect(where.child(key), value, list, "a list of stop strings")
            out[key] = [expect(where.child(key).child(i), s, str, "a string") for i, s in enumerate(value)]
        elif key == "system":
            out[key] = expect(where.child(key), value, str, "a system prompt string")
    return out


def _clusters(where: Where, value: Any) -> list[Cluster]:
    if value is None:
        return default_clusters()
    expect(where, value, list, "a list of [[clusters]] tables with name and description")
    clusters = []
    for index, item in enumerate(value):
        item_where = where.child(index)
        expect(item_where, item, dict, "a table with name and description")
        check_keys(item_where, item, {"name", "description"})
        name = expect(item_where.child("name"), item.get("name"), str, "a cluster name")
        description = expect(item_where.child("description"), item.get("description", ""), str,
                             "a one-line definition")
        clusters.append(Cluster(name, description))
    if len({c.name for c in clusters}) != len(clusters):
        raise where.error("expected distinct cluster names")
    return clusters


def _topic_questions(where: Where, topic: Any, clusters: list[Cluster], study_path: Path) -> list[Question]:
    expect(where, topic, dict, "a [[topics]] table")
    check_keys(where, topic, TOPIC_KEYS)
    name = expect(where.child("name"), topic.get("name"), str, "a topic name such as \"running shoes\"")
    limit = topic.get("questions_per_cluster")
    if limit is not None:
        expect(where.child("questions_per_cluster"), limit, int, "a whole number")
        if limit < 1:
            raise where.child("questions_per_cluster").error("expected at least 1")
    if ("questions" in topic) == ("questions_file" in topic):
        raise where.error("expected exactly one of 'questions' (inline table) or 'questions_file'")
    if "questions" in topic:
        q_where = where.child("questions")
        table = expect(q_where, topic["questions"], dict,
                       'a table of cluster name -> list of questions, e.g. "Budget-Conscious" = ["..."]')
        grouped = _inline_questions(q_where, table, clusters)
        source = "inline"
    else:
        file_where = where.child("questions_file")
        file_name = expect(file_where, topic["questions_file"], str, "a path to a JSON or CSV file")
        file_path = (study_path.parent / file_name).resolve()
        grouped = read_question_file(file_path, clusters, topic=name, where=file_where)
        source = str(file_path)
    questions = []
    for cluster_name, label, texts in grouped:
        for position, text in enumerate(texts[:limit] if limit else texts):
            questions.append(Question(name, cluster_name, label, position, text, source))
    return questions


def _inline_questions(where: Where, table: dict[str, Any], clusters: list[Cluster]):
    known = {c.name for c in clusters}
    grouped = []
    for cluster_name, texts in table.items():
        c_where = where.child(cluster_name)
        if cluster_name not in known:
            raise c_where.error(f"unknown cluster (expected one of: {', '.join(c.name for c in clusters)})")
        expect(c_where, texts, list, "a list of question strings")
        grouped.append((cluster_name, cluster_name,
                        [expect(c_where.child(i), t, str, "a question string") for i, t in enumerate(texts)]))
    return grouped


def read_question_file(path: Path, clusters: list[Cluster], *, topic: str, where: Where):
    """Questions from a ChoiceEval JSON bank or a CSV with topic,cluster,question.

    A ChoiceEval file lists its topic-adapted clusters in the paper's order, so
    key i maps to cluster i; the adapted name is kept as the cluster label.
    """
    if not path.exists():
        raise where.error(f"file {path} does not exist")
    if path.suffix.lower() == ".csv":
        return _csv_questions(path, clusters, topic)
    try:
        data = json.loads(path.read_text("utf-8"))
    except ValueError as exc:
        raise StudyError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise StudyError(f"{path}: expected the ChoiceEval format {{\"<cluster name>\": [\"question\", ...]}}")
    if len(data) != len(clusters):
        raise StudyError(
            f"{path}: has {len(data)} clusters but the study defines {len(clusters)}; "
            "ChoiceEval files map to the clusters by position"
        )
    grouped = []
    for cluster, (label, texts) in zip(clusters, data.items()):
        bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
        if bad:
            raise StudyError(f"{path}: key {label!r} item {bad[0]}: expected a question string")
        grouped.append((cluster.name, label, texts))
    return grouped


def _csv_questions(path: Path, clusters: list[Cluster], topic: str):
    known = {c.name for c in clusters}
    order: dict[str, list[str]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"topic", "cluster", "question"} - set(reader.fieldnames or [])
        if missing:
            raise StudyError(f"{path}: missing column(s) {', '.join(sorted(missing))}; expected topic,cluster,question")
        for line, row in enumerate(reader, start=2):
            if row["topic"] != topic:
                continue
            if row["cluster"] not in known:
                raise StudyError(f"{path}: line {line}: unknown cluster {row['cluster']!r}")
            order.setdefault(row["cluster"], []).append(row["question"])
    if not order:
        raise StudyError(f"{path}: no questions for topic {topic!r}")
    return [(name, name, texts) for name, texts in order.items()]


def messages_for(study: ChoiceStudy, question: Question) -> list[dict[str, str]]:
    """A fresh session per question: an optional system prompt and the question."""
    messages = []
    if study.generation.get("system"):
        messages.append({"role": "system", "content": study.generation["system"]})
    messages.append({"role": "user", "content": question.text})
    return messages


def plan_requests(study: ChoiceStudy, model_identity: str, params: dict[str, Any],
                  question_ids: dict[tuple, int]):
    """One `answer` request per question x repetition, keyed deterministically.

    Repetition r uses seed + r - 1, so repetitions sample differently and a
    re-run with the same seed asks exactly the same thing.
    """
    from store.queue import PlannedRequest
    from workbench.keys import request_key

    for question in study.questions:
        messages = messages_for(study, question)
        for repetition in range(1, study.repetitions + 1):
            seed = params.get("seed", study.seed) + repetition - 1
            payload = {"messages": messages, "params": {**{k: v for k, v in params.items() if k != "seed"}, "seed": seed}}
            yield PlannedRequest(
                key=request_key(stage="answer", model_identity=model_identity, payload=payload, repetition=repetition),
                stage="answer",
                payload=payload,
                question_id=question_ids[(question.topic, question.cluster, question.text)],
                repetition=repetition,
                seed=seed,
            )
