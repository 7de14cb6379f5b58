"""Making the decisions of another store again in this one (`workbench import decisions`):
verdicts (adjudications among them), entity decisions (merges, splits, renames, forbids,
regions) and a method's corrections (its `decision_kinds`: store/decisions/method_kinds.py), each with the who, when and why it was made with, so that a fresh run of a reviewed
study reads as the reviewed one did and its report gives the same numbers.

Everything is found by what the decision is about, never by the other store's ids: a verdict
by study, model, topic, question and repetition and the answer it judged (a request key
derived from what was asked, and the SHA-256 of the answer's text); an entity by its name
before the decision (store/decisions/portable.py). One transaction: a list, study, entity or
spelling the file names that this store lacks refuses the whole file, naming its line. A
verdict whose answer reads otherwise here is refused alone and said, its line named: the
file keeps it. An entity decision whose entities stand otherwise here is refused alone the same
way (store/decisions/replay_entities.py). A decision already here (same kind, person and time),
or named twice by the file, is not recorded again, so importing twice records nothing new; one
taken back here since it was imported stays taken back (an undo here is this store's decision).
Undo takes a replayed decision back as one made by hand.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from workbench.errors import ReplayRefused  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.db import transaction
from workbench.store.decisions import method_kinds
from workbench.store.decisions.portable import answer_sha256, replay_of
from workbench.store.decisions.replay_entities import replay_entity_decision
from workbench.store.review.base import IN_SCOPE, LIST_COLUMNS
from workbench.store.review.reviewer_names import clean_reviewer


@dataclass
class Replayed:
    counts: Counter = field(default_factory=Counter)  # verdicts, entity decisions, present, in effect, ...
    refused: list[str] = field(default_factory=list)  # one line per verdict refused alone
    # How often the file has named one decision (same kind, place, person and millisecond) so far:
    # the n-th is here when this store holds n of them (a reviewer may decide twice in one ms).
    seen: Counter = field(default_factory=Counter)
    records: set[str] = field(default_factory=set)  # each record read so far, as JSON


def replay_decisions(conn: sqlite3.Connection, entries: list[tuple[str, dict[str, Any]]]) -> Replayed:
    """`entries`: (where, record) in the export's order, `where` naming the file and line."""
    done = Replayed()
    verdict_ids: dict[int, int] = {}  # the file's verdict id -> this store's
    with transaction(conn):
        for where, record in entries:
            kind = record.get("kind")
            same = json.dumps(record, sort_keys=True)
            if same in done.records:  # the file names it twice (two exports joined): made once
                done.counts["present"] += 1
                continue
            done.records.add(same)
            if kind == "verdict":
                done.counts[_verdict(conn, where, record, verdict_ids, done)] += 1
            elif kind == "entity":
                done.counts[replay_entity_decision(conn, where, record, done.seen, done.refused)] += 1
            elif kind in (methods := method_kinds.kinds()):  # a method's correction (catalog match, probe label)
                study_id = lambda where=where, record=record: _study_id(conn, where, record.get("study"))  # noqa: E731
                done.counts[methods[kind].replay(conn, where, record, study_id, done.refused)] += 1
            elif kind == "adjudication lapse":
                done.counts["lapse"] += 1  # follows from the verdicts: nothing to record
            else:
                done.counts["other"] += 1
    return done


def _study_id(conn: sqlite3.Connection, where: str, study: Any) -> int:
    row = conn.execute("SELECT id FROM studies WHERE name = ?", (study,)).fetchone()
    if row is None:
        raise ReplayRefused(f"{where}: no study {study!r} in this database (run the study, then import decisions)")
    return row[0]


def _verdict(conn: sqlite3.Connection, where: str, record: dict[str, Any], ids: dict[int, int], done: Replayed) -> str:
    replay = replay_of(where, record)
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
        f"SELECT id, undone FROM verdicts WHERE {IN_SCOPE} AND reviewer = ? AND at = ? AND decision = ? ORDER BY id",
        same,
    ).fetchall()
    done.seen[("verdict", *same)] += 1
    if len(present) >= done.seen[("verdict", *same)]:
        verdict_id, undone = present[done.seen[("verdict", *same)] - 1]
        ids[int(record["id"])] = verdict_id
        # Imported before, then taken back here: an undo here is a decision of this store.
        return "kept undone" if undone and record.get("state") != "undone" else "present"
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
    from workbench.store.review.verdicts import _settle  # one rule for what a list becomes

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
