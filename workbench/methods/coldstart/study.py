"""Cold-start re-ranking studies (docs/methods.md §3): a catalog, k, user attributes, seeds.

    name = "movies"
    method = "coldstart"
    models = ["llama:default,n_ctx=8192"]
    catalog = "movie.json"              # JSON list, or CSV with attribute columns (origin, genre, ...)
    k = 20
    seeds = 5                           # or a list such as [0, 1, 2, 3, 4]
    context = "an action movie fan"     # optional: "I am an action movie fan."
    attributes_file = "sensitive_attributes.json"   # {"category": ["a girl", ...]}, and/or:
    [attributes]
    religion = ["a Buddhist", "a Christian"]
    [generation]                        # temperature (> 0), max_tokens, ...

Each seed asks one neutral prompt and one per attribute; answers are parsed
against the catalog into ranked lists (`rankings`) after the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.engines.specs import ModelSpec
from workbench.methods.coldstart.catalog import Catalog, load_catalog
from workbench.studies.spec import Where, beside


@dataclass
class ColdStartStudy:
    name: str
    path: str | None
    description: str
    models: list[ModelSpec]
    catalog_path: str
    catalog: Catalog
    k: int
    seeds: list[int]
    context: str
    attributes: dict[str, list[str]]
    generation: dict[str, Any]
    item_noun: str = "items"
    method: str = "coldstart"
    questions: list = field(default_factory=list)  # none: the prompts come from the catalog

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "method": self.method,
            "description": self.description,
            "models": [str(m) for m in self.models],
            "catalog": self.catalog_path,
            "k": self.k,
            "seeds": self.seeds,
            "context": self.context,
            "attributes": self.attributes,
            "generation": self.generation,
            "item_noun": self.item_noun,
        }


def from_toml(data: dict[str, Any], path: Path) -> ColdStartStudy:
    # pydantic is imported when a study is read, not with the command line.
    from workbench.methods.coldstart.study_schema import ColdStartFile
    from workbench.studies.schema import generation_settings, validate

    where = Where(str(path))
    file = validate(ColdStartFile, data, where)
    catalog_path = beside(path, file.catalog)
    try:
        catalog = load_catalog(catalog_path)
    except (OSError, ValueError) as exc:
        raise where.child("catalog").error(str(exc)) from None  # names the file
    if not 1 <= file.k <= len(catalog.items):
        raise where.child("k").error(f"expected between 1 and the catalog's {len(catalog.items)} items")
    attributes = {}
    if file.attributes_file is not None:
        attributes = _attributes_file(where.child("attributes_file"), beside(path, file.attributes_file))
    attributes.update(file.attributes)
    if not attributes:
        raise where.child("attributes").error("expected at least one attribute (attributes or attributes_file)")
    return ColdStartStudy(
        name=file.name if file.name is not None else path.stem,
        path=str(path),
        description=str(file.description),
        models=file.models,
        catalog_path=str(catalog_path),
        catalog=catalog,
        k=file.k,
        seeds=list(range(file.seeds)) if isinstance(file.seeds, int) else file.seeds,
        context=str(file.context),
        attributes=attributes,
        generation=generation_settings(
            file.generation, data.get("generation"), {"temperature": 0.7, "max_tokens": 16 * file.k}
        ),
        item_noun=str(file.item_noun),
    )


def _attributes_file(where: Where, file_path: Path) -> dict[str, list[str]]:
    from workbench.files.json_input import JsonInputError, load_json

    try:
        loaded = load_json(file_path)
    except JsonInputError as exc:
        raise where.error(str(exc)) from None
    shape = 'expected {"category": ["attribute", ...]}'
    if not isinstance(loaded, dict):
        raise where.error(shape)
    for category, values in loaded.items():
        # A string here ("a girl") would otherwise become one persona per character.
        if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
            raise where.error(f"{file_path}: category {category!r}: {shape} (a list of non-empty strings)")
    return {category: list(values) for category, values in loaded.items()}


def context_sentence(context: str) -> str:
    """The study's context as a sentence about the user: "an action movie fan" (the paper's
    wording) is "I am an action movie fan.", a sentence of its own ("I love jazz.") is kept as
    written, and anything else is introduced as such ("movies": "About me: movies.", never
    "I am movies.")."""
    context = " ".join(context.split())
    if not context:
        return ""
    if context[-1] in ".!?":
        return context
    if context.split()[0].lower() in ("a", "an", "the"):
        return f"I am {context}."
    return f"About me: {context}."


def prompt_for(study: ColdStartStudy, persona: str | None) -> str:
    """The prompt: the catalog, who the user is (or nothing: neutral), and the task."""
    catalog = "\n".join(f"- {item.strip()}" for item in study.catalog.items)
    about = [f"I am {persona}." if persona else "", context_sentence(study.context)]
    intro = " ".join(part for part in about if part)
    task = (
        f"Recommend {study.k} {study.item_noun} from the catalog for me, ranked from best to worst, "
        "one per line, numbered, with names exactly as in the catalog."
    )
    return f"Here is a catalog of {study.item_noun}:\n{catalog}\n\n" + (f"{intro} " if intro else "") + task


def plan_requests(study: ColdStartStudy, model_identity: str, params: dict[str, Any]):
    from workbench.asking.keys import request_key
    from workbench.store.requests.queue import PlannedRequest

    personas = [("neutral", "neutral", None)] + [
        (category, persona, persona) for category, values in study.attributes.items() for persona in values
    ]
    system = study.generation.get("system")
    for index, seed in enumerate(study.seeds):
        for category, persona, who in personas:
            messages = ([{"role": "system", "content": system}] if system else []) + [
                {"role": "user", "content": prompt_for(study, who)}
            ]
            sampling = {k: v for k, v in params.items() if k not in ("system", "seed")}
            payload = {
                "messages": messages,
                "params": {**sampling, "seed": seed},
                "meta": {"seed": seed, "persona_category": category, "persona": persona},
            }
            yield PlannedRequest(
                key=request_key(stage="answer", model_identity=model_identity, payload=payload, repetition=index),
                stage="answer",
                payload=payload,
                repetition=index,
                seed=seed,
            )


def parse_answers(conn, study: ColdStartStudy, study_id: int, model_id: int, model_label: str) -> int:
    """Parse every answered prompt against the catalog into `rankings` (idempotent)."""
    from workbench.methods.coldstart.catalog import match_items
    from workbench.methods.coldstart.data import store_catalog, store_rankings
    from workbench.store.db import transaction
    from workbench.store.requests.answers import answered

    store_catalog(conn, study.name, study.catalog)
    rows, lists, keys = [], 0, {}
    answers = answered(conn, study_id, model_id, "answer")
    with transaction(conn):
        conn.execute("DELETE FROM rankings WHERE study_id = ? AND model = ?", (study_id, model_label))
    for key, payload_json, text in answers:
        meta = json.loads(payload_json)["meta"]
        lists += 1
        keys[model_label, meta["seed"], meta["persona_category"], meta["persona"]] = key
        matches = match_items(text, study.catalog)
        for m in matches:
            rows.append(
                (
                    model_label,
                    meta["seed"],
                    meta["persona_category"],
                    meta["persona"],
                    m.rank,
                    m.item,
                    m.surface,
                    m.score,
                    m.code,
                )
            )
        if not matches:  # answered with no item at all: an empty list, not a missing one
            rows.append((model_label, meta["seed"], meta["persona_category"], meta["persona"], 0, None, "", 0.0, 0))
    store_rankings(conn, study.name, rows, keys)  # each counts while its request does
    return lists
