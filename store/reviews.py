"""Human review of extracted lists: accept, edit or reject, per reviewer, undoable.

A verdict is data about an answer, not about a row: it is kept by what it judges
(study, model, topic, question, repetition) and the answer the reviewer read
(`answer_key`, the response key; none for an imported list). The list metrics read
is *settled* from the verdicts: the latest standing verdict that is not blind and
still judges the list's answer gives the list; without one the list is what the
machine extracted (kept in `mention_lists.extracted_json` while a verdict replaces
it). So re-extraction, a re-import or an edited study replace lists freely: the
verdicts are re-applied to the new lists (`settle_lists`), and the ones whose answer
was asked again are kept, reported as no longer applying, never applied.

Two reviewers: a second reviewer works blind on the validation sample (sees the
answer and the extraction, never another reviewer's list); blind verdicts are
compared (agreement, Cohen's kappa on the final lists), never applied. The list
metrics use is the adjudicated one: the first reviewer's, or whoever settles a
disagreement with a verdict that is not blind.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from workbench.store.current_lists import counts_now
from workbench.store.db import utc_now
from workbench.store.entity_names import ensure_entities
from workbench.store.errors import InputError
from workbench.store.grounding import ungrounded_of
from workbench.store.queue import transaction

DECISIONS = ("accept", "edit", "reject")
SCOPE = ("study_id", "model", "topic", "question", "repetition")


class ReviewRefused(InputError):
    """A verdict or an undo that cannot be carried out as asked; the message says why."""


def _surfaces(conn: sqlite3.Connection, list_id: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT surface FROM mentions WHERE list_id = ? ORDER BY rank", (list_id,))]


def _extracted(conn: sqlite3.Connection, row: sqlite3.Row) -> list[list[Any]]:
    """What the machine extracted for a list: [[surface, votes], ...]."""
    if row["extracted_json"] is not None:
        return json.loads(row["extracted_json"])
    return [
        [s, v]
        for s, v in conn.execute("SELECT surface, votes FROM mentions WHERE list_id = ? ORDER BY rank", (row["id"],))
    ]


def _write_mentions(conn: sqlite3.Connection, list_id: int, slots: list[list[Any]]) -> None:
    from workbench.store.surface import normalize_surface

    rows = [(s, normalize_surface(s), votes) for s, votes in slots if normalize_surface(s)]
    ensure_entities(conn, ((s, k) for s, k, _ in rows))
    conn.execute("DELETE FROM mentions WHERE list_id = ?", (list_id,))
    conn.executemany(
        "INSERT INTO mentions (list_id, rank, surface, surface_key, votes) VALUES (?, ?, ?, ?, ?)",
        [(list_id, rank, s, k, v) for rank, (s, k, v) in enumerate(rows, start=1)],
    )


def clean(entities: Iterable[str]) -> list[str]:
    """A reviewer's list as stored: trimmed, empty parts dropped, each name once, in order."""
    return list(dict.fromkeys(" ".join(e.split()) for e in entities if e and e.strip()))


def _list_row(conn: sqlite3.Connection, list_id: int) -> sqlite3.Row:
    row = conn.execute(
        "SELECT id, study_id, model, topic, question, repetition, response_key, extracted_json "
        "FROM mention_lists WHERE id = ?",
        (list_id,),
    ).fetchone()
    if row is None:
        raise ReviewRefused(f"no extracted list {list_id} (it may have been replaced: list them again)")
    return row


def list_in_study(conn: sqlite3.Connection, list_id: int, study: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM mention_lists WHERE id = ? AND study_id = (SELECT id FROM studies WHERE name = ?)",
            (list_id, study),
        ).fetchone()
        is not None
    )


def _scope(row: sqlite3.Row) -> tuple:
    return tuple(row[c] for c in SCOPE)


_IN_SCOPE = "study_id = ? AND model = ? AND topic = ? AND question = ? AND repetition = ?"
# A verdict judges the list when it read the list's answer (or either has none: an import).
_APPLIES = "(answer_key IS NULL OR ? IS NULL OR answer_key = ?)"


def _governing(conn: sqlite3.Connection, scope: tuple, answer_key: str | None) -> sqlite3.Row | None:
    """The verdict that gives the list of `scope`: the latest standing one that is not blind
    and judges this answer."""
    return conn.execute(
        f"SELECT * FROM verdicts WHERE {_IN_SCOPE} AND undone = 0 AND blind = 0 AND {_APPLIES} "
        "ORDER BY id DESC LIMIT 1",
        (*scope, answer_key, answer_key),
    ).fetchone()


