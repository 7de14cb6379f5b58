"""Making whatever a server sent storable, without losing the answer.

SQLite rejects some Python values outright (a lone surrogate such as "\\ud800"
cannot be encoded as UTF-8; an integer beyond 64 bits overflows) and others
would poison later arithmetic (a token count that is a list). A reply is the
user's paid-for data, so it is kept: text with unencodable characters replaced
(and the number replaced recorded), numbers that are not plausible stored as NULL.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

SQLITE_MAX_INT = 2**63 - 1
_SURROGATE = re.compile(r"[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(text: Any) -> tuple[str, int]:
    """The text as storable UTF-8, and how many characters had to be replaced."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    cleaned, replaced = _SURROGATE.subn(REPLACEMENT, text)
    # Anything else Python cannot encode (there is nothing else today) still may not stop a run.
    cleaned = cleaned.encode("utf-8", "replace").decode("utf-8")
    return cleaned, replaced


def clean_count(value: Any) -> int | None:
    """A non-negative integer SQLite can hold (a token count), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= SQLITE_MAX_INT:
        return value
    return None


def clean_float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def clean_label(value: Any, limit: int = 64) -> str | None:
    """A short label (a finish reason): strings as they are, anything else as
    compact JSON, both cut to `limit` characters."""
    if value is None:
        return None
    if not isinstance(value, str):
        try:
            value = json.dumps(value, separators=(",", ":"), default=repr)
        except (ValueError, TypeError, RecursionError):
            value = repr(value)
    value = clean_text(value)[0]
    return value if len(value) <= limit else value[: limit - 1] + "…"


def clean_int(value: Any) -> int | None:
    """Any integer SQLite can hold (a seed may be negative), else None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if -SQLITE_MAX_INT - 1 <= value <= SQLITE_MAX_INT else None


# An echoed header or JSON field: `Bearer <token>`, `Authorization: <token>`, `"api_key": "<token>"`.
_FIELD = re.compile(
    r"""(?i)((?:\bbearer\s+)|(?:\b(?:authorization|x-api-key|api[-_]?key)["']?\s*[:=]\s*["']?"""
    r"""(?:(?:bearer|basic|token)\s+)?))"""
    r"""(?!\[redacted\]|(?:bearer|basic|token)\s)[^\s"',;]+"""
)

# A key shorter than this is a placeholder, not a secret: vLLM's customary `EMPTY`, `none`,
# `token-abc123`; providers issue keys of 32 characters and more. Looked for in answers, a
# short key rewrites the words that contain or equal it (the key `Bala` made "New Balance"
# "New [redacted]nce"), so only a key this long is looked for.
MIN_SECRET_CHARS = 16


def secret_pattern(secret: str) -> re.Pattern[str] | None:
    """The key as a whole token (no letter or digit right before or after it), None for a key
    too short to be secret. Inside a word it is some other word, and kept."""
    if len(secret) < MIN_SECRET_CHARS:
        return None
    return re.compile(r"(?<![^\W_])" + re.escape(secret) + r"(?![^\W_])")


def without_secret(text: str, pattern: re.Pattern[str] | None) -> tuple[str, int]:
    """`text` with each whole-token occurrence of the key (`secret_pattern`) replaced by
    [redacted], and how many there were."""
    if pattern is None:
        return text, 0
    return pattern.subn("[redacted]", text)


def redact(text: str, secret: str = "") -> str:
    """An error message without the key (as a whole token) and without the value of any
    header or JSON field that carries a key (`Bearer <token>`, `Authorization: ...`,
    `api_key=...`): a proxy may echo them in an error body, which would otherwise be stored,
    printed and exported. A field's value goes whatever its length."""
    text = without_secret(text, secret_pattern(secret))[0]
    return _FIELD.sub(r"\1[redacted]", text)
