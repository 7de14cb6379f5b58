"""Deterministic request keys: the hash of everything that determines an answer.

Two requests with the same key would get the same answer (up to the model's own
sampling under the same seed), so the queue stores one and re-running a study
never asks it twice. Transport settings (timeouts, concurrency, API keys) are
deliberately absent.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

KEY_VERSION = 1


def request_key(*, stage: str, model_identity: str, payload: dict[str, Any], repetition: int | None) -> str:
    material = {
        "v": KEY_VERSION,
        "stage": stage,
        "model": model_identity,
        "payload": payload,
        "repetition": repetition,
    }
    blob = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]
