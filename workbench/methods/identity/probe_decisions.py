"""Identity's probe labels as decisions: the rows `export --what decisions` writes for them, and
making one again in another store (`workbench import decisions`), found by its prompt's request
key (derived from what was asked: the same in every run of the study). A label taken back in
the other store is not made again; one already here is not recorded twice, nor made again once
taken back here; a prompt this store lacks refuses the file, naming the line."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from workbench.errors import InputError
from workbench.methods.identity.probe_reviews import LABELS
from workbench.store.decisions.portable import here_state
from workbench.store.review.reviewer_names import clean_reviewer


class ProbeLabels:
    """The decision kind "probe label" (the method base's `decision_kinds`)."""

    kind = "probe label"

    def records(self, conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
        return _probe_labels(conn)

    def replay(
        self, conn: sqlite3.Connection, where: str, record: dict[str, Any], study_id: Callable[[], int], refused: list
    ) -> str:
        return replay_probe(conn, where, record)


def _probe_labels(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    from workbench.store.requests.studies import study_names_by_id

    names = study_names_by_id(conn)
    for row in conn.execute(
        "SELECT p.*, o.study_id FROM probe_reviews p JOIN identity_outputs o ON o.request_key = p.request_key "
        "ORDER BY p.id"
    ):
        if row["study_id"] not in names:
            continue
        yield {
            "kind": "probe label",
            "id": row["id"],
            "action": "label",
            "summary": f"{row['previous_label']} -> {row['label']}",
            "who": row["reviewer"],
            "at": row["at"],
            "why": None,
            "study": names[row["study_id"]],
            "scope": row["request_key"],
            "before": row["previous_label"],
            "after": row["label"],
            "state": "undone" if row["undone"] else "active",
        }


def replay_probe(conn: sqlite3.Connection, where: str, record: dict[str, Any]) -> str:
    """One identity probe label, on the probe answer of the same prompt."""
    if record.get("state") != "active":
        return "undone"
    who = clean_reviewer(str(record.get("who") or ""), source=where)
    key = record.get("scope")
    if record.get("after") not in LABELS:
        raise InputError(f"{where}: a probe label is one of {', '.join(LABELS)}, not {record.get('after')!r}")
    row = conn.execute(
        "SELECT probe_label, probe_label_source FROM identity_outputs WHERE request_key = ?", (key,)
    ).fetchone()
    if row is None:
        raise InputError(f"{where}: no probe answer of prompt {key!r} here (run the same study first)")
    here = conn.execute(
        "SELECT MIN(undone) FROM probe_reviews WHERE request_key = ? AND reviewer = ? AND at = ?",
        (key, who, record.get("at")),
    ).fetchone()[0]
    if here is not None:
        return here_state(here)
    conn.execute(
        "INSERT INTO probe_reviews (request_key, reviewer, label, previous_label, previous_source, at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (key, who, record.get("after"), row[0], row[1], record.get("at")),
    )
    conn.execute(
        "UPDATE identity_outputs SET probe_label = ?, probe_label_source = 'human' WHERE request_key = ?",
        (record.get("after"), key),
    )
    return "correction"
