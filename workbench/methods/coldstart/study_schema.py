"""The cold-start study file's table (see study.py for an example file). What it cannot
know alone (k against the catalog's size, the files' contents) study.py checks as it
builds the study."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Discriminator, Field, Tag

from workbench.studies.limits import MAX_SEED, MAX_SEEDS
from workbench.studies.schema import Check, Generation, Models, Name, Table, file_name, number, refuse, text


def _distinct(seeds: list[int]) -> list[int]:
    if len(set(seeds)) != len(seeds):
        raise refuse("expected distinct seeds")
    return seeds


def _count_or_list(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return "count"
    return "list" if isinstance(value, list) else None


# `seeds = 5` (seeds 0..4) or `seeds = [3, 1, 4]`.
Seeds = Annotated[
    Annotated[number("a number of seeds", 1, MAX_SEEDS), Tag("count")]
    | Annotated[
        list[number("a whole-number seed", 0, MAX_SEED)],
        Field(min_length=1, max_length=MAX_SEEDS),
        Check(
            "a number of seeds or a list of seeds",
            empty="expected at least one seed",
            too_long=f"expected at most {MAX_SEEDS} seeds, got {{count}}",
        ),
        AfterValidator(_distinct),
        Tag("list"),
    ],
    Discriminator(_count_or_list),
    Check("a number of seeds or a list of seeds"),
]


class ColdStartFile(Table):
    method: Any = "coldstart"
    description: Any = ""
    models: Models
    catalog: file_name(missing="missing; expected a JSON list or CSV file of catalog items")
    k: Annotated[int, Check("the number of items to rank (paper: 20)")] = 20
    seeds: Seeds = 5
    context: Any = ""
    attributes_file: file_name("a JSON file") | None = None
    attributes: Annotated[
        dict[str, Annotated[list[text("a string")], Check("a list of attributes")]],
        Check('a table such as religion = ["a Buddhist"]'),
    ] = {}
    generation: Annotated[Generation, Check("a [generation] table")] = Generation()
    item_noun: Any = "items"
    name: Name | None = None  # None: the file's name
