"""The pairwise study file and its plan: each pair asked in both orders, `repetitions` times."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.keys import request_key
from workbench.store.queue import PlannedRequest
from workbench.studies.spec import Where, expect, read_generation, read_models, read_name

PROMPT = "Which {topic} do you recommend, {first} or {second}? Answer with the name only."


@dataclass(frozen=True)
class Pair:
    topic: str
    a: str
    b: str


@dataclass
class PairwiseStudy:
    """The study object the pipeline reads: name, method, models, path, generation, to_json()."""

    name: str
    path: str
    models: list
    generation: dict[str, Any]
    pairs: list[Pair]
    repetitions: int = 1
    method: str = "pairwise"
    questions: list = field(default_factory=list)  # none: requests carry their own topic

    def to_json(self) -> dict[str, Any]:
        """What the store keeps of the study (its SHA-256 is the exports' study_sha256)."""
        pairs = [{"topic": p.topic, "a": p.a, "b": p.b} for p in self.pairs]
        return {"name": self.name, "method": self.method, "pairs": pairs, "repetitions": self.repetitions}


def load(data: dict[str, Any], path: Path) -> PairwiseStudy:
    where = Where(str(path))
    pairs = []
    for i, table in enumerate(expect(where.child("pairs"), data.get("pairs"), list, "a list of [[pairs]]")):
        at = where.child(f"pairs[{i}]")
        expect(at, table, dict, "a table with topic, a and b")
        topic, a, b = (expect(at.child(k), table.get(k), str, "a name") for k in ("topic", "a", "b"))
        pairs.append(Pair(topic, a, b))
    repetitions = expect(where.child("repetitions"), data.get("repetitions", 1), int, "a whole number")
    generation = read_generation(where.child("generation"), data.get("generation", {}), {"max_tokens": 8})
    return PairwiseStudy(
        read_name(where, data, path.stem), str(path), read_models(where, data), generation, pairs, repetitions
    )


def plan(study: PairwiseStudy, model_identity: str, params: dict[str, Any]):
    """Both orders of every pair, each `repetitions` times; `meta` says what was shown first."""
    for pair in study.pairs:
        for order, (first, second) in (("AB", (pair.a, pair.b)), ("BA", (pair.b, pair.a))):
            text = PROMPT.format(topic=pair.topic, first=first, second=second)
            for repetition in range(study.repetitions):
                payload = {
                    "messages": [{"role": "user", "content": text}],
                    "params": params,
                    "meta": {"topic": pair.topic, "option_a": pair.a, "option_b": pair.b, "order": order},
                }
                key = request_key(stage="answer", model_identity=model_identity, payload=payload, repetition=repetition)
                yield PlannedRequest(key, "answer", payload, repetition=repetition)
