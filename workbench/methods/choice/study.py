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
from typing import TYPE_CHECKING, Any

from workbench.engines.specs import ModelSpec
from workbench.methods.choice.question_files import read_question_file
from workbench.store.entities.regions import canonical_region
from workbench.studies.limits import check_last_seeds
from workbench.studies.spec import Where, beside

if TYPE_CHECKING:
    from workbench.methods.choice import study_schema


@dataclass(frozen=True)
class Extraction:
    """How answers become ranked entity lists: `list` (deterministic parser),
    `experts` (E LLM runs at temperature > 0 and a majority vote) or `gazetteer`
    (the known names of an entities file found in the text, workbench/methods/choice/gazetteer.py)."""

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
    entities: str | None = None  # gazetteer: the names file, resolved beside the study file
    fuzzy: bool = True  # gazetteer: near spellings count too


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
    # pydantic is imported when a study is read, not with the command line.
    from workbench.methods.choice.study_schema import ChoiceFile
    from workbench.studies.schema import generation_settings, validate

    where = Where(str(path))
    file: study_schema.ChoiceFile = validate(ChoiceFile, data, where)
    check_last_seeds(where, file.seed, file.models, file.repetitions, "repetitions")
    clusters = (
        [Cluster(c.name, c.description) for c in file.clusters] if file.clusters is not None else default_clusters()
    )
    questions: list[Question] = []
    generate: dict[str, int] = {}
    named: set[str] = set()
    for index, topic in enumerate(file.topics):
        at = where.child("topics").child(index)
        if not topic.name.strip():
            raise at.child("name").error("a topic needs a name (it heads every table and export row)")
        if topic.name in named:
            raise at.child("name").error(f"topic {topic.name!r} is named twice: each topic needs its own name")
        named.add(topic.name)
        questions.extend(_topic_questions(at, topic, clusters, path))
        if topic.generate:
            generate[topic.name] = topic.generate
    x = file.extraction
    return ChoiceStudy(
        extraction=Extraction(
            x.method,
            x.experts,
            x.k,
            x.model,
            x.temperature,
            x.max_tokens,
            x.output,
            x.min_votes,
            x.grounding,
            entities=_gazetteer_file(where.child("extraction").child("entities"), x.entities, path),
            fuzzy=x.fuzzy,
        ),
        metrics=_metrics(file.metrics),
        generate=generate,
        question_generation=_question_generation(where.child("question_generation"), file.question_generation, path),
        verified_only=file.verified_only,
        name=file.name if file.name is not None else path.stem,
        path=str(path),
        description=str(file.description),
        repetitions=file.repetitions,
        seed=file.seed,
        models=file.models,
        generation=generation_settings(
            file.generation, data.get("generation"), {"temperature": 0.7, "max_tokens": 256}
        ),
        clusters=clusters,
        questions=questions,
    )


def _gazetteer_file(where: Where, name: str | None, study_path: Path) -> str | None:
    """The gazetteer's path, read once here so that a fault in it is named before any request."""
    if name is None:
        return None
    from workbench.methods.choice.gazetteer import GazetteerError, load

    file_path = beside(study_path, name)
    if not file_path.is_file():
        raise where.error(f"file {file_path} does not exist")
    try:
        load(file_path)
    except GazetteerError as exc:
        raise where.error(str(exc)) from None
    return str(file_path)


def _metrics(table: study_schema.Metrics) -> dict[str, Any]:
    out: dict[str, Any] = {key: value for key, value in table if value is not None}
    if table.region_pairs is not None:
        # In the vocabulary's spelling ("usa" is the United States), as entities' regions are read.
        out["region_pairs"] = [tuple(canonical_region(x, allow_new=True) or x for x in p) for p in table.region_pairs]
    return out


