"""Human review of extracted lists: accept, edit or reject, one response at a time, undoable.

An edit or a rejection replaces the response's ranked list (a rejection means the
answer recommends nothing), so metrics follow at once; the list as it was is kept
with the verdict, so undo restores it exactly.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.db import utc_now
from workbench.store.errors import InputError
from workbench.store.mentions import ensure_entities
from workbench.store.queue import transaction


def _current_list(conn: sqlite3.Connection, list_id: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT surface FROM mentions WHERE list_id = ? ORDER BY rank", (list_id,))]


def _replace_list(conn: sqlite3.Connection, list_id: int, surfaces: list[str]) -> None:
    from workbench.store.surface import normalize_surface

    rows = [(s, normalize_surface(s)) for s in surfaces if normalize_surface(s)]
    ensure_entities(conn, rows)
    conn.execute("DELETE FROM mentions WHERE list_id = ?", (list_id,))
    conn.executemany(
        "INSERT INTO mentions (list_id, rank, surface, surface_key, votes) VALUES (?, ?, ?, ?, NULL)",
        [(list_id, rank, s, k) for rank, (s, k) in enumerate(rows, start=1)],
    )
    # Mentions are inserted without a trigger (imports write millions); touching the list
    # moves the change counter for an edit of a list that had no mentions before.
    conn.execute("UPDATE mention_lists SET id = id WHERE id = ?", (list_id,))


def review(
    conn: sqlite3.Connection,
    list_id: int,
    reviewer: str,
    decision: str,
    entities: list[str] | None = None,
    sample: str | None = None,
) -> int:
    """Record a verdict; `entities` is the corrected list for an edit."""
    if decision not in ("accept", "edit", "reject"):
        raise InputError(f"unknown decision {decision!r}")
    with transaction(conn):
        before = _current_list(conn, list_id)
        after = (
            before
            if decision == "accept"
            else ([] if decision == "reject" else list(dict.fromkeys(e.strip() for e in entities or [] if e.strip())))
        )
        if after != before:
            _replace_list(conn, list_id, after)
        return conn.execute(
            "INSERT INTO reviews (list_id, reviewer, decision, before_json, after_json, sample, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (list_id, reviewer, decision, json.dumps(before), json.dumps(after), sample, utc_now()),
        ).lastrowid


def undo_review(conn: sqlite3.Connection, reviewer: str) -> dict[str, Any] | None:
    """Take back this reviewer's latest verdict, restoring the list it replaced."""
    with transaction(conn):
        row = conn.execute(
            "SELECT id, list_id, decision, before_json, after_json FROM reviews "
            "WHERE reviewer = ? AND undone = 0 ORDER BY id DESC LIMIT 1",
            (reviewer,),
        ).fetchone()
        if row is None:
            return None
        if row["before_json"] != row["after_json"]:
            _replace_list(conn, row["list_id"], json.loads(row["before_json"]))
        conn.execute("UPDATE reviews SET undone = 1 WHERE id = ?", (row["id"],))
        return {"id": row["id"], "list_id": row["list_id"], "decision": row["decision"]}


def review_items(
    conn: sqlite3.Connection,
    study: str | None = None,
    only: str = "all",
    topic: str | None = None,
    model: str | None = None,
    list_ids: list[int] | None = None,
) -> list[dict[str, Any]]:
    """What a reviewer reads per response: question, answer, experts' lists, current
    list and latest verdict. `only`: all | unreviewed | disagreements."""
    clauses, args = [], []
    if study:
        clauses.append("l.study_id = (SELECT id FROM studies WHERE name = ?)")
        args.append(study)
    if topic:
        clauses.append("l.topic = ?")
        args.append(topic)
    if model:
        clauses.append("l.model = ?")
        args.append(model)
    if only == "disagreements":
        clauses.append("l.agreement IS NOT NULL AND l.agreement < 1")
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    rows = conn.execute(
        f"""
        SELECT l.id, l.model, l.topic, l.cluster, l.question, l.repetition, l.source, l.agreement,
               l.response_key,
               (SELECT decision || '|' || reviewer FROM reviews v WHERE v.list_id = l.id AND v.undone = 0
                ORDER BY v.id DESC LIMIT 1) AS verdict
        FROM mention_lists l
        {where} ORDER BY l.id
        """,
        args,
    ).fetchall()
    wanted = set(list_ids) if list_ids is not None else None
    return [
        dict(row)
        for row in rows
        if (wanted is None or row["id"] in wanted) and not (only == "unreviewed" and row["verdict"])
    ]


