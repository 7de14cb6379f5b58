"""Reading the answers and the numbers: the share choosing A, and the position bias."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any

from workbench.store import answers

# The method's own table: a migration the store applies when it opens (MethodBase.migrations).
MIGRATIONS = (
    (
        "choices",
        "CREATE TABLE pairwise_choices (request_key TEXT PRIMARY KEY, study_id INTEGER, model TEXT, "
        "topic TEXT, shown_first TEXT, chose TEXT)",
    ),
)


def chosen(text: str | None, a: str, b: str) -> str | None:
    """ "A" or "B" when the answer names exactly one of the two, else None (not parsed)."""
    words = (text or "").casefold()
    said = [label for label, name in (("A", a), ("B", b)) if name.casefold() in words]
    return said[0] if len(said) == 1 else None


def store_choices(conn: sqlite3.Connection, study_id: int, model_id: int, label: str) -> None:
    with conn:  # the shared tables through the store; its own table here
        for key, payload_json, text in answers.answered(conn, study_id, model_id, "answer"):
            meta = json.loads(payload_json)["meta"]
            first = "A" if meta["order"] == "AB" else "B"
            choice = chosen(text, meta["option_a"], meta["option_b"])
            conn.execute(
                "INSERT OR REPLACE INTO pairwise_choices VALUES (?, ?, ?, ?, ?, ?)",
                (key, study_id, label, meta["topic"], first, choice),
            )


def metric_records(conn: sqlite3.Connection, study: str | None) -> list[dict[str, Any]]:
    """Per study, model and topic: share_a (answers choosing A), position_bias (the share
    choosing the option shown first, less one half) and parse_rate, each with its n."""
    cells: dict[tuple, list[tuple[str, str | None]]] = defaultdict(list)
    for name, model, topic, first, choice in conn.execute(
        "SELECT s.name, c.model, c.topic, c.shown_first, c.chose FROM pairwise_choices c "
        "JOIN studies s ON s.id = c.study_id WHERE s.name = COALESCE(?, s.name) ORDER BY s.name, c.model, c.topic",
        (study,),
    ):
        cells[(name, model, topic)].append((first, choice))
    records = []
    for (name, model, topic), given in cells.items():
        parsed = [(first, choice) for first, choice in given if choice is not None]
        base = {"study": name, "model": model, "topic": topic}
        records.append({**base, "metric": "parse_rate", "value": len(parsed) / len(given), "n": len(given)})
        if not parsed:
            reason = "no answer named exactly one of the two"
            for metric in ("share_a", "position_bias"):
                records.append({**base, "metric": metric, "value": None, "n": 0, "na_reason": reason})
            continue
        share_a = sum(choice == "A" for _, choice in parsed) / len(parsed)
        first = sum(choice == shown for shown, choice in parsed) / len(parsed)
        records.append({**base, "metric": "share_a", "value": share_a, "n": len(parsed)})
        records.append({**base, "metric": "position_bias", "value": first - 0.5, "n": len(parsed)})
    return records