def _settle(conn: sqlite3.Connection, row: sqlite3.Row) -> None:
    """Make one list what its verdicts say (inside a transaction)."""
    verdict = _governing(conn, _scope(row), row["response_key"])
    current = _surfaces(conn, row["id"])
    if verdict is not None:
        after = json.loads(verdict["after_json"])
        if after != current:
            if row["extracted_json"] is None:  # kept once, before the first verdict replaces it
                conn.execute(
                    "UPDATE mention_lists SET extracted_json = ? WHERE id = ?",
                    (json.dumps(_extracted(conn, row)), row["id"]),
                )
            _write_mentions(conn, row["id"], [[s, None] for s in after])
            _touch(conn, row["id"])
    elif row["extracted_json"] is not None:
        _write_mentions(conn, row["id"], json.loads(row["extracted_json"]))
        conn.execute("UPDATE mention_lists SET extracted_json = NULL WHERE id = ?", (row["id"],))


def _touch(conn: sqlite3.Connection, list_id: int) -> None:
    # Mentions are inserted without a trigger (imports write millions); touching the list
    # moves the change counter for an edit of a list that had no mentions before.
    conn.execute("UPDATE mention_lists SET id = id WHERE id = ?", (list_id,))


def settle_lists(conn: sqlite3.Connection, study_id: int, list_ids: list[int]) -> None:
    """Re-apply the study's verdicts to the lists just stored (`list_ids`, inside the transaction
    that replaced them; the others were settled when their verdicts changed). Costs nothing for
    a study nobody reviewed."""
    if (
        not list_ids
        or conn.execute("SELECT 1 FROM verdicts WHERE study_id = ? LIMIT 1", (study_id,)).fetchone() is None
    ):
        return
    rows = conn.execute(
        "SELECT DISTINCT l.id, l.study_id, l.model, l.topic, l.question, l.repetition, l.response_key, "
        "l.extracted_json FROM mention_lists l JOIN verdicts v ON v.study_id = l.study_id AND v.model = l.model "
        "AND v.topic = l.topic AND v.question = l.question AND v.repetition = l.repetition "
        "WHERE l.study_id = ? AND l.id IN (SELECT value FROM json_each(?))",
        (study_id, json.dumps(list_ids)),
    ).fetchall()
    for row in rows:
        _settle(conn, row)


def review(
    conn: sqlite3.Connection,
    list_id: int,
    reviewer: str,
    decision: str,
    entities: list[str] | None = None,
    sample: str | None = None,
    *,
    blind: bool = False,
    why: str | None = None,
) -> int:
    """Record a verdict; `entities` is the corrected list for an edit. A blind verdict judges
    the machine's extraction and is kept for agreement only."""
    if decision not in DECISIONS:
        raise InputError(f"unknown decision {decision!r} (accept, edit or reject)")
    reviewer = (reviewer or "").strip()
    if not reviewer:
        raise InputError("a verdict needs a reviewer's name")
    with transaction(conn):
        row = _list_row(conn, list_id)
        before = [s for s, _ in _extracted(conn, row)] if blind else _surfaces(conn, list_id)
        if decision == "accept":
            after = before
        elif decision == "reject":
            after = []
        else:
            after = clean(entities or [])
            if not after:
                raise ReviewRefused("an edit needs at least one name; reject says the answer recommends nothing")
        verdict_id = conn.execute(
            "INSERT INTO verdicts (study_id, model, topic, question, repetition, answer_key, reviewer, decision, "
            "before_json, after_json, blind, why, sample, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *_scope(row),
                row["response_key"],
                reviewer,
                decision,
                json.dumps(before),
                json.dumps(after),
                int(blind),
                why,
                sample,
                utc_now(),
            ),
        ).lastrowid
        if not blind:
            _settle(conn, row)
        return verdict_id


def _describe(verdict: sqlite3.Row) -> str:
    return f"{verdict['reviewer']}'s {verdict['decision']} (#{verdict['id']}, {verdict['at'][:16].replace('T', ' ')})"


def undo_review(conn: sqlite3.Connection, reviewer: str, study: str | None = None) -> dict[str, Any] | None:
    """Take back this reviewer's latest standing verdict (in `study`, if given). Refused, with
    the verdict that changed the list since, when the list no longer is what this verdict made
    it. None when the reviewer has nothing to undo."""
    with transaction(conn):
        where, args = ("AND study_id = (SELECT id FROM studies WHERE name = ?)", (study,)) if study else ("", ())
        verdict = conn.execute(
            f"SELECT * FROM verdicts WHERE reviewer = ? AND undone = 0 {where} ORDER BY id DESC LIMIT 1",
            (reviewer, *args),
        ).fetchone()
        if verdict is None:
            return None
        scope = tuple(verdict[c] for c in SCOPE)
        row = conn.execute(
            f"SELECT id, study_id, model, topic, question, repetition, response_key, extracted_json "
            f"FROM mention_lists WHERE {_IN_SCOPE}",
            scope,
        ).fetchone()
        note = ""
        if verdict["blind"]:
            pass  # a blind verdict never changed the list
        elif row is None or (verdict["answer_key"] and row["response_key"] not in (None, verdict["answer_key"])):
            note = "it no longer applied: the answer was asked again"
        else:
            if _surfaces(conn, row["id"]) != json.loads(verdict["after_json"]):
                later = _governing(conn, scope, row["response_key"])
                by = _describe(later) if later is not None and later["id"] != verdict["id"] else "a re-extraction"
                raise ReviewRefused(
                    f"cannot undo your {verdict['decision']} (#{verdict['id']}): {by} changed this list since"
                )
        conn.execute("UPDATE verdicts SET undone = 1 WHERE id = ?", (verdict["id"],))
        if row is not None and not verdict["blind"]:
            _settle(conn, row)
        return {
            "id": verdict["id"],
            "list_id": row["id"] if row is not None else None,
            "decision": verdict["decision"],
            "note": note,
        }


