"""Reading study files (TOML) with errors that name the file, the key and what was expected."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from workbench.engines.specs import ModelSpec
from workbench.studies.errors import StudyError, Where, describe, mismatch  # noqa: F401 (the plugin API)


def expect(where: Where, value: Any, kind: type | tuple[type, ...], expectation: str) -> Any:
    """`value` if it is a `kind` (a boolean is no number), else the StudyError at `where`."""
    numeric = kind in (int, float, (int, float))
    if (numeric and isinstance(value, bool)) or not isinstance(value, kind):
        raise where.error(mismatch(expectation, value, numeric))
    return value


def beside(study_path: Path, name: str) -> Path:
    """A file a study names, relative to the study file's folder."""
    return (study_path.parent / name).resolve()


# The readers below are the plugin API (docs/writing-a-method.md). Their tables are
# pydantic models (workbench/studies/schema.py), imported when a study is read: pydantic
# costs the command line's start-up time otherwise.


def read_generation(where: Where, table: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """The `[generation]` table every method shares: sampling settings with their ranges."""
    from workbench.studies import schema

    return schema.generation_settings(schema.validate(schema.GenerationTable, table, where), table, defaults)


def read_name(where: Where, data: dict[str, Any], default: str) -> str:
    from workbench.studies import schema

    return schema.validate(schema.NameOnly, {"name": data.get("name", default)}, where).name


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


def read_models(study: Where, data: dict[str, Any]) -> list[ModelSpec]:
    """The study's `models` list, every method alike."""
    from workbench.studies import schema

    return schema.validate(schema.ModelsOnly, data, study).models
