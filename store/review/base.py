"""What every part of the review of extracted lists reads: a list's names, its scope, the
verdicts that judge it, and the rule a reviewer's name must meet.

A verdict is kept by what it judges (study, model, topic, question, repetition) and the
answer the reviewer read (`answer_key`); see store/review/verdicts.py for how verdicts give lists.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from workbench.errors import ReviewRefused  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.review.reviewer_names import by_person, reviewer_key
from workbench.store.surface import normalize_surface

DECISIONS = ("accept", "edit", "reject")
SCOPE = ("study_id", "model", "topic", "question", "repetition")
IN_SCOPE = "study_id = ? AND model = ? AND topic = ? AND question = ? AND repetition = ?"
# A verdict judges the list when it read the list's answer (or either has none: an import).
APPLIES = "(answer_key IS NULL OR ? IS NULL OR answer_key = ?)"
LIST_COLUMNS = "id, study_id, model, topic, question, repetition, response_key, extracted_json"


def surfaces(conn: sqlite3.Connection, list_id: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT surface FROM mentions WHERE list_id = ? ORDER BY rank", (list_id,))]


def extracted(conn: sqlite3.Connection, row: sqlite3.Row) -> list[list[Any]]:
    """What the machine extracted for a list: [[surface, votes], ...]."""
    if row["extracted_json"] is not None:
        return json.loads(row["extracted_json"])
    return [
        [s, v]
        for s, v in conn.execute("SELECT surface, votes FROM mentions WHERE list_id = ? ORDER BY rank", (row["id"],))
    ]


def list_row(conn: sqlite3.Connection, list_id: int) -> sqlite3.Row:
    row = conn.execute(f"SELECT {LIST_COLUMNS} FROM mention_lists WHERE id = ?", (list_id,)).fetchone()
    if row is None:
        raise ReviewRefused(f"no extracted list {list_id} (it may have been replaced: list them again)")
    return row


def scope_of(row: Any) -> tuple:
    return tuple(row[c] for c in SCOPE)


def clean(entities: Iterable[str]) -> list[str]:
    """A reviewer's list as stored: trimmed, empty parts dropped, each name once, in order."""
    return list(dict.fromkeys(" ".join(e.split()) for e in entities if e and e.strip()))


def is_name(name: str) -> bool:
    """A name holds a letter or digit: anything else ("!!!", "...") keys to nothing and
    could never be stored as a mention."""
    return any(c.isalnum() for c in name) and bool(normalize_surface(name))


def repeated(name: str, names: Iterable[str]) -> str | None:
    """The spelling in `names` that `name` repeats, case ignored ("nike" repeats "Nike"):
    one list names a brand once, or it counts twice. The list editor asks the same."""
    key = name.casefold()
    return next((n for n in names if n.casefold() == key), None)


def checked_names(entities: Iterable[str]) -> list[str]:
    """A reviewer's list, cleaned, refused in one line naming the first part that is no
    name or that repeats an earlier one."""
    names = clean(entities)
    for at, name in enumerate(names):
        if not is_name(name):
            raise ReviewRefused(f"{name!r} is not a name: a name must hold a letter or digit (nothing recorded)")
        earlier = repeated(name, names[:at])
        if earlier is not None:
            raise ReviewRefused(
                f"{name!r} repeats {earlier!r}: a list names each brand once, case ignored (nothing recorded)"
            )
    return names


def as_written(names: list[str]) -> list[str]:
    """A verdict's list as its mentions are written: parts that are no name dropped (verdicts
    recorded before names were checked may hold some)."""
    return [s for s in names if normalize_surface(s)]


def governing(conn: sqlite3.Connection, scope: tuple, answer_key: str | None) -> sqlite3.Row | None:
    """The verdict that gives the list of `scope`: the latest standing one that is not blind,
    judges this answer and is no adjudication that lapsed (`governing_of`)."""
    return governing_of(scope_verdicts(conn, scope), answer_key)


