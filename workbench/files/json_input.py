"""Reading users' JSON files (question banks, tasks, catalogs, attribute lists) strictly.

Python's `json` keeps the last value of a key given twice in one object ({"A": [...],
"A": [...]} loses the first list of questions without a word) and meets a file of
100,000 `[` with a RecursionError. Here both are refused in one line naming the file: a
repeated key with the line where its object opens, deep nesting as such.
"""

from __future__ import annotations

import json
from json import decoder, scanner
from pathlib import Path
from typing import Any

from workbench.errors import JsonInputError  # noqa: F401  (raised here; the family is workbench.errors)


class _Repeated(Exception):
    """A key given twice in one object; `opens`: where that object opens, when known."""

    def __init__(self, key: str, opens: int | None = None) -> None:
        super().__init__(key)
        self.key, self.opens = key, opens


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise _Repeated(key)
        seen.add(key)
    return dict(pairs)


def _opening_of_repeat(text: str) -> int | None:
    """The offset of the first object (in the order `json` completes them) that repeats a key.
    Only read when there is one: the pure-Python scanner is what tells an object's offset."""

    def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook, memo=None):
        pairs, end = decoder.JSONObject(s_and_end, strict, scan_once, None, list, memo)
        if len({key for key, _value in pairs}) < len(pairs):
            raise _Repeated("", s_and_end[1] - 1)
        return dict(pairs), end

    locator = json.JSONDecoder()
    locator.parse_object = parse_object  # type: ignore[attr-defined]
    locator.scan_once = scanner.py_make_scanner(locator)
    try:
        locator.decode(text)
    except _Repeated as found:
        return found.opens
    except (ValueError, RecursionError):
        pass
    return None


def parse_json(text: str, path: Path | str) -> Any:
    """The value `text` (the file at `path`) holds; JsonInputError naming the file for a key
    repeated in one object, nesting deeper than Python can follow, or text that is not JSON."""
    try:
        return json.loads(text, object_pairs_hook=_once)
    except _Repeated as repeated:
        opens = _opening_of_repeat(text)
        where = f" in the object that opens on line {text.count(chr(10), 0, opens) + 1}" if opens is not None else ""
        raise JsonInputError(
            f"{path}: key {repeated.key!r} is given twice{where}; the first value would be lost: give each key once"
        ) from None
    except RecursionError:
        raise JsonInputError(f"{path}: nested too deeply to read (lists or objects inside each other)") from None
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"{path}: not valid JSON: {exc}") from None


def load_json(path: Path | str) -> Any:
    """The JSON file at `path`, UTF-8 (a BOM allowed), read as `parse_json` reads text."""
    try:
        text = Path(path).read_text("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonInputError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except OSError as exc:
        raise JsonInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse_json(text, path)
