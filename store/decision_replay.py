"""Making the decisions of another store again in this one (`workbench import decisions`):
verdicts (adjudications among them), entity decisions (merges, splits, renames, forbids,
regions) and a method's corrections (store/decision_replay_corrections.py), each with the who, when and why it was made with, so that a fresh run of a reviewed
study reads as the reviewed one did and its report gives the same numbers.

Everything is found by what the decision is about, never by the other store's ids: a verdict
by study, model, topic, question and repetition and the answer it judged (a request key
derived from what was asked, and the SHA-256 of the answer's text); an entity by its name
before the decision (store/decision_portable.py). One transaction: a list, study, entity or
spelling the file names that this store lacks refuses the whole file, naming its line. A
verdict whose answer reads otherwise here is refused alone and said, its line named: the
file keeps it. A decision already here (same kind, person and time) is not recorded again,
so importing twice records nothing new. Undo takes a replayed decision back as one made by hand.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from workbench.store.decision_portable import answer_sha256
from workbench.store.decision_replay_corrections import replay_match, replay_probe
from workbench.store.entity_changes import apply_change
from workbench.store.errors import InputError
from workbench.store.queue import transaction
from workbench.store.review_base import IN_SCOPE, LIST_COLUMNS
from workbench.store.reviewer_names import clean_reviewer
from workbench.store.surface import normalize_surface


class ReplayRefused(InputError):
    """A decisions file that cannot be replayed here; nothing was recorded."""


@dataclass
class Replayed:
    counts: Counter = field(default_factory=Counter)  # verdicts, entity decisions, present, in effect, ...
    refused: list[str] = field(default_factory=list)  # one line per verdict refused alone
    # How often the file has named one decision (same kind, place, person and millisecond) so far:
    # the n-th is here when this store holds n of them (a reviewer may decide twice in one ms).
    seen: Counter = field(default_factory=Counter)


def replay_decisions(conn: sqlite3.Connection, entries: list[tuple[str, dict[str, Any]]]) -> Replayed:
    """`entries`: (where, record) in the export's order, `where` naming the file and line."""
    done = Replayed()
    verdict_ids: dict[int, int] = {}  # the file's verdict id -> this store's
    with transaction(conn):
        for where, record in entries:
            kind = record.get("kind")
            if kind == "verdict":
                done.counts[_verdict(conn, where, record, verdict_ids, done)] += 1
            elif kind == "entity":
                done.counts[_entity_decision(conn, where, record, done.seen)] += 1
            elif kind == "catalog match":
                study_id = _study_id(conn, where, record.get("study"))
                done.counts[replay_match(conn, where, record, study_id, done.refused)] += 1
            elif kind == "probe label":
                done.counts[replay_probe(conn, where, record)] += 1
            elif kind == "adjudication lapse":
                done.counts["lapse"] += 1  # follows from the verdicts: nothing to record
            else:
                done.counts["other"] += 1
    return done


def _replay_of(where: str, record: dict[str, Any]) -> dict[str, Any]:
    try:
        replay = json.loads(record.get("replay") or "")
    except (TypeError, ValueError):
        replay = None
    if not isinstance(replay, dict):
        raise ReplayRefused(
            f"{where}: no `replay` for this decision (the export of an older version): export the decisions "
            "again with `workbench export --what decisions --format json`"
        )
    return replay


def _study_id(conn: sqlite3.Connection, where: str, study: Any) -> int:
    row = conn.execute("SELECT id FROM studies WHERE name = ?", (study,)).fetchone()
    if row is None:
        raise ReplayRefused(f"{where}: no study {study!r} in this database (run the study, then import decisions)")
    return row[0]