def review_detail(conn: sqlite3.Connection, item: dict[str, Any]) -> dict[str, Any]:
    """The parts of an item only the response on screen needs: experts' lists, current list."""
    experts = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT entities_json FROM expert_lists WHERE response_key = ? ORDER BY expert", (item["response_key"],)
        )
    ]
    answer = conn.execute("SELECT text FROM responses WHERE request_key = ?", (item["response_key"],)).fetchone()
    return {
        **item,
        "experts": experts,
        "entities": _current_list(conn, item["id"]),
        "answer": answer[0] if answer else None,
    }


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


def agreement(conn: sqlite3.Connection, list_ids: list[int], first: str, second: str) -> dict[str, Any]:
    """Agreement of two reviewers' latest verdicts on the lists both reviewed."""

    def verdicts(reviewer: str) -> dict[int, str]:
        out: dict[int, str] = {}
        for list_id, decision, after in conn.execute(
            "SELECT list_id, decision, after_json FROM reviews WHERE reviewer = ? AND undone = 0 ORDER BY id",
            (reviewer,),
        ):
            # Two edits agree only when they produce the same list.
            out[list_id] = decision if decision != "edit" else "edit:" + after
        return out

    a, b = verdicts(first), verdicts(second)
    both = [i for i in list_ids if i in a and i in b]
    labels_a, labels_b = [a[i] for i in both], [b[i] for i in both]
    rate = sum(x == y for x, y in zip(labels_a, labels_b)) / len(both) if both else None
    return {
        "items": len(list_ids),
        "both_reviewed": len(both),
        "agreement": rate,
        "kappa": cohen_kappa(labels_a, labels_b),
    }


def review_records(conn: sqlite3.Connection):
    """Every verdict with its provenance, for export."""
    for row in conn.execute(
        "SELECT v.id, s.name AS study, l.model, l.topic, l.cluster, l.question, l.repetition, v.reviewer, "
        "v.decision, v.before_json, v.after_json, v.at, v.undone FROM reviews v "
        "JOIN mention_lists l ON l.id = v.list_id JOIN studies s ON s.id = l.study_id ORDER BY v.id"
    ):
        record = dict(row)
        record["state"] = "undone" if record.pop("undone") else "active"
        yield record


REVIEW_FIELDS = [
    "id",
    "study",
    "model",
    "topic",
    "cluster",
    "question",
    "repetition",
    "reviewer",
    "decision",
    "before_json",
    "after_json",
    "at",
    "state",
]


def reviewed_counts(conn) -> tuple[int, int]:
    """(extracted lists, lists with a standing verdict)."""
    row = conn.execute(
        "SELECT COUNT(*), (SELECT COUNT(DISTINCT list_id) FROM reviews WHERE undone = 0) FROM mention_lists"
    ).fetchone()
    return row[0], row[1]


def list_values(conn, column: str) -> list[Any]:
    """The distinct topics or models of the extracted lists (for the filters)."""
    if column not in ("topic", "model"):
        raise InputError(f"no filter on {column!r}")
    return [r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM mention_lists ORDER BY {column}")]


def validation_sample(conn, per_topic: int, seed: int) -> list[int]:
    """The seeded validation sample of every study (the same one for every reviewer)."""
    return [
        i
        for (study,) in conn.execute("SELECT name FROM studies")
        for i in sample_list_ids(conn, study, per_topic, seed)
    ]
