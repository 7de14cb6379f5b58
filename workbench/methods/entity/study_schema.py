"""The entity study file's table (see study.py for an example file). What it cannot know
alone (the task's locales, the templates' and entities' columns) study.py checks as it
reads those files."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from workbench.methods.entity.vocabulary import SCORING, VARIANTS
from workbench.studies.schema import Check, Models, Name, Table, file_name, number, refuse, strings


def _known_variants(variants: list[str]) -> list[str]:
    for variant in variants:
        if variant not in VARIANTS:
            raise refuse(f"unknown variant {variant!r} (expected: {', '.join(VARIANTS)})")
    return variants


class EntityFile(Table):
    method: Any = "entity"
    description: Any = ""
    models: Models
    task: file_name(missing="missing")
    templates: file_name(missing="missing")
    entities: file_name(missing="missing")
    languages: strings("a list of languages") = ["english"]
    variants: strings("a list of variants", also=_known_variants) = ["zero_shot_text"]
    scoring: Annotated[
        Literal[SCORING],
        Check("exact, first_token or naive", choices=f"one of {', '.join(SCORING)}"),
    ] = "exact"
    max_templates: number("a whole number", 1) | None = None
    max_entities: number("a whole number", 1) | None = None
    group_by: strings("a list of entity columns", at_least_one=False) = []
    name: Name | None = None  # None: the file's name
    min_entities: number("a whole number of entities a template needs", 1) = 1
    min_templates: number("a whole number of templates an entity needs", 1) = 1
