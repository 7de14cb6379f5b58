"""How a study file's problems are said: `file: key 'a.b[0]': expected ..., got ...`.

The hand-written readers (spec.py) and the translation of pydantic's errors (schema.py)
share these words, so every method says the same thing the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from workbench.errors import StudyError  # noqa: F401  (raised here; the family is workbench.errors)


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


def mismatch(expectation: str, value: Any, numeric: bool = False) -> str:
    """`expected <expectation>, got <what the file holds>`: the words of every type error."""
    if numeric and isinstance(value, bool):
        return f"expected {expectation}, got a boolean"
    return f"expected {expectation}, got {describe(value)} {value!r:.60}"


def _num(value: float) -> str:
    """A bound as written: whole numbers in full with thousands separators (4,294,967,295,
    not 4.29497e+09), others as short as they read."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def bounds(low: float | None, high: float | None, above: float | None = None) -> str:
    """A range in words: `between 1 and 10,000`, `at least 1`, `above 0 and at most 1`."""
    if above is not None:
        return f"above {_num(above)}" + (f" and at most {_num(high)}" if high is not None else "")
    if low is not None and high is not None:
        return f"between {_num(low)} and {_num(high)}"
    return f"at least {_num(low)}" if low is not None else f"at most {_num(high)}"


def out_of_range(expectation: str, value: Any, within: str) -> str:
    return f"expected {expectation} {within}, got {value!r:.40}"
