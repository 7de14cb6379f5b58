"""How an OpenAI-compatible server's error replies read: which statuses a retry may help,
which refuse the model itself (so its endpoint is down for it), Retry-After, and the
server's own message, shortened to a line."""

from __future__ import annotations

import email.utils
import json
import math
import re
import time

from workbench.errors import Refusal  # noqa: F401  (raised here; the family is workbench.errors)

# Statuses worth retrying: the server is busy, restarting or timed out.
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
# Statuses with which a server refuses the model itself (not this one request): no such
# model (404), no access (401, 403). A 400 counts when it names the model as unknown.
REFUSING_STATUS = {401, 403, 404}
_UNKNOWN_MODEL = re.compile(
    r"not found|does not exist|doesn't exist|unknown|no such|not available|not served|not loaded|invalid model",
    re.IGNORECASE,
)


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After is either delta-seconds or an HTTP date (any other text: None)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            seconds = when.timestamp() - time.time()
        except (TypeError, ValueError, OverflowError):
            return None
    if math.isnan(seconds):
        return None
    return max(0.0, seconds)


def duration(seconds: float) -> str:
    if math.isinf(seconds) or seconds > 10 * 365 * 86400:
        return "forever"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds:.0f} s"


def short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def server_message(raw: str) -> str:
    """What an error reply says: its `error.message` (OpenAI, vLLM), `message` or `detail`
    when it is JSON, else its text."""
    try:
        reply = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past what Python follows
        return raw
    if isinstance(reply, dict):
        error = reply.get("error")
        for said in (
            error.get("message") if isinstance(error, dict) else error,
            reply.get("message"),
            reply.get("detail"),
        ):
            if isinstance(said, str) and said.strip():
                return said
    return raw


def refusal(status: int, message: str, model: str) -> bool:
    """Whether a reply refuses the model on that server (so no request of it can succeed
    there), rather than one request: 401/403/404, or a 400 naming the model as unknown."""
    if status in REFUSING_STATUS:
        return True
    named = re.search(rf"(?<![\w.-]){re.escape(model)}(?![\w.-])", message) if model else None
    return status == 400 and named is not None and _UNKNOWN_MODEL.search(message) is not None
