"""Study-file tables as pydantic models, and one translation of pydantic's errors into
the messages users read: `study.toml: key 'generation.temperature': expected a
temperature between 0 and 10, got -1.0`.

A key's words live beside its type, in a `Check` (what the key holds, as "expected ..."
says it); ranges are pydantic's own constraints (Field(ge=, gt=, le=)). Every table is
strict (a string is not a number, a boolean not an integer) and refuses unknown keys.
Each method's study_schema.py builds its file's tables from these pieces.

Importing pydantic and building the models costs about 0.1 s, so nothing on the command
line's start-up path imports this module: the study loaders do, when they read a file.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Tag, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from workbench.engines.specs import ModelSpec, SpecError, parse_spec, same_model_twice
from workbench.studies.errors import StudyError, Where, bounds, mismatch, out_of_range
from workbench.studies.limits import MAX_PROMPT_CHARS, MAX_TEMPERATURE, MAX_TOKENS


@dataclass(frozen=True)
class Check:
    """What a key holds, in the words of its messages: `expected <expectation>, got ...`."""

    expectation: str
    missing: str | None = None  # said instead of "missing; expected <expectation>"
    empty: str | None = None  # said for a list shorter than its min_length
    too_long: str | None = None  # said for a list longer than its max_length; {count}: its length
    choices: str | None = None  # a Literal's choices, instead of pydantic's "'a', 'b' or 'c'"


class Table(BaseModel):
    """A table of a study file: no value converted to another type, no unknown key."""

    model_config = ConfigDict(extra="forbid", strict=True)


def refuse(message: str, key: str | None = None) -> PydanticCustomError:
    """The error a validator raises, said as written. A check across a table's keys
    raises it on the table and names the key it refuses."""
    return PydanticCustomError("study", "{message}", {"message": message, "key": key})


def number(
    expectation: str,
    low: float | None = None,
    high: float | None = None,
    *,
    kind: type = int,
    above: float | None = None,
) -> Any:
    """A whole number (kind=float: a finite number) within [low, high] (or above `above`)."""
    return Annotated[kind, Field(ge=low, gt=above, le=high, allow_inf_nan=False), Check(expectation)]


def text(expectation: str, blank: str | None = None) -> Any:
    """A string; `blank`: the message for one with nothing but spaces."""
    if blank is None:
        return Annotated[str, Check(expectation)]
    return Annotated[str, Check(expectation), AfterValidator(_not_blank(blank))]


def prompt_text(expectation: str, blank: str | None = None) -> Any:
    """A text sent to a model with every request (a system prompt, a question): a string of
    at most MAX_PROMPT_CHARS characters (`text`'s `blank` as there)."""

    def check(value: str) -> str:
        if len(value) > MAX_PROMPT_CHARS:
            raise refuse(
                f"expected {expectation} of at most {MAX_PROMPT_CHARS:,} characters, got {len(value):,} "
                "(every request stores its prompt)"
            )
        return value

    return Annotated[text(expectation, blank), AfterValidator(check)]


def _not_blank(message: str):
    def check(value: str) -> str:
        if not value.strip():
            raise refuse(message)
        return value

    return check


def strings(expectation: str, *, at_least_one: bool = True, also: Any = None) -> Any:
    """A list of strings; `also`: a validator of the whole list."""
    checks = [AfterValidator(also)] if also else []
    return Annotated[
        list[text("a string")],
        Field(min_length=1 if at_least_one else 0),
        Check(expectation, empty=f"expected {expectation} (at least one)"),
        *checks,
    ]


def file_name(expectation: str = "a file path", missing: str | None = None) -> Any:
    """A file a study names. A name the file system cannot hold (a NUL character) is
    refused here, with its key, not deep in a loader."""

    def check(value: str) -> str:
        if "\x00" in value:
            raise refuse(f"expected {expectation}, got a name with a NUL character")
        return value

    return Annotated[str, Check(expectation, missing=missing), AfterValidator(check)]


def model_spec(value: str) -> ModelSpec:
    try:
        return parse_spec(value)
    except SpecError as exc:
        raise refuse(str(exc)) from None


def _distinct_models(specs: list[ModelSpec]) -> list[ModelSpec]:
    why = same_model_twice(specs, [str(spec) for spec in specs])
    if why:
        raise refuse(why)
    return specs


# A spec string, validated into a ModelSpec.
Spec = Annotated[str, Check("a model spec string"), AfterValidator(model_spec)]
Models = Annotated[
    list[
        Annotated[
            str, Check('a model spec string such as "openai:MODEL@http://host:port/v1"'), AfterValidator(model_spec)
        ]
    ],
    Field(min_length=1),
    Check(
        'a list of model specs such as "llama:default"',
        missing='missing; expected a list such as ["llama:default"]',
        empty="expected at least one model spec",
    ),
    AfterValidator(_distinct_models),
]
Name = text("a study name", blank="expected a non-empty study name")
Flag = Annotated[bool, Check("true or false")]


def _non_empty_stops(stops: list[str]) -> list[str]:
    if any(not stop for stop in stops):
        raise refuse("expected non-empty stop strings")
    return stops


class Generation(Table):
    """The [generation] table every method shares: sampling settings with their ranges."""

    temperature: number("a temperature", 0, MAX_TEMPERATURE, kind=float) | None = None
    top_p: number("a probability mass", None, 1, kind=float, above=0) | None = None
    max_tokens: number("a whole number of tokens", 1, MAX_TOKENS) | None = None
    stop: (
        Annotated[list[text("a string")], Check("a list of stop strings"), AfterValidator(_non_empty_stops)] | None
    ) = None
    system: prompt_text("a system prompt string") | None = None


GenerationTable = Annotated[Generation, Check("a [generation] table")]


def generation_settings(generation: Generation, table: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """The method's defaults, then the keys the file sets, in the file's order (the stored
    study keeps that order)."""
    return {**defaults, **{key: getattr(generation, key) for key in (table or {})}}


class ModelsOnly(BaseModel):
    """A study's `models`, read alone (its other keys are its method's)."""

    model_config = ConfigDict(extra="ignore", strict=True)
    models: Models


class NameOnly(Table):
    name: Name


def validate(annotation: Any, value: Any, where: Where) -> Any:
    """`value` read as `annotation` says (a Table, or a type with its Check), or the
    StudyError that names the file, the key and what was expected."""
    try:
        return _adapter(annotation).validate_python(value, strict=True)
    except ValidationError as exc:
        raise study_error(exc, annotation, where) from None


@cache
def _adapter(annotation: Any) -> TypeAdapter:
    return TypeAdapter(annotation)


def study_error(exc: ValidationError, annotation: Any, where: Where) -> StudyError:
    """The one translation: pydantic's first error (loc, type, ctx, input) as the message
    the hand-written checks gave, `file: key 'a.b[0]': expected ..., got ...`."""
    error = _first(exc.errors(include_url=False))
    metadata, table, steps = _walk(annotation, error["loc"])
    for step in steps:
        where = where.child(step)
    ctx = error.get("ctx") or {}
    if error["type"] == "study" and ctx.get("key"):
        where = where.child(ctx["key"])
    return where.error(_said(error, metadata, table))


def _first(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The error a user reads: the first, unless a table around it has an unknown key,
    which is said first (a misspelt key explains the values that follow)."""
    first = errors[0]
    unknown = [
        e for e in errors if e["type"] == "extra_forbidden" and first["loc"][: len(e["loc"]) - 1] == e["loc"][:-1]
    ]
    return min(unknown, key=lambda e: len(e["loc"]), default=first)


def _said(error: dict[str, Any], metadata: list[Any], table: type[BaseModel] | None) -> str:
    kind, value, ctx = error["type"], error["input"], error.get("ctx") or {}
    check = next((m for m in reversed(metadata) if isinstance(m, Check)), None)
    expectation = check.expectation if check else "a value of another type"
    if kind == "study":
        return ctx["message"]
    if kind == "missing":
        return (check.missing or f"missing; expected {expectation}") if check else "missing"
    if kind == "extra_forbidden":
        return f"unknown key (expected one of: {', '.join(sorted(table.model_fields))})"
    if kind == "finite_number":
        return f"expected {expectation}, got {value!r}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal"):
        return out_of_range(expectation, value, _bounds(metadata))
    if kind == "literal_error" and check and check.choices:
        # A word not among the choices is quoted; a value of another type is described.
        return f"expected {check.choices}, got {value!r}" if isinstance(value, str) else mismatch(expectation, value)
    if kind == "literal_error":
        return f"expected {ctx['expected']}, got {value!r}"
    if kind == "too_short" and check and check.empty:
        return check.empty
    if kind == "too_long" and check and check.too_long:
        return check.too_long.format(count=ctx["actual_length"])
    return mismatch(expectation, value, numeric=kind in ("int_type", "float_type"))


def _bounds(metadata: list[Any]) -> str:
    """The range in words, from the constraints pydantic keeps (annotated_types' Ge, Gt, Le)."""

    def first(name: str) -> Any:
        return next((getattr(m, name) for m in metadata if getattr(m, name, None) is not None), None)

    return bounds(first("ge"), first("le"), first("gt"))


def _walk(annotation: Any, loc: tuple[Any, ...]) -> tuple[list[Any], type[BaseModel] | None, list[Any]]:
    """What the key at `loc` holds (its metadata: Check, bounds), the table it is in, and
    the steps a user sees: a tagged union's tag is pydantic's, not a key of the file."""
    annotation, metadata = _unwrap(annotation)
    table: type[BaseModel] | None = None
    steps: list[Any] = []
    for step in loc:
        origin = get_origin(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            table, field = annotation, annotation.model_fields.get(step)
            steps.append(step)
            if field is None:  # an unknown key
                return [], table, steps
            annotation, metadata = _unwrap(field.rebuild_annotation())
        elif origin in (Union, types.UnionType):
            members = {_tag(member): member for member in get_args(annotation)}
            annotation, inner = _unwrap(members.get(step))
            metadata = metadata + inner
        elif origin in (list, dict):
            steps.append(step)
            annotation, metadata = _unwrap(get_args(annotation)[-1])
        else:
            steps.append(step)
    return metadata, table, steps


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """The type under Annotated and `X | None`, with the metadata met on the way (a
    Field's constraints included)."""
    metadata: list[Any] = []
    while True:
        if get_origin(annotation) is Annotated:
            annotation, *extra = get_args(annotation)
            for item in extra:
                metadata.extend(item.metadata if isinstance(item, FieldInfo) else [item])
            continue
        if get_origin(annotation) in (Union, types.UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
        return annotation, metadata


def _tag(member: Any) -> str | None:
    return next((m.tag for m in _unwrap(member)[1] if isinstance(m, Tag)), None)
