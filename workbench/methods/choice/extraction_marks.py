"""What extraction made a machine list: the settings that determine it, kept with the list as
a digest (`mention_lists.extracted_with`; the settings once per digest in `extraction_settings`).

A run extracts again every list whose digest is not the study file's (a name added to the
gazetteer file, k, fuzzy, the method, the experts or their model), so the lists are what a
fresh run of the edited file extracts, and the run says how many and why. Reviewers' verdicts
are kept by what they judge and re-applied to the new lists (store/review/verdicts.py, `settle_lists`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from workbench.methods.choice.study import Extraction
from workbench.store.db import transaction

# How a changed setting is named in the run's output.
NAMES = {
    "entities": "the gazetteer file",
    "model": "the extraction model",
    "min_votes": "min_votes",
    "max_tokens": "max_tokens",
    "rules": "the gazetteer's matching rules",
}
# The gazetteer's rules, counted up when what they find changes (2: common words at a sentence's
# start, near spellings that are common words, plurals; workbench/methods/choice/gazetteer_words.py), so lists
# made under earlier rules are extracted again, and the run says why.
RULES = 2
SHOWN = ("k", "fuzzy", "experts", "temperature", "max_tokens", "output", "min_votes", "grounding")


def default_min_votes(experts: int) -> int:
    """A simple majority: more than half of the experts (2 of 3, 3 of 5)."""
    return experts // 2 + 1


def file_digest(path: str | None) -> str:
    return hashlib.sha256(Path(path or "").read_bytes()).hexdigest()[:16]


def made_with(settings: Extraction, extractor: str | None = None) -> dict:
    """The settings that determine an answer's list under `settings` (`extractor`: the identity
    of the model the experts run on)."""
    if settings.method == "list":
        return {"method": "list", "k": settings.k}
    if settings.method == "gazetteer":
        return {
            "method": "gazetteer",
            "k": settings.k,
            "fuzzy": settings.fuzzy,
            "entities": file_digest(settings.entities),
            "rules": RULES,
        }
    return {
        "method": "experts",
        "k": settings.k,
        "experts": settings.experts,
        "model": extractor,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "output": settings.output,
        "min_votes": settings.min_votes or default_min_votes(settings.experts),
        "grounding": settings.grounding,
    }


def record(conn: sqlite3.Connection, made: dict) -> str:
    """The digest of `made`, its settings kept under it."""
    text = json.dumps(made, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    with transaction(conn):
        conn.execute("INSERT OR IGNORE INTO extraction_settings (digest, settings_json) VALUES (?, ?)", (digest, text))
    return digest


def changes(before: dict | None, now: dict) -> list[str]:
    """What differs between the settings a list was made with and the file's, in words."""
    if before is None:
        return ["made before extraction settings were recorded"]
    if before.get("method") != now["method"]:
        return [f"method changed from {before.get('method')} to {now['method']}"]
    said = []
    for key in now:
        if key == "method" or before.get(key) == now[key]:
            continue
        name = NAMES.get(key, key)
        shown = f" from {before.get(key)} to {now[key]}" if key in SHOWN else ""
        said.append(f"{name} changed{shown}")
    return said


def why_again(conn: sqlite3.Connection, now: dict, previous: Iterable[str | None]) -> str:
    """Why lists made with the `previous` digests are extracted again under `now`."""
    kept = dict(conn.execute("SELECT digest, settings_json FROM extraction_settings"))
    said: list[str] = []
    for digest in dict.fromkeys(previous):
        before = json.loads(kept[digest]) if digest in kept else None
        said += [why for why in changes(before, now) if why not in said]
    return ", ".join(said)
