"""Reading the answers and the numbers: the share choosing A, and the position bias."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from workbench import plugin

# The method's own table: a migration the store applies when it opens (Method.migrations).
MIGRATIONS = (
    (
        "choices",
        "CREATE TABLE pairwise_choices (request_key TEXT PRIMARY KEY, study_id INTEGER, model TEXT, "
        "topic TEXT, shown_first TEXT, chose TEXT)",
    ),
)


@dataclass(frozen=True, kw_only=True)
class PairwiseNumber:
    """One number of a model on one pair topic. Its fields are the keys of its flat record, in
    order; the interval is the core's (`plugin.Interval`: ci_low, ci_high, ci_level, n_boot,
    ci_unit, ci_na_reason), so a key the core adds needs no edit here."""

    convention: str = "paper"  # the one it follows (the core names the one asked)
    study: str
    model: str
    topic: str
    metric: str
    value: float | None
    n: int
    na_reason: str | plugin.Unset = plugin.UNSET  # why value is None
    interval: plugin.Interval | None = plugin.nested(default=None)  # none for the parse rate


def chosen(text: str | None, a: str, b: str) -> str | None:
    """ "A" or "B" when the answer names exactly one of the two, else None (not parsed)."""
    words = (text or "").casefold()
    said = [label for label, name in (("A", a), ("B", b)) if name.casefold() in words]
    return said[0] if len(said) == 1 else None


def store_choices(conn: sqlite3.Connection, study_id: int, model_id: int, label: str) -> None:
    with conn:  # the shared tables through the plugin API; its own table here
        for key, payload_json, text in plugin.answered(conn, study_id, model_id, "answer"):
            meta = json.loads(payload_json)["meta"]
            first = "A" if meta["order"] == "AB" else "B"
            choice = chosen(text, meta["option_a"], meta["option_b"])
            conn.execute(
                "INSERT OR REPLACE INTO pairwise_choices VALUES (?, ?, ?, ?, ?, ?)",
                (key, study_id, label, meta["topic"], first, choice),
            )


def metric_records(conn: sqlite3.Connection, study: str | None) -> list[PairwiseNumber]:
    """Per study, model and topic: share_a (answers choosing A), position_bias (the share
    choosing the option shown first, less one half) and parse_rate, each with its n; the two
    shares with their interval over the answers (Clopper-Pearson's: `plugin.proportion_interval`)."""
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
        records.append(PairwiseNumber(**base, metric="parse_rate", value=len(parsed) / len(given), n=len(given)))
        if not parsed:
            reason = "no answer named exactly one of the two"
            for metric in ("share_a", "position_bias"):
                empty = plugin.Interval(None, None, unit="answer", na_reason="0 answers")
                records.append(PairwiseNumber(**base, metric=metric, value=None, n=0, na_reason=reason, interval=empty))
            continue
        chose_a = sum(choice == "A" for _, choice in parsed)
        chose_first = sum(choice == shown for shown, choice in parsed)
        share_a = plugin.proportion_interval(chose_a, len(parsed))
        first = plugin.proportion_interval(chose_first, len(parsed))
        bias = plugin.Interval(
            *(None if end is None else end - 0.5 for end in (first.low, first.high)), unit="answer",
            na_reason=first.na_reason,
        )  # fmt: skip
        n = len(parsed)
        records.append(PairwiseNumber(**base, metric="share_a", value=chose_a / n, n=n, interval=share_a))
        records.append(PairwiseNumber(**base, metric="position_bias", value=chose_first / n - 0.5, n=n, interval=bias))
    return records