def governing_of(verdicts: list[Any], answer_key: str | None) -> Any | None:
    """`governing` among a scope's standing verdicts (oldest first)."""
    for v in reversed(verdicts):
        if not v["blind"] and judges(v, answer_key) and (not v["adjudicates"] or in_force(v, verdicts, answer_key)):
            return v
    return None


def settled_ids(adjudication: Any, verdicts: list[Any]) -> dict[str, int]:
    """The verdict of each party an adjudication settled, by id (`settled`); for one recorded
    before they were kept, each party's latest standing verdict before it."""
    if adjudication["settled"]:
        return {who: int(i) for who, i in json.loads(adjudication["settled"]).items()}
    parties = {reviewer_key(p) for p in json.loads(adjudication["adjudicates"])}
    earlier = [
        v
        for v in verdicts
        if v["id"] < adjudication["id"]
        and reviewer_key(v["reviewer"]) in parties
        and judges(v, adjudication["answer_key"])
    ]
    return {who: v["id"] for who, v in by_person(earlier).items()}


def in_force(adjudication: Any, verdicts: list[Any], answer_key: str | None) -> bool:
    """Whether an adjudication still settles what it settled: each party's current verdict
    (the latest standing one judging the answer) is the one it was given on. A party's new
    verdict, or one taken back, lapses it (the list returns to the queue); undoing that new
    verdict puts it back in force."""
    current = {reviewer_key(who): v["id"] for who, v in latest_by_reviewer(verdicts, answer_key).items()}
    settled = settled_ids(adjudication, verdicts)
    return bool(settled) and all(current.get(reviewer_key(who)) == i for who, i in settled.items())


def judges(verdict: Any, answer_key: str | None) -> bool:
    """Whether a verdict judges the list of this answer (it read it, or either is an import)."""
    return not verdict["answer_key"] or not answer_key or verdict["answer_key"] == answer_key


def standing(conn: sqlite3.Connection, study_id: int | None = None) -> dict[tuple, list[sqlite3.Row]]:
    """Each scope's standing verdicts (not undone), oldest first."""
    where, args = ("AND study_id = ?", (study_id,)) if study_id is not None else ("", ())
    out: dict[tuple, list[sqlite3.Row]] = {}
    for v in conn.execute(f"SELECT * FROM verdicts WHERE undone = 0 {where} ORDER BY id", args):
        out.setdefault(scope_of(v), []).append(v)
    return out


def scope_verdicts(conn: sqlite3.Connection, scope: tuple) -> list[sqlite3.Row]:
    """One scope's standing verdicts, oldest first."""
    return conn.execute(f"SELECT * FROM verdicts WHERE {IN_SCOPE} AND undone = 0 ORDER BY id", scope).fetchall()


def latest_by_reviewer(verdicts: list[Any], answer_key: str | None, judging: bool = True) -> dict[str, Any]:
    """Each reviewer's latest standing verdict that judges this answer (judging) or that no
    longer does: a reviewer's newer verdict on another answer never hides the one that
    gives this answer's list. A reviewer is a person (`reviewer_names.by_person`), under the
    name their latest verdict was recorded with."""
    return by_person(v for v in verdicts if judges(v, answer_key) == judging)


def validators(verdicts: dict[str, Any]) -> dict[str, Any]:
    """The reviewers who validated a list (their latest verdicts), adjudicators apart."""
    return {who: v for who, v in verdicts.items() if not v["adjudicates"]}


def final_key(conn: sqlite3.Connection, names: list[str]) -> tuple:
    """A list as two reviewers are compared: each name by the entity it reads as (a spelling
    the registry does not know by its normalised form), in order."""
    out = []
    for name in names:
        key = normalize_surface(name)
        hit = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (key,)).fetchone()
        out.append(f"e{hit[0]}" if hit else f"s{key}")
    return tuple(out)


def describe(verdict: Any) -> str:
    return f"{verdict['reviewer']}'s {verdict['decision']} (#{verdict['id']}, {verdict['at'][:16].replace('T', ' ')})"