def _judges(verdict: sqlite3.Row, answer_key: str | None) -> bool:
    """Whether a verdict judges the list of this answer (it read it, or either is an import)."""
    return not verdict["answer_key"] or not answer_key or verdict["answer_key"] == answer_key


def _standing(conn: sqlite3.Connection, study_id: int | None = None) -> dict[tuple, list[sqlite3.Row]]:
    """Each scope's standing verdicts (not undone), oldest first."""
    where, args = ("AND study_id = ?", (study_id,)) if study_id is not None else ("", ())
    out: dict[tuple, list[sqlite3.Row]] = {}
    for v in conn.execute(f"SELECT * FROM verdicts WHERE undone = 0 {where} ORDER BY id", args):
        out.setdefault(tuple(v[c] for c in SCOPE), []).append(v)
    return out


def _latest_by_reviewer(verdicts: list[sqlite3.Row], answer_key: str | None, judging: bool) -> dict[str, sqlite3.Row]:
    """Each reviewer's latest standing verdict that judges this answer (judging) or that no
    longer does: a reviewer's newer verdict on another answer never hides the one that
    gives this answer's list."""
    return {v["reviewer"]: v for v in verdicts if _judges(v, answer_key) == judging}


def final_key(conn: sqlite3.Connection, names: list[str]) -> tuple:
    """A list as two reviewers are compared: each name by the entity it reads as (a spelling
    the registry does not know by its normalised form), in order."""
    from workbench.store.surface import normalize_surface

    out = []
    for name in names:
        key = normalize_surface(name)
        hit = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (key,)).fetchone()
        out.append(f"e{hit[0]}" if hit else f"s{key}")
    return tuple(out)


def review_items(
    conn: sqlite3.Connection,
    study: str | None = None,
    only: str = "all",
    topic: str | None = None,
    model: str | None = None,
    list_ids: list[int] | None = None,
    reviewer: str | None = None,
    blind: bool = False,
) -> list[dict[str, Any]]:
    """What a reviewer reads per response: question, answer, experts' lists, current
    list and verdicts. `only`: all | unreviewed | disagreements (between experts) |
    reviewer disagreements (two reviewers' final lists differ: to adjudicate).
    Blind (a second reviewer): only the reviewer's own verdict is shown, and "unreviewed"
    means not reviewed by them."""
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
    clauses.append(counts_now("l"))  # a superseded answer's list is not the study's any more
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    rows = conn.execute(
        f"""
        SELECT l.id, l.study_id, l.model, l.topic, l.cluster, l.question, l.repetition, l.source, l.agreement,
               l.response_key
        FROM mention_lists l
        {where} ORDER BY l.id
        """,
        args,
    ).fetchall()
    standing = _standing(conn)
    wanted = set(list_ids) if list_ids is not None else None
    items = []
    for row in rows:
        if wanted is not None and row["id"] not in wanted:
            continue
        scope = tuple(row[c] for c in SCOPE)
        verdicts = _latest_by_reviewer(standing.get(scope, []), row["response_key"], judging=True)
        if blind:
            verdicts = {who: v for who, v in verdicts.items() if who == reviewer}
        if only == "unreviewed" and (reviewer in verdicts if blind else verdicts):
            continue
        if only == "reviewer disagreements":
            finals = {final_key(conn, json.loads(v["after_json"])) for v in verdicts.values()}
            if len(finals) < 2:
                continue
        governing = [v for v in verdicts.values() if not v["blind"]]
        latest = max(governing or verdicts.values(), key=lambda v: v["id"], default=None)
        item = dict(row)
        item["verdict"] = f"{latest['decision']}|{latest['reviewer']}" if latest is not None else None
        item["verdicts"] = {
            who: {"decision": v["decision"], "list": json.loads(v["after_json"]), "blind": bool(v["blind"])}
            for who, v in sorted(verdicts.items())
        }
        item["blind"] = blind
        items.append(item)
    return items


