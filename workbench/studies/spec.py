"""Reading study files (TOML) with errors that name the file, the key and what was expected."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.specs import ModelSpec, SpecError, parse_spec

METHODS = ("choice", "coldstart", "identity", "entity")


class StudyError(ValueError):
    """A study file that cannot be used; str() is a one-line explanation for the user."""


@dataclass(frozen=True)
class Where:
    """A position in a study file, for error messages: `file: key`."""

    path: str
    key: str = ""

    def child(self, key: str | int) -> Where:
        if isinstance(key, int):
            return Where(self.path, f"{self.key}[{key}]")
        return Where(self.path, f"{self.key}.{key}" if self.key else key)

    def error(self, expectation: str) -> StudyError:
        where = f"{self.path}: key '{self.key}'" if self.key else self.path
        return StudyError(f"{where}: {expectation}")


def describe(value: Any) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
             list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def expect(where: Where, value: Any, kind: type | tuple[type, ...], expectation: str) -> Any:
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise where.error(f"expected {expectation}, got a boolean")
    if not isinstance(value, kind):
        raise where.error(f"expected {expectation}, got {describe(value)} {value!r:.60}")
    return value


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise StudyError(f"{path}: no such study file") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message already says "(at line L, column C)".
        raise StudyError(f"{path}: not valid TOML: {exc}") from None


def check_keys(where: Where, table: dict[str, Any], allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            raise where.child(key).error(
                f"unknown key (expected one of: {', '.join(sorted(allowed))})"
            )


def read_models(study: Where, data: dict[str, Any]) -> list[ModelSpec]:
    """The study's `models` list, every method alike."""
    where = study.child("models")
    if "models" not in data:
        raise where.error('missing; expected a list such as ["llama:default"]')
    value = data["models"]
    expect(where, value, list, "a list of model specs such as \"llama:default\"")
    if not value:
        raise where.error("expected at least one model spec")
    specs = []
    for index, item in enumerate(value):
        item_where = where.child(index)
        expect(item_where, item, str, "a model spec string such as \"openai:MODEL@http://host:port/v1\"")
        try:
            specs.append(parse_spec(item))
        except SpecError as exc:
            raise item_where.error(str(exc)) from None
    return specs


def read_optional_spec(where: Where, table: dict[str, Any], key: str = "model") -> ModelSpec | None:
    """A model spec under `key`, if the table has one."""
    if key not in table:
        return None
    expect(where.child(key), table[key], str, "a model spec string")
    try:
        return parse_spec(table[key])
    except SpecError as exc:
        raise where.child(key).error(str(exc)) from None


def load_study(path: str | Path):
    """Load and validate a study file of any supported method."""
    path = Path(path)
    data = read_toml(path)
    where = Where(str(path))
    method = data.get("method")
    if method is None:
        raise where.child("method").error(f"missing; expected one of: {', '.join(METHODS)}")
    if method not in METHODS:
        raise where.child("method").error(f"expected one of: {', '.join(METHODS)}, got {method!r}")
    if method == "identity":
        from workbench.studies import identity

        return identity.from_toml(data, path)
    if method == "entity":
        from workbench.studies import entity

        return entity.from_toml(data, path)
    if method == "coldstart":
        from workbench.studies import coldstart

        return coldstart.from_toml(data, path)
    from workbench.studies import choice

    return choice.from_toml(data, path)
