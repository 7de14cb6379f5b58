"""Reading study files (TOML) with errors that name the file, the key and what was expected."""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.specs import ModelSpec, SpecError, parse_spec
from workbench.store.errors import UserFacingError


class StudyError(UserFacingError, ValueError):
    """A study file that cannot be used; str() is a one-line explanation for the user."""


@dataclass(frozen=True)
class Where:
    """A position in a study file, for error messages: `file: key`."""

    path: str
    key: str = ""

    def child(self, key: str | int) -> Where:
        if isinstance(key, int):
            return Where(self.path, f"{self.key}[{key}]")
        if not key.isprintable() or not key.strip():
            key = json.dumps(key)  # a key with a newline or nothing visible, shown as written
        return Where(self.path, f"{self.key}.{key}" if self.key else key)

    def error(self, expectation: str) -> StudyError:
        where = f"{self.path}: key '{self.key}'" if self.key else self.path
        return StudyError(f"{where}: {expectation}")


def describe(value: Any) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def expect(where: Where, value: Any, kind: type | tuple[type, ...], expectation: str) -> Any:
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise where.error(f"expected {expectation}, got a boolean")
    if not isinstance(value, kind):
        raise where.error(f"expected {expectation}, got {describe(value)} {value!r:.60}")
    return value


def study_file(where: Where, base: Path, value: Any, expectation: str = "a file path") -> Path:
    """A file a study names, relative to the study file's folder. A name the file system
    cannot hold (a NUL character) is refused here, with the key, not deep in a loader."""
    name = expect(where, value, str, expectation)
    if "\x00" in name:
        raise where.error(f"expected {expectation}, got a name with a NUL character")
    return (base / name).resolve()


def expect_range(
    where: Where,
    value: Any,
    low: float | None,
    high: float | None,
    expectation: str,
    kind: type | tuple[type, ...] = int,
) -> Any:
    """A number of `kind` within [low, high]; NaN and infinities are refused."""
    expect(where, value, kind, expectation)
    if isinstance(value, float) and not math.isfinite(value):
        raise where.error(f"expected {expectation}, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (
            f"between {low:g} and {high:g}"
            if low is not None and high is not None
            else f"at least {low:g}"
            if low is not None
            else f"at most {high:g}"
        )
        raise where.error(f"expected {expectation} {bounds}, got {value!r:.40}")
    return value


# Sizes a study may ask for. Far beyond any published audit, and small enough
# that a typo (seeds = 1000000000) is refused instead of filling the memory.
MAX_REPETITIONS = 10_000
MAX_SEEDS = 10_000
MAX_PER_GROUP = 100_000
MAX_EXPERTS = 50
MAX_TOKENS = 1_000_000
MAX_TEMPERATURE = 10.0

GENERATION_KEYS = {"temperature", "top_p", "max_tokens", "stop", "system"}


def read_generation(where: Where, table: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """The `[generation]` table every method shares: sampling settings with their ranges."""
    expect(where, table, dict, "a [generation] table")
    check_keys(where, table, GENERATION_KEYS)
    out: dict[str, Any] = dict(defaults)
    for key, value in table.items():
        here = where.child(key)
        if key == "temperature":
            out[key] = float(expect_range(here, value, 0, MAX_TEMPERATURE, "a temperature", (int, float)))
        elif key == "top_p":
            out[key] = float(expect_range(here, value, 0, 1, "a probability mass", (int, float)))
            if out[key] <= 0:
                raise here.error("expected a probability mass above 0 and at most 1")
        elif key == "max_tokens":
            out[key] = expect_range(here, value, 1, MAX_TOKENS, "a whole number of tokens")
        elif key == "stop":
            expect(here, value, list, "a list of stop strings")
            out[key] = [expect(here.child(i), s, str, "a string") for i, s in enumerate(value)]
            if any(not s for s in out[key]):
                raise here.error("expected non-empty stop strings")
        elif key == "system":
            out[key] = expect(here, value, str, "a system prompt string")
    return out


def read_name(where: Where, data: dict[str, Any], default: str) -> str:
    name = expect(where.child("name"), data.get("name", default), str, "a study name")
    if not name.strip():
        raise where.child("name").error("expected a non-empty study name")
    return name


def read_toml(path: Path) -> dict[str, Any]:
    if path.is_dir():
        raise StudyError(f"{path}: is a directory, not a study file")
    try:
        with path.open("rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise StudyError(f"{path}: no such study file") from None
    except OSError as exc:
        raise StudyError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise StudyError(
            f"{path}: line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the study file as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message already says "(at line L, column C)".
        raise StudyError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise StudyError(f"{path}: not valid TOML: nested too deeply") from None


def check_keys(where: Where, table: dict[str, Any], allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            raise where.child(key).error(f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def read_models(study: Where, data: dict[str, Any]) -> list[ModelSpec]:
    """The study's `models` list, every method alike."""
    where = study.child("models")
    if "models" not in data:
        raise where.error('missing; expected a list such as ["llama:default"]')
    value = data["models"]
    expect(where, value, list, 'a list of model specs such as "llama:default"')
    if not value:
        raise where.error("expected at least one model spec")
    specs = []
    for index, item in enumerate(value):
        item_where = where.child(index)
        expect(item_where, item, str, 'a model spec string such as "openai:MODEL@http://host:port/v1"')
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
    """Load and validate a study file of any registered method."""
    from workbench import methods

    path = Path(path)
    data = read_toml(path)
    where = Where(str(path))
    known = methods.names()
    method = data.get("method")
    if method is None:
        raise where.child("method").error(f"missing; expected one of: {', '.join(known)}")
    if not isinstance(method, str) or method not in known:
        raise where.child("method").error(f"expected one of: {', '.join(known)}, got {method!r:.40}")
    return methods.get(method).load(data, path)
