"""Two reviewers as a validation: a stable seeded sample, agreement on the final lists, Cohen's kappa.

The second reviewer works blind on the sample (store.reviews); here the two reviewers'
standing verdicts are compared list by list: an accept's list is the one accepted, an
edit's the one typed, a rejection's the empty list, each name read as the entity it
resolves to. Each final list is one category for kappa. Only the two validators are
compared: an adjudication (a third reviewer settling their disagreement) is never a
validation of the adjudicator's.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from workbench.store.current_lists import counts_now
from workbench.store.db import tuples
from workbench.store.errors import InputError
from workbench.store.review.base import final_key
from workbench.store.review.reads import review_items
from workbench.store.review.reviewer_names import among, reviewer_key


def cohen_kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa of two reviewers' labels on the same items (None when undefined, and on a
    single item: its chance agreement is 1 or 0, so its kappa is undefined or 0 whatever the
    reviewers do, a number that says nothing)."""
    if len(first) != len(second) or len(first) < 2:
        return None
    labels = sorted(set(first) | set(second))
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    expected = sum((first.count(label) / n) * (second.count(label) / n) for label in labels)
    if expected == 1:
        return None if observed != 1 else 1.0
    return (observed - expected) / (1 - expected)


SAMPLE_RATE, SAMPLE_SEED = 0.25, 1


def in_sample(study: str, topic: str, question: str, rate: float = SAMPLE_RATE, seed: int = SAMPLE_SEED) -> bool:
    """Whether a question is in the validation sample: a digest of the seed and the question's
    stable keys (study, topic, question), read as a number in [0, 1), is below `rate`. Every
    model's and repetition's list of the question is in with it. Nothing else decides it, so a
    question in the sample stays in it whatever the study gains or loses."""
    text = "\x1f".join((str(seed), study, topic, question))
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64 < rate


def sample_list_ids(
    conn: sqlite3.Connection, study: str, rate: float = SAMPLE_RATE, seed: int = SAMPLE_SEED
) -> list[int]:
    """The validation sample of a study: the lists that count now (never a superseded one)
    of the questions `in_sample`. The same keys and seed give the same sample in any store."""
    rows = tuples(  # plain tuples: the Review screen's blind filter reads them on every change elsewhere
        conn,
        f"SELECT l.id, l.topic, l.question FROM mention_lists l JOIN studies s ON s.id = l.study_id "
        f"WHERE s.name = ? AND {counts_now('l')} ORDER BY l.id",
        (study,),
    )
    chosen = {key: in_sample(study, *key, rate, seed) for key in {(topic, question) for _, topic, question in rows}}
    return [list_id for list_id, topic, question in rows if chosen[(topic, question)]]


def validation_sample(conn, rate: float = SAMPLE_RATE, seed: int = SAMPLE_SEED) -> list[int]:
    """The validation sample of every study (the same one for every reviewer)."""
    if not 0 < rate <= 1:
        raise InputError(f"a sample rate is a share of the questions, above 0 and at most 1 (got {rate})")
    return [
        i
        for (study,) in conn.execute("SELECT name FROM studies ORDER BY id")
        for i in sample_list_ids(conn, study, rate, seed)
    ]


def agreement(conn: sqlite3.Connection, list_ids: list[int], first: str, second: str) -> dict[str, Any]:
    """Agreement of two reviewers on the lists both validated: their final lists compared (an
    accept's list is the one the reviewer accepted), each list a category for kappa; a
    reviewer's adjudications are not validations and are left out."""
    finals: dict[str, dict[int, tuple]] = {first: {}, second: {}}
    for item in review_items(conn, list_ids=list_ids):
        for who in (first, second):  # a person, however their verdicts spell the name
            name = among(who, item["verdicts"])
            if name is not None and among(who, item["adjudicators"]) is None:
                finals[who][item["id"]] = final_key(conn, item["verdicts"][name]["list"])
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


def sample_agreements(conn: sqlite3.Connection, reviewer: str | None = None) -> list[tuple[str, str, dict[str, Any]]]:
    """The validation sample's agreement for the Review screen, as (first, second, `agreement`):
    `reviewer` with each other reviewer who validated some of it, or, when `reviewer` validated
    none, the two who validated most. Empty (read nothing more) while fewer than two people
    have verdicts at all."""
    people = {reviewer_key(who) for (who,) in conn.execute("SELECT DISTINCT reviewer FROM verdicts WHERE undone = 0")}
    if len(people) < 2:
        return []
    ids = validation_sample(conn)
    done: dict[str, int] = {}
    for item in review_items(conn, list_ids=ids):
        for who in item["verdicts"]:
            if among(who, item["adjudicators"]) is None:  # an adjudication validates nothing
                done[who] = done.get(who, 0) + 1
    ranked = sorted(done, key=lambda who: (-done[who], who))
    me = among(reviewer, ranked) if reviewer else None
    pairs = [(me, other) for other in ranked if other != me] if me else [tuple(ranked[:2])] if len(ranked) > 1 else []
    return [(a, b, agreement(conn, ids, a, b)) for a, b in pairs]
