"""Two reviewers as a validation: a seeded sample, agreement on the final lists, Cohen's kappa.

The second reviewer works blind on the sample (store.reviews); here the two reviewers'
standing verdicts are compared list by list: an accept's list is the one accepted, an
edit's the one typed, a rejection's the empty list, each name read as the entity it
resolves to. Each final list is one category for kappa.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.reviews import final_key, review_items


def cohen_kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa of two reviewers' labels on the same items (None when undefined)."""
    if len(first) != len(second) or not first:
        return None
    labels = sorted(set(first) | set(second))
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    expected = sum((first.count(label) / n) * (second.count(label) / n) for label in labels)
    if expected == 1:
        return None if observed != 1 else 1.0
    return (observed - expected) / (1 - expected)


def sample_list_ids(conn: sqlite3.Connection, study: str, per_topic: int = 15, seed: int = 1) -> list[int]:
    """A seeded random validation sample: `per_topic` questions of each topic, with all
    their lists (every model and repetition). The same arguments give the same sample."""
    import random

    rng = random.Random(seed)
    rows = conn.execute(
        "SELECT l.id, l.topic, l.question FROM mention_lists l JOIN studies s ON s.id = l.study_id "
        "WHERE s.name = ? ORDER BY l.id",
        (study,),
    ).fetchall()
    by_topic: dict[str, list[str]] = {}
    for _id, topic, question in rows:
        questions = by_topic.setdefault(topic, [])
        if question not in questions:
            questions.append(question)
    chosen = {(topic, q) for topic, qs in sorted(by_topic.items()) for q in rng.sample(qs, min(per_topic, len(qs)))}
    return [list_id for list_id, topic, question in rows if (topic, question) in chosen]


def validation_sample(conn, per_topic: int, seed: int) -> list[int]:
    """The seeded validation sample of every study (the same one for every reviewer)."""
    return [
        i
        for (study,) in conn.execute("SELECT name FROM studies")
        for i in sample_list_ids(conn, study, per_topic, seed)
    ]


def agreement(conn: sqlite3.Connection, list_ids: list[int], first: str, second: str) -> dict[str, Any]:
    """Agreement of two reviewers on the lists both reviewed: their final lists compared
    (an accept's list is the one the reviewer accepted), each list a category for kappa."""
    finals: dict[str, dict[int, tuple]] = {first: {}, second: {}}
    for item in review_items(conn, list_ids=list_ids):
        for who in (first, second):
            verdict = item["verdicts"].get(who)
            if verdict is not None:
                finals[who][item["id"]] = final_key(conn, verdict["list"])
    both = [i for i in list_ids if i in finals[first] and i in finals[second]]
    labels_a = [json.dumps(finals[first][i]) for i in both]
    labels_b = [json.dumps(finals[second][i]) for i in both]
    rate = sum(x == y for x, y in zip(labels_a, labels_b)) / len(both) if both else None
    return {
        "items": len(list_ids),
        "both_reviewed": len(both),
        "same_list": sum(x == y for x, y in zip(labels_a, labels_b)),
        "agreement": rate,
        "kappa": cohen_kappa(labels_a, labels_b),
    }
