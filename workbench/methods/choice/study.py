"""ChoiceEval studies: clusters x topics x questions, asked R times of each model.

See docs/methods.md §1. A study file looks like:

    name = "shoes"
    method = "choice"
    repetitions = 5
    seed = 1
    models = ["llama:default"]
    [generation]            # temperature, top_p, max_tokens, stop, system
    [extraction]            # method, experts, k, min_votes, grounding, model, ...
    [[topics]]
    name = "running shoes"
    questions_file = "running_shoes.json"     # ChoiceEval JSON, or CSV topic,cluster,question
    # or inline:  [topics.questions]  "Budget-Conscious" = ["...", ...]
    questions_per_cluster = 3                 # optional: the first N of each cluster
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from workbench.specs import ModelSpec
from workbench.store.regions import canonical_region
from workbench.studies.spec import (
    MAX_EXPERTS,
    MAX_REPETITIONS,
    MAX_TEMPERATURE,
    MAX_TOKENS,
    StudyError,
    Where,
    check_keys,
    expect,
    expect_range,
    read_generation,
    read_models,
    read_name,
    read_optional_spec,
    study_file,
)

TOP_KEYS = {
    "name",
    "method",
    "description",
    "repetitions",
    "seed",
    "models",
    "generation",
    "clusters",
    "topics",
    "extraction",
    "metrics",
    "question_generation",
    "verified_only",
}
EXTRACTION_KEYS = {"method", "experts", "k", "model", "temperature", "max_tokens", "output", "min_votes", "grounding"}
METRICS_KEYS = {"top_n", "min_share", "region_pairs"}
TOPIC_KEYS = {"name", "questions", "questions_file", "questions_per_cluster", "generate"}
QUESTION_GENERATION_KEYS = {"model", "temperature", "max_tokens", "adapt_prompt", "generate_prompt"}


@dataclass(frozen=True)
class Extraction:
    """How answers become ranked entity lists: `list` (deterministic parser) or
    `experts` (E LLM runs at temperature > 0 and a majority vote)."""

    method: str = "list"
    experts: int = 5
    k: int = 5
    model: ModelSpec | None = None  # None: each answering model extracts its own answers
    temperature: float = 0.8
    max_tokens: int = 96
    # json: a JSON object constrained by a schema (grammar on llama) — robust,
    # but grammar sampling over a 262k vocabulary is ~4x slower on CPU;
    # list: a numbered list, started by a "1." prefill in completion mode.
    output: str = "json"
    # Experts that must name an entity for the vote to keep it; None: a simple
    # majority, more than half of `experts` (2 of 3). 1 keeps every named entity.
    min_votes: int | None = None
    # A voted entity not found in the answer text: "drop" leaves it out, "flag" keeps it (counted).
    grounding: str = "drop"


@dataclass(frozen=True)
class QuestionGeneration:
    """LLM-assisted questions (docs/methods.md §1): adapt each cluster to the topic,
    then write N questions per adapted cluster, as schema-constrained JSON."""

    model: ModelSpec | None = None  # None: the study's first model
    temperature: float = 0.9
    max_tokens: int = 600
    adapt_prompt: str | None = None  # a file; None: assets/prompts/adapt_cluster.txt
    generate_prompt: str | None = None  # None: assets/prompts/generate_questions.txt


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
    extraction: Extraction = None  # type: ignore[assignment]
    metrics: dict[str, Any] = field(default_factory=dict)
    generate: dict[str, int] = field(default_factory=dict)  # topic -> questions per adapted cluster
    question_generation: QuestionGeneration = None  # type: ignore[assignment]
    verified_only: bool = False  # ask only questions a reviewer has verified
    method: str = "choice"

    def __post_init__(self) -> None:
        if self.extraction is None:
            self.extraction = Extraction()
        if self.question_generation is None:
            self.question_generation = QuestionGeneration()

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys([q.topic for q in self.questions] + list(self.generate)))

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
            "extraction": {
                **self.extraction.__dict__,
                "model": str(self.extraction.model) if self.extraction.model else None,
            },
            "metrics": self.metrics,
            "generate": self.generate,
            "verified_only": self.verified_only,
        }


def default_clusters() -> list[Cluster]:
    data = tomllib.loads(files("workbench.assets").joinpath("clusters.toml").read_text("utf-8"))
    return [Cluster(c["name"], c["description"]) for c in data["clusters"]]


def from_toml(data: dict[str, Any], path: Path) -> ChoiceStudy:
    where = Where(str(path))
    check_keys(where, data, TOP_KEYS)
    name = read_name(where, data, path.stem)
    repetitions = expect_range(
        where.child("repetitions"),
        data.get("repetitions", 1),
        1,
        MAX_REPETITIONS,
        "a whole number of repetitions (paper: 5)",
    )
    seed = expect(where.child("seed"), data.get("seed", 0), int, "an integer seed")
    models = read_models(where, data)
    generation = _generation(where.child("generation"), data.get("generation", {}))
    clusters = _clusters(where.child("clusters"), data.get("clusters"))
    topics = expect(
        where.child("topics"), data.get("topics"), list, "a list of [[topics]] tables, each with a name and questions"
    )
    if not topics:
        raise where.child("topics").error("expected at least one [[topics]] table")
    questions: list[Question] = []
    generate: dict[str, int] = {}
    for index, topic in enumerate(topics):
        found, count = _topic_questions(where.child("topics").child(index), topic, clusters, path)
        questions.extend(found)
        if count:
            generate[topic["name"]] = count
    verified_only = expect(where.child("verified_only"), data.get("verified_only", False), bool, "true or false")
    extraction = _extraction(where.child("extraction"), data.get("extraction", {}))
    metrics = _metrics(where.child("metrics"), data.get("metrics", {}))
    return ChoiceStudy(
        extraction=extraction,
        metrics=metrics,
        generate=generate,
        question_generation=_question_generation(
            where.child("question_generation"), data.get("question_generation", {}), path
        ),
        verified_only=verified_only,
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
    return read_generation(where, table, {"temperature": 0.7, "max_tokens": 256})


def _extraction(where: Where, table: Any) -> Extraction:
    expect(where, table, dict, "an [extraction] table")
    check_keys(where, table, EXTRACTION_KEYS)
    method = table.get("method", "list")
    if method not in ("list", "experts"):
        raise where.child("method").error(f"expected 'list' or 'experts', got {method!r}")
    experts = expect_range(where.child("experts"), table.get("experts", 5), 1, MAX_EXPERTS, "a whole number of experts")
    k = expect_range(where.child("k"), table.get("k", 5), 1, 100, "a whole number of entities per list")
    temperature = float(
        expect_range(
            where.child("temperature"),
            table.get("temperature", 0.8),
            0,
            MAX_TEMPERATURE,
            "a temperature (above 0, so experts differ)",
            (int, float),
        )
    )
    max_tokens = expect_range(
        where.child("max_tokens"), table.get("max_tokens", 96), 1, MAX_TOKENS, "a whole number of tokens"
    )
    model = read_optional_spec(where, table)
    output = table.get("output", "json")
    if output not in ("json", "list"):
        raise where.child("output").error(f"expected 'json' or 'list', got {output!r}")
    min_votes = table.get("min_votes")
    if min_votes is not None:
        min_votes = expect_range(
            where.child("min_votes"),
            min_votes,
            1,
            experts,
            f"a whole number of the experts (experts = {experts}) that must name an entity",
        )
    grounding = table.get("grounding", "drop")
    if grounding not in ("drop", "flag"):
        raise where.child("grounding").error(f"expected 'drop' or 'flag', got {grounding!r}")
    return Extraction(method, experts, k, model, temperature, max_tokens, output, min_votes, grounding)


def _metrics(where: Where, table: Any) -> dict[str, Any]:
    expect(where, table, dict, "a [metrics] table")
    check_keys(where, table, METRICS_KEYS)
    out: dict[str, Any] = {}
    if "top_n" in table:
        out["top_n"] = expect_range(where.child("top_n"), table["top_n"], 1, 100_000, "a whole number (paper: 10)")
    if "min_share" in table:
        out["min_share"] = float(
            expect(where.child("min_share"), table["min_share"], (int, float), "a share such as 0.05")
        )
    if "region_pairs" in table:
        pairs = expect(
            where.child("region_pairs"),
            table["region_pairs"],
            list,
            'a list of pairs such as [["United States", "Europe"]]',
        )
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
                raise where.child("region_pairs").child(i).error("expected a pair of region names")
        # In the vocabulary's spelling ("usa" is the United States), as entities' regions are read.
        out["region_pairs"] = [tuple(canonical_region(x, allow_new=True) or x for x in p) for p in pairs]
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
        description = expect(item_where.child("description"), item.get("description", ""), str, "a one-line definition")
        clusters.append(Cluster(name, description))
    if len({c.name for c in clusters}) != len(clusters):
        raise where.error("expected distinct cluster names")
    return clusters


def _question_generation(where: Where, table: Any, study_path: Path) -> QuestionGeneration:
    expect(where, table, dict, "a [question_generation] table")
    check_keys(where, table, QUESTION_GENERATION_KEYS)
    model = read_optional_spec(where, table)
    prompts = {}
    for key in ("adapt_prompt", "generate_prompt"):
        if key in table:
            prompt_path = study_file(where.child(key), study_path.parent, table[key], "a path to a prompt file")
            if not prompt_path.is_file():
                raise where.child(key).error(f"file {prompt_path} does not exist")
            prompts[key] = str(prompt_path)
    return QuestionGeneration(
        model=model,
        temperature=float(
            expect_range(
                where.child("temperature"),
                table.get("temperature", 0.9),
                0,
                MAX_TEMPERATURE,
                "a temperature",
                (int, float),
            )
        ),
        max_tokens=expect_range(
            where.child("max_tokens"), table.get("max_tokens", 600), 1, MAX_TOKENS, "a whole number of tokens"
        ),
        **prompts,
    )


def _topic_questions(where: Where, topic: Any, clusters: list[Cluster], study_path: Path) -> tuple[list[Question], int]:
    expect(where, topic, dict, "a [[topics]] table")
    check_keys(where, topic, TOPIC_KEYS)
    name = expect(where.child("name"), topic.get("name"), str, 'a topic name such as "running shoes"')
    limit = topic.get("questions_per_cluster")
    if limit is not None:
        expect_range(where.child("questions_per_cluster"), limit, 1, None, "a whole number")
    generate = 0
    if "generate" in topic:
        generate = expect_range(
            where.child("generate"),
            topic["generate"],
            1,
            1000,
            "a whole number of questions to generate per adapted cluster (paper: 23)",
        )
    if "questions" in topic and "questions_file" in topic:
        raise where.error("expected one of 'questions' (inline table) or 'questions_file', not both")
    if not ({"questions", "questions_file"} & set(topic)):
        if generate:
            return [], generate
        raise where.error("expected 'questions' (inline table), 'questions_file' or 'generate = N'")
    if "questions" in topic:
        q_where = where.child("questions")
        table = expect(
            q_where,
            topic["questions"],
            dict,
            'a table of cluster name -> list of questions, e.g. "Budget-Conscious" = ["..."]',
        )
        grouped = _inline_questions(q_where, table, clusters)
        source = "inline"
    else:
        file_where = where.child("questions_file")
        file_path = study_file(file_where, study_path.parent, topic["questions_file"], "a path to a JSON or CSV file")
        grouped = read_question_file(file_path, clusters, topic=name, where=file_where)
        source = str(file_path)
    questions = []
    for cluster_name, label, texts in grouped:
        for position, text in enumerate(texts[:limit] if limit else texts):
            questions.append(Question(name, cluster_name, label, position, text, source))
    return questions, generate


def _inline_questions(where: Where, table: dict[str, Any], clusters: list[Cluster]):
    known = {c.name for c in clusters}
    grouped = []
    for cluster_name, texts in table.items():
        c_where = where.child(cluster_name)
        if cluster_name not in known:
            raise c_where.error(f"unknown cluster (expected one of: {', '.join(c.name for c in clusters)})")
        expect(c_where, texts, list, "a list of question strings")
        for i, text in enumerate(texts):
            expect(c_where.child(i), text, str, "a question string")
            if not text.strip():
                raise c_where.child(i).error("expected a non-empty question")
        grouped.append((cluster_name, cluster_name, list(texts)))
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
    if path.is_dir():
        raise where.error(f"{path} is a directory, not a question file")
    try:
        data = json.loads(path.read_text("utf-8"))
    except UnicodeDecodeError as exc:
        raise StudyError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except ValueError as exc:
        raise StudyError(f"{path}: not valid JSON: {exc}") from None
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
        grouped.append((cluster.name, label, texts))
    return grouped


def _csv_questions(path: Path, clusters: list[Cluster], topic: str):
    known = {c.name for c in clusters}
    order: dict[str, list[str]] = {}
    from workbench.csv_input import CsvInputError, read_rows

    try:
        for line, row in read_rows(path, ("topic", "cluster", "question")):
            if row["topic"] != topic:
                continue
            if row["cluster"] not in known:
                raise StudyError(f"{path}: line {line}: unknown cluster {row['cluster']!r}")
            question = " ".join(row["question"].split())
            if not question:  # dropped silently before: say which row
                raise StudyError(f"{path}: line {line}: empty question")
            order.setdefault(row["cluster"], []).append(question)
    except CsvInputError as exc:
        raise StudyError(str(exc)) from None
    if not order:
        raise StudyError(f"{path}: no questions for topic {topic!r}")
    return [(name, name, texts) for name, texts in order.items()]


def plan_requests(study: ChoiceStudy, model_identity: str, params: dict[str, Any], question_ids: dict[tuple, int]):
    """One `answer` request per stored question x repetition, keyed deterministically.

    `question_ids` holds every question of the study in the store — from the
    study file, imported or generated. Repetition r uses seed + r - 1, so
    repetitions sample differently and a re-run with the same seed asks exactly
    the same thing.
    """
    from workbench.keys import request_key
    from workbench.store.queue import PlannedRequest

    system = study.generation.get("system")
    for (_topic, _cluster, text), question_id in question_ids.items():
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": text}]
        for repetition in range(1, study.repetitions + 1):
            seed = params.get("seed", study.seed) + repetition - 1
            payload = {
                "messages": messages,
                "params": {**{k: v for k, v in params.items() if k != "seed"}, "seed": seed},
            }
            yield PlannedRequest(
                key=request_key(stage="answer", model_identity=model_identity, payload=payload, repetition=repetition),
                stage="answer",
                payload=payload,
                question_id=question_id,
                repetition=repetition,
                seed=seed,
            )