def _verdict(conn: sqlite3.Connection, where: str, record: dict[str, Any], ids: dict[int, int], done: Replayed) -> str:
    replay = _replay_of(where, record)
    try:
        scope = json.loads(record["scope"])
        key = (scope["model"], scope["topic"], scope["question"], int(scope["repetition"]))
    except (KeyError, TypeError, ValueError):
        raise ReplayRefused(f"{where}: the verdict's `scope` names no model, topic, question and repetition") from None
    who = clean_reviewer(str(record.get("who") or ""), source=where)
    scope_values = (_study_id(conn, where, record.get("study")), *key)
    row = conn.execute(f"SELECT {LIST_COLUMNS} FROM mention_lists WHERE {IN_SCOPE}", scope_values).fetchone()
    shown = f"{who}'s {replay['decision']} on {key[0]} · {key[1]} · {key[2]!r} · repetition {key[3]}"
    if row is None:
        raise ReplayRefused(
            f"{where}: no extracted list for {shown.split(' on ', 1)[1]} in study {record.get('study')!r} "
            "(run the same study here first)"
        )
    same = (*scope_values, who, record.get("at"), replay["decision"])
    present = conn.execute(
        f"SELECT id FROM verdicts WHERE {IN_SCOPE} AND reviewer = ? AND at = ? AND decision = ? ORDER BY id", same
    ).fetchall()
    done.seen[("verdict", *same)] += 1
    if len(present) >= done.seen[("verdict", *same)]:
        ids[int(record["id"])] = present[done.seen[("verdict", *same)] - 1][0]
        return "present"
    why_not = _differs(conn, scope.get("answer_key"), row["response_key"], replay, ids)
    if why_not:
        done.refused.append(f"{where}: {shown} refused ({why_not}); nothing recorded for it, the file keeps it")
        return "refused"
    ids[int(record["id"])] = _insert_verdict(conn, row, who, record, replay, scope.get("answer_key"), ids)
    return "verdict"


def _differs(conn, answer_key, response_key, replay: dict[str, Any], ids: dict[int, int]) -> str:
    """Why a verdict cannot judge this store's list ("" when it can)."""
    if answer_key and response_key and answer_key != response_key:
        return "the answer here was asked otherwise"
    wanted = replay.get("answer_sha256")
    if wanted and answer_sha256(conn, response_key) != wanted:
        return "the answer here reads otherwise"
    missing = [who for who, i in (replay.get("settled") or {}).items() if int(i) not in ids]
    if missing:
        return f"it adjudicates {', '.join(missing)}'s verdict, which was not recorded here"
    return ""


def _insert_verdict(conn, row, who: str, record, replay: dict[str, Any], answer_key, ids: dict[int, int]) -> int:
    from workbench.store.reviews import _settle  # one rule for what a list becomes

    settled = replay.get("settled")
    undone = record.get("state") == "undone"
    verdict_id = conn.execute(
        "INSERT INTO verdicts (study_id, model, topic, question, repetition, answer_key, reviewer, decision, "
        "before_json, after_json, blind, why, sample, at, adjudicates, took, settled) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row["study_id"],
            row["model"],
            row["topic"],
            row["question"],
            row["repetition"],
            answer_key,
            who,
            replay["decision"],
            record.get("before") or "[]",
            record.get("after") or "[]",
            int(bool(replay.get("blind"))),
            record.get("why"),
            replay.get("sample"),
            record.get("at"),
            json.dumps(replay["adjudicates"]) if replay.get("adjudicates") else None,
            replay.get("took"),
            json.dumps({w: ids[int(i)] for w, i in settled.items()}) if settled else None,
        ),
    ).lastrowid
    _settle(conn, row)  # as it was made: its names become entities, as they did there
    if undone:  # then taken back, as it was there
        conn.execute(
            "UPDATE verdicts SET undone = 1, undone_at = ? WHERE id = ?", (replay.get("undone_at"), verdict_id)
        )
        _settle(conn, conn.execute(f"SELECT {LIST_COLUMNS} FROM mention_lists WHERE id = ?", (row["id"],)).fetchone())
    return verdict_id


