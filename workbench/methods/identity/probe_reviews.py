"""Human review of transparency-probe labels (identity studies).

Each probe answer carries a rule label, maybe an LLM judge's label, and the label the
metrics use (`identity_outputs.probe_label`). A reviewer's label wins over both; it is
recorded with who and when, and undoing it restores whatever label is then next in line
(an earlier human label, else the judge's, else the rules').
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from workbench.store.current_lists import counts_now
from workbench.store.db import transaction
from workbench.store.errors import InputError
from workbench.store.review.reviewer_names import placeholders, spellings_of
from workbench.store.review.validation import cohen_kappa

LABELS = ("admits", "denies", "unclear")
FILTERS = ("unreviewed", "disagreements", "all")
ITEM_FIELDS = ["request_key", "model", "group", "condition", "rule_label", "judge_label", "label", "source", "reviewer"]


def effective(human: str | None, judge: str | None, rule: str | None) -> tuple[str | None, str | None]:
    """The label the metrics use, and where it comes from: a reviewer, else the judge, else the rules."""
    for label, source in ((human, "human"), (judge, "judge"), (rule, "rules")):
        if label:
            return label, source
    return None, None


def _effective(conn: sqlite3.Connection, request_key: str) -> tuple[str | None, str | None]:
    human = conn.execute(
        "SELECT label FROM probe_reviews WHERE request_key = ? AND undone = 0 ORDER BY id DESC LIMIT 1", (request_key,)
    ).fetchone()
    rule, judge = conn.execute(
        "SELECT probe_rule_label, probe_judge_label FROM identity_outputs WHERE request_key = ?", (request_key,)
    ).fetchone()
    return effective(human[0] if human else None, judge, rule)


def resolve_key(conn: sqlite3.Connection, prefix: str) -> str:
    """The full request key of an identity output from a unique prefix (as the CLI prints them)."""
    keys = [
        r[0]
        for r in conn.execute(
            "SELECT request_key FROM identity_outputs WHERE request_key LIKE ? LIMIT 2",
            (prefix.replace("%", "").replace("_", "") + "%",),
        )
    ]
    if len(keys) != 1:
        raise InputError(
            f"no identity output with request key {prefix!r}"
            if not keys
            else f"request key prefix {prefix!r} is ambiguous: give more characters"
        )
    return keys[0]


def label(conn: sqlite3.Connection, request_key: str, reviewer: str, value: str) -> None:
    """Record a reviewer's label for the probe answer of the prompt `request_key`."""
    if value not in LABELS:
        raise InputError(f"label must be one of {', '.join(LABELS)}, not {value!r}")
    request_key = resolve_key(conn, request_key)
    row = conn.execute(
        "SELECT probe_label, probe_label_source FROM identity_outputs WHERE request_key = ?", (request_key,)
    ).fetchone()
    with transaction(conn):
        conn.execute(
            "INSERT INTO probe_reviews (request_key, reviewer, label, previous_label, previous_source, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (request_key, reviewer, value, row[0], row[1], datetime.now(UTC).isoformat(timespec="seconds")),
        )
        conn.execute(
            "UPDATE identity_outputs SET probe_label = ?, probe_label_source = 'human' WHERE request_key = ?",
            (value, request_key),
        )


def undo(conn: sqlite3.Connection, reviewer: str) -> dict[str, Any] | None:
    """Take back the reviewer's latest label; returns it (None when there is nothing to undo)."""
    names = spellings_of(conn, "probe_reviews", "reviewer", reviewer)  # one person, however written
    row = conn.execute(
        f"SELECT id, request_key, label FROM probe_reviews WHERE reviewer IN ({placeholders(names)}) "
        "AND undone = 0 ORDER BY id DESC LIMIT 1",
        names,
    ).fetchone()
    if row is None:
        return None
    with transaction(conn):
        conn.execute("UPDATE probe_reviews SET undone = 1 WHERE id = ?", (row[0],))
        restored, source = _effective(conn, row[1])
        conn.execute(
            "UPDATE identity_outputs SET probe_label = ?, probe_label_source = ? WHERE request_key = ?",
            (restored, source, row[1]),
        )
    return {"request_key": row[1], "label": row[2], "restored": restored, "source": source}


def items(conn: sqlite3.Connection, only: str = "all", study: str | None = None) -> list[dict[str, Any]]:
    """Probe answers to review: `unreviewed`, `disagreements` (rules and judge differ) or `all`."""
    where = ["o.probe_rule_label IS NOT NULL", counts_now("o", "request_key")]  # a superseded answer's: not offered
    if only == "unreviewed":
        where.append("o.probe_label_source != 'human'")
    elif only == "disagreements":
        where.append("o.probe_judge_label IS NOT NULL AND o.probe_judge_label != o.probe_rule_label")
    args: list[Any] = []
    if study is not None:
        from workbench.store.requests.studies import study_id

        where.append("o.study_id = ?")
        args.append(study_id(conn, study))  # None for a study not here: nothing to review
    rows = conn.execute(
        "SELECT o.request_key, o.model, o.grp AS 'group', o.condition, o.probe_rule_label AS rule_label, "
        "o.probe_judge_label AS judge_label, o.probe_label AS label, o.probe_label_source AS source, "
        "(SELECT reviewer FROM probe_reviews v WHERE v.request_key = o.request_key AND v.undone = 0 "
        " ORDER BY v.id DESC LIMIT 1) AS reviewer "
        f"FROM identity_outputs o WHERE {' AND '.join(where)} ORDER BY o.rowid",
        args,
    ).fetchall()
    return [dict(r) for r in rows]


def detail(conn: sqlite3.Connection, request_key: str) -> dict[str, str]:
    """The conversation behind one probe label: prompt, answer, probe question and answer."""
    import json

    from workbench.store.requests.answer_texts import answer_texts
    from workbench.store.requests.answers import follow_ups, payloads

    answered = [row for row in follow_ups(conn, request_key, "probe") if row["text"] is not None]
    probe_key = answered[0]["key"] if answered else None
    asked = payloads(conn, [request_key, *([probe_key] if probe_key else [])])
    return {
        "prompt": json.loads(asked[request_key])["messages"][-1]["content"],
        "answer": answer_texts(conn, [request_key])[request_key],
        "probe": json.loads(asked[probe_key])["messages"][-1]["content"] if probe_key else "",
        "probe_answer": answered[0]["text"] if answered else "",
    }


def agreement(conn: sqlite3.Connection, study: str | None = None) -> dict[str, Any]:
    """How often the rules and the judge agree with the human labels (and Cohen's kappa)."""
    reviewed = [i for i in items(conn, "all", study) if i["source"] == "human"]
    result: dict[str, Any] = {"human_labels": len(reviewed)}
    for machine in ("rule_label", "judge_label"):
        pairs = [(i[machine], i["label"]) for i in reviewed if i[machine]]
        name = machine.removesuffix("_label")
        result[name] = {
            "n": len(pairs),
            "agree": sum(a == b for a, b in pairs),
            "kappa": cohen_kappa([a for a, _ in pairs], [b for _, b in pairs]),
        }
    return result
