"""A study file's questions in the store: the file is the truth of what is asked.

Each question of the file is one row of `questions`, marked `in_file` (migration 24): 1 the
file has it now, 0 the file had it and dropped it, NULL it never came from the file (imported,
generated, added in the app: those stay asked). A question the file dropped is kept, so
that its answers stay for the log and an edit undone, but nothing asks, lists or counts it.

A request is made of a question's wording, never of its topic or cluster (the cluster's
persona is not in the prompt: `plan_requests`), so a wording the file now gives another
cluster (a question moved, a cluster renamed) asks the very requests it asked before. Its
answers are re-labelled, never asked again: the requests and their ranked lists move to the
question the file has now, and the old row goes. The store then says what a fresh run of
the edited file says, and `questions` lists the wording once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from workbench.store.db import transaction, tuples

# A question that counts: the file has it, or it never came from the file.
ASKED = "in_file IS NOT 0"


def sync_file_questions(conn: sqlite3.Connection, study_id: int, questions: Iterable[Any]) -> None:
    """Store the study file's questions as the file has them now (see the module's doc)."""
    edited = {
        (topic, cluster, old): new
        for topic, cluster, old, new in conn.execute(
            "SELECT topic, cluster, old_text, new_text FROM question_edits WHERE study_id = ?", (study_id,)
        )
    }
    stored = {
        (topic, cluster, text): (id_, in_file, source, label, position)
        for id_, topic, cluster, text, in_file, source, label, position in tuples(
            conn,
            "SELECT id, topic, cluster, text, in_file, source, cluster_label, position FROM questions "
            "WHERE study_id = ?",
            (study_id,),
        )
    }
    now, new, placed = set(), [], []
    for q in questions:
        key = (q.topic, q.cluster, edited.get((q.topic, q.cluster, q.text), q.text))  # a reviewer's edit stays
        row = stored.get(key) or stored.get((q.topic, q.cluster, q.text))
        if row is None:
            new.append(q)
            continue
        now.add(row[0])
        if row[1] != 1 or (row[3], row[4]) != (q.cluster_label, q.position):
            placed.append((q.cluster_label, q.position, row[0]))
    # Until migration 24 nothing was marked: a question written in a study file ("inline")
    # was the file's.
    before = {row[0] for row in stored.values() if row[1] == 1 or (row[1] is None and row[2] == "inline")}
    dropped = before - now
    with transaction(conn):
        conn.executemany(
            "UPDATE questions SET cluster_label = ?, position = ?, in_file = 1 WHERE id = ?",
            placed,
        )
        conn.executemany("UPDATE questions SET in_file = 0 WHERE id = ?", ((i,) for i in dropped))
        conn.executemany(
            "INSERT OR IGNORE INTO questions (study_id, topic, cluster, cluster_label, position, text, source, in_file) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
            [(study_id, q.topic, q.cluster, q.cluster_label, q.position, q.text, q.source) for q in new],
        )
        if _twins(stored, now, dropped, new):
            _move_answers(conn, study_id)


def _twins(stored: dict, now: set, dropped: set, new: list) -> bool:
    """Whether a question the file dropped (now or before) has a wording asked now: only
    then are the requests read (a plan resumed or a question added moves nothing)."""
    gone = {key[2] for key, row in stored.items() if row[0] in dropped or (row[1] == 0 and row[0] not in now)}
    if not gone:
        return False
    asked = {key[2] for key, row in stored.items() if row[0] not in dropped and (row[1] != 0 or row[0] in now)}
    return not gone.isdisjoint(asked | {q.text for q in new})


def _move_answers(conn: sqlite3.Connection, study_id: int) -> None:
    """The requests of each dropped question whose wording a question asked now has (in
    the same topic first) move to that question, with their lists; the dropped row goes."""
    rows = tuples(
        conn, "SELECT id, topic, cluster, text, in_file, verified FROM questions WHERE study_id = ?", (study_id,)
    )
    asked: dict[str, list[tuple]] = {}
    for row in sorted(rows, key=lambda r: (r[4] != 1, r[0])):  # the file's first, then the oldest
        if row[4] != 0:
            asked.setdefault(row[3], []).append(row)
    moves = {}
    for id_, topic, _cluster, text, in_file, verified in rows:
        if in_file == 0 and text in asked:
            twin = next((r for r in asked[text] if r[1] == topic), asked[text][0])
            moves[id_] = (twin, verified and twin[1] == topic)  # the same question: still verified
    if not moves:
        return
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS moved_questions (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM moved_questions")
    conn.executemany("INSERT INTO moved_questions VALUES (?)", ((i,) for i in moves))
    keys = tuples(  # one pass over the study's requests, however many questions moved
        conn,
        "SELECT key, question_id FROM requests WHERE study_id = ? AND question_id IN (SELECT id FROM moved_questions)",
        (study_id,),
    )
    conn.execute("DELETE FROM moved_questions")
    conn.executemany("UPDATE requests SET question_id = ? WHERE key = ?", ((moves[q][0][0], k) for k, q in keys))
    # A list says its answer's topic and cluster: re-labelled with it (its log, migration 17,
    # makes every open view count it again).
    conn.executemany(
        "UPDATE mention_lists SET topic = ?, cluster = ? WHERE response_key = ? "
        "AND (topic IS NOT ? OR cluster IS NOT ?)",
        ((twin[1], twin[2], key, twin[1], twin[2]) for key, question in keys for twin in (moves[question][0],)),
    )
    conn.executemany(
        "UPDATE questions SET verified = 1 WHERE id = ?", ((twin[0],) for twin, verified in moves.values() if verified)
    )
    conn.executemany("DELETE FROM questions WHERE id = ?", ((i,) for i in moves))