def _entity(conn: sqlite3.Connection, where: str, name: Any) -> int:
    """This store's entity of a name: the entity so named, else the one holding it as a spelling."""
    row = conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
    if row is None and isinstance(name, str):
        row = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (normalize_surface(name),)).fetchone()
    if row is None:
        raise ReplayRefused(f"{where}: no entity {name!r} in this database (run the same study here first)")
    return row[0]


def _entity_decision(conn: sqlite3.Connection, where: str, record: dict[str, Any], seen: Counter) -> str:
    if record.get("state") != "active":
        return "undone"  # taken back in the other store: nothing to make again
    who, at, action = str(record.get("who") or ""), record.get("at"), record.get("action")
    here = conn.execute(
        "SELECT COUNT(*) FROM entity_decisions WHERE action = ? AND who = ? AND at = ? AND undone = 0",
        (action, who, at),
    ).fetchone()[0]
    seen[("entity", action, who, at)] += 1
    if here >= seen[("entity", action, who, at)]:
        return "present"
    replay = _replay_of(where, record)
    changes = _translated(conn, where, replay)
    if not changes:
        return "in effect"  # this store already reads as the decision left the other (an entities import)
    conn.execute("UPDATE entity_decisions SET undone = -1 WHERE undone > 0 AND who = ?", (who,))  # as by hand
    decision = conn.execute(
        "INSERT INTO entity_decisions (action, summary, changes_json, who, why, at) VALUES (?, ?, ?, ?, ?, ?)",
        (action, record.get("summary") or action, "[]", who, record.get("why"), at),
    ).lastrowid
    for change in changes:
        if change["op"] == "forbid":
            change["decision"] = decision
        apply_change(conn, change, forward=True)
    conn.execute("UPDATE entity_decisions SET changes_json = ? WHERE id = ?", (json.dumps(changes), decision))
    return "entity decision"


def _translated(conn: sqlite3.Connection, where: str, replay: dict[str, Any]) -> list[dict[str, Any]]:
    """The decision's changes in this store's ids, each from what this store holds now; a change
    this store already reads as is left out."""
    refs = replay.get("entities") or {}
    ids = {int(k): _entity(conn, where, ref.get("name")) for k, ref in refs.items() if not ref.get("created")}
    out = []
    for change in replay.get("changes") or []:
        noop = change.get("from") == change.get("to")  # made as a no-op (a rename to its own name): kept so
        change, op = dict(change), change.get("op")
        if op == "create":
            if conn.execute("SELECT 1 FROM entities WHERE name = ?", (change["name"],)).fetchone():
                raise ReplayRefused(f"{where}: an entity {change['name']!r} is already in this database")
            new = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM entities").fetchone()[0]
            ids[int(change["entity"])], change["entity"] = new, new
        elif op == "alias":
            now = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (change["key"],)).fetchone()
            if now is None:
                raise ReplayRefused(f"{where}: no spelling {change['key']!r} in this database")
            change["from"], change["to"] = now[0], ids[int(change["to"])]
        elif op in ("name", "region"):
            change["entity"] = ids[int(change["entity"])]
            column = "name" if op == "name" else "region"
            change["from"] = conn.execute(
                f"SELECT {column} FROM entities WHERE id = ?", (change["entity"],)
            ).fetchone()[0]
        elif op == "forbid":
            change["a"], change["b"] = sorted((ids[int(change["a"])], ids[int(change["b"])]))
            if conn.execute(
                "SELECT 1 FROM forbidden_pairs WHERE entity_a = ? AND entity_b = ?", (change["a"], change["b"])
            ).fetchone():
                continue
        else:
            raise ReplayRefused(f"{where}: an entity change {op!r} this version does not know")
        if op in ("alias", "name", "region") and change["from"] == change["to"] and not noop:
            continue  # this store already reads so (an entities import set the region)
        out.append(change)
    return out