def review_detail(conn: sqlite3.Connection, item: dict[str, Any]) -> dict[str, Any]:
    """The parts of an item only the response on screen needs: experts' lists, the list
    shown (the extraction when blind, else the current list) and the extraction."""
    experts = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT entities_json FROM expert_lists WHERE response_key = ? ORDER BY expert", (item["response_key"],)
        )
    ]
    answer = conn.execute("SELECT text FROM responses WHERE request_key = ?", (item["response_key"],)).fetchone()
    row = _list_row(conn, item["id"])
    extracted = [s for s, _ in _extracted(conn, row)]
    return {
        **item,
        "experts": experts,
        "extracted": extracted,
        "entities": extracted if item.get("blind") else _surfaces(conn, item["id"]),
        "answer": answer[0] if answer else None,
        "ungrounded": ungrounded_of(conn, item["id"]),
    }


def list_records(
    conn: sqlite3.Connection, study: str, only: str = "all", reviewer: str | None = None, blind: bool = False
) -> list[dict[str, Any]]:
    """Every list of a study for scripts: ids, what was extracted, what metrics use now,
    and each reviewer's standing verdict (and the verdicts that no longer apply)."""
    items = review_items(conn, study, only=only, reviewer=reviewer, blind=blind)
    study_id = conn.execute("SELECT id FROM studies WHERE name = ?", (study,)).fetchone()
    standing = _standing(conn, study_id[0]) if study_id else {}
    out = []
    for item in items:
        detail = review_detail(conn, item)
        scope = tuple(item[c] for c in SCOPE)
        stale = {
            who: {"decision": v["decision"], "list": json.loads(v["after_json"]), "id": v["id"]}
            for who, v in _latest_by_reviewer(standing.get(scope, []), item["response_key"], judging=False).items()
        }
        out.append(
            {
                "list_id": item["id"],
                "model": item["model"],
                "topic": item["topic"],
                "cluster": item["cluster"],
                "question": item["question"],
                "repetition": item["repetition"],
                "extracted": detail["extracted"],
                "current": detail["entities"] if not blind else detail["extracted"],
                "verdicts": item["verdicts"],
                "no_longer_apply": stale,
            }
        )
    return out


def stale_verdicts(conn: sqlite3.Connection, study_id: int) -> int:
    """Standing verdicts that no longer judge their list: its answer was asked again."""
    return conn.execute(
        """
        SELECT COUNT(*) FROM verdicts v JOIN mention_lists l ON l.study_id = v.study_id AND l.model = v.model
            AND l.topic = v.topic AND l.question = v.question AND l.repetition = v.repetition
        WHERE v.study_id = ? AND v.undone = 0 AND v.answer_key IS NOT NULL AND l.response_key IS NOT NULL
            AND v.answer_key != l.response_key
        """,
        (study_id,),
    ).fetchone()[0]


def review_records(conn: sqlite3.Connection):
    """Every verdict with its provenance, for export."""
    for row in conn.execute(
        "SELECT v.id, s.name AS study, v.model, v.topic, v.question, v.repetition, v.answer_key, v.reviewer, "
        "v.decision, v.before_json, v.after_json, v.blind, v.why, v.at, v.undone FROM verdicts v "
        "JOIN studies s ON s.id = v.study_id ORDER BY v.id"
    ):
        record = dict(row)
        record["blind"] = bool(record["blind"])
        record["state"] = "undone" if record.pop("undone") else "active"
        yield record


REVIEW_FIELDS = [
    "id",
    "study",
    "model",
    "topic",
    "question",
    "repetition",
    "answer_key",
    "reviewer",
    "decision",
    "before_json",
    "after_json",
    "blind",
    "why",
    "at",
    "state",
]


def reviewed_counts(conn) -> tuple[int, int]:
    """(extracted lists, lists with a standing verdict that is not blind)."""
    row = conn.execute(
        """
        SELECT (SELECT COUNT(*) FROM mention_lists),
               -- from the verdicts' side: a few thousand verdicts, not a million lists
               (SELECT COUNT(*) FROM (
                   SELECT DISTINCT study_id, model, topic, question, repetition FROM verdicts
                   WHERE undone = 0 AND blind = 0) v
                WHERE EXISTS (SELECT 1 FROM mention_lists l WHERE l.study_id = v.study_id AND l.model = v.model
                   AND l.topic = v.topic AND l.question = v.question AND l.repetition = v.repetition))
        """
    ).fetchone()
    return row[0], row[1]


def list_values(conn, column: str) -> list[Any]:
    """The distinct topics or models of the extracted lists (for the filters)."""
    if column not in ("topic", "model"):
        raise InputError(f"no filter on {column!r}")
    return [r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM mention_lists ORDER BY {column}")]