def _question_generation(where: Where, table: study_schema.QuestionGeneration, study_path: Path) -> QuestionGeneration:
    prompts = {}
    for key in ("adapt_prompt", "generate_prompt"):
        name = getattr(table, key)
        if name is not None:
            prompt_path = beside(study_path, name)
            if not prompt_path.is_file():
                raise where.child(key).error(f"file {prompt_path} does not exist")
            prompts[key] = str(prompt_path)
    return QuestionGeneration(model=table.model, temperature=table.temperature, max_tokens=table.max_tokens, **prompts)


def _topic_questions(
    where: Where, topic: study_schema.Topic, clusters: list[Cluster], study_path: Path
) -> list[Question]:
    if topic.questions is not None:
        grouped = _inline_questions(where.child("questions"), topic.questions, clusters)
        source = "inline"
    elif topic.questions_file is not None:
        file_path = beside(study_path, topic.questions_file)
        grouped = read_question_file(file_path, clusters, topic=topic.name, where=where.child("questions_file"))
        source = str(file_path)
    else:
        return []  # generated later: `generate = N`
    limit = topic.questions_per_cluster
    questions = [
        Question(topic.name, cluster_name, label, position, text, source)
        for cluster_name, label, texts in grouped
        for position, text in enumerate(texts[:limit] if limit else texts)
    ]
    at = where.child("questions" if topic.questions is not None else "questions_file")
    if not questions:  # nothing would be asked: a run "answering all 0 requests" reads as done
        raise at.error(f"topic {topic.name!r} has no questions (give some, or `generate = N` to write them)")
    _refuse_repeated(at, questions)
    return questions


def _refuse_repeated(where: Where, questions: list[Question]) -> None:
    """A wording asked twice in a topic is one request (the same messages): its answers
    would count under the first cluster only, and the run would plan fewer requests than it
    said. Refused, naming the wording and where it is."""
    seen: dict[str, str] = {}
    for q in questions:
        wording = " ".join(q.text.split())
        if wording in seen:
            where_else = (
                f"twice in cluster {q.cluster!r}"
                if seen[wording] == q.cluster
                else f"in clusters {seen[wording]!r} and {q.cluster!r}"
            )
            raise where.error(
                f"the question {wording!r} is {where_else} of topic {q.topic!r}: a wording is asked once, "
                "so give each cluster its own wording or keep it in one"
            )
        seen[wording] = q.cluster


def _inline_questions(where: Where, table: dict[str, list[str]], clusters: list[Cluster]):
    known = {c.name for c in clusters}
    for cluster_name in table:
        if cluster_name not in known:
            raise where.child(cluster_name).error(
                f"unknown cluster (expected one of: {', '.join(c.name for c in clusters)})"
            )
    return [(cluster_name, cluster_name, list(texts)) for cluster_name, texts in table.items()]


def plan_requests(study: ChoiceStudy, model_identity: str, params: dict[str, Any], question_ids: dict[tuple, int]):
    """One `answer` request per stored question x repetition, keyed deterministically.

    `question_ids` holds every question of the study in the store — from the
    study file, imported or generated. Repetition r uses seed + r - 1, so
    repetitions sample differently and a re-run with the same seed asks exactly
    the same thing.
    """
    from workbench.asking.keys import request_key
    from workbench.store.requests.queue import PlannedRequest

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


def plan_units(study: ChoiceStudy, model_identity: str, params: dict[str, Any], question_ids: dict[tuple, int]):
    """The plan by question: each stored question with its repetitions is one unit, keyed by
    (topic, cluster, text), its digest made of what `plan_requests` builds its requests from.
    The question id is left out: a request already stored keeps the id it was planned with."""
    import hashlib

    from workbench.store.requests.queue import PlanUnit

    shared = json.dumps(
        [model_identity, params, study.generation.get("system"), study.repetitions, study.seed],
        sort_keys=True,
        default=repr,
    )
    for question, question_id in question_ids.items():
        unit = repr(question)  # three strings: the same spelling in every process (cheaper than JSON)
        yield PlanUnit(
            hashlib.sha256(unit.encode()).hexdigest()[:32],
            hashlib.sha256(f"{shared}\n{unit}".encode()).hexdigest()[:32],
            plan_requests(study, model_identity, params, {question: question_id}),
        )
