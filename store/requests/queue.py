"""The persistent request queue: plan, claim, complete, fail, release (the studies and models
they belong to are store/requests/studies.py's rows; counts of them for displays, store/reads/shared.py).

Every function takes an open connection from `store.db.connect`. Writes that
belong together happen in one `BEGIN IMMEDIATE` transaction, so a process killed
at any instant leaves either the old state or the new one, never half of each.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from workbench.store.db import transaction, utc_now  # noqa: F401  (transaction: re-exported)
from workbench.store.values import (
    clean_count,
    clean_float,
    clean_int,
    clean_label,
    clean_text,
    redact,
)

STATUSES = ("pending", "running", "done", "failed")


def claim_owner() -> str:
    """Who holds a claim: host and pid, so a later run can tell a dead holder."""
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class PlannedRequest:
    key: str
    stage: str
    payload: dict[str, Any]
    question_id: int | None = None
    repetition: int | None = None
    seed: int | None = None
    parent_key: str | None = None


class PlanUnit(NamedTuple):
    """One unit of a model's plan (see `plan_units` in docs/writing-a-method.md): a key unique
    within the plan, a digest of everything its requests are made from, and its requests,
    built only when iterated (a unit whose digest is marked already is never built)."""

    key: str
    digest: str
    requests: Iterable[PlannedRequest]


def own_keys(conn: sqlite3.Connection, study_id: int, keys: list[str]) -> dict[str, str]:
    """Each planned key as this study's request key.

    A key is the hash of what determines an answer, so two studies that ask the
    same thing compute the same key. The first study to plan it keeps the plain
    key (databases from before keep theirs); any other study gets a key of its
    own derived from it, so every study owns, counts and exports its requests.
    Deterministic: re-planning a study maps its keys the same way."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS plan_keys (key TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM plan_keys")
    conn.executemany("INSERT OR IGNORE INTO plan_keys (key) VALUES (?)", ((k,) for k in keys))
    others = {
        row[0]
        for row in conn.execute(
            "SELECT p.key FROM plan_keys p JOIN requests r ON r.key = p.key WHERE r.study_id != ?", (study_id,)
        )
    }
    conn.execute("DELETE FROM plan_keys")
    return {k: (study_key(k, study_id) if k in others else k) for k in keys}


def study_key(key: str, study_id: int) -> str:
    return hashlib.sha256(f"{key}/study/{study_id}".encode()).hexdigest()[:32]


def request_rows(owned: dict[str, str], study_id: int, model_id: int, requests: list[PlannedRequest], now: str):
    """The `requests` rows of planned requests (key, study, model, stage, question, repetition,
    seed, payload, parent, created, updated), each under the key the study owns."""
    return [
        (
            owned[r.key],
            study_id,
            model_id,
            r.stage,
            r.question_id,
            r.repetition,
            r.seed,
            json.dumps(r.payload, sort_keys=True),
            r.parent_key,
            now,
            now,
        )
        for r in requests
    ]


def plan(conn: sqlite3.Connection, study_id: int, model_id: int, requests: Iterable[PlannedRequest]) -> int:
    """Insert requests that are not there yet; returns how many were new.

    A request another study already asked (same content, see `own_keys`) gets a
    key of this study's, and the other study's stored answer is shared: copied to
    this study's request (marked `shared_from`) instead of paying for it twice."""
    requests = list(requests)
    now = utc_now()
    with transaction(conn):
        owned = own_keys(conn, study_id, [r.key for r in requests])
        rows = request_rows(owned, study_id, model_id, requests, now)
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO requests (key, study_id, model_id, stage, question_id, repetition, seed, "
            "payload_json, parent_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        new = conn.total_changes - before
        shared = [(mine, theirs) for theirs, mine in owned.items() if mine != theirs]
        if shared:
            conn.executemany(
                "INSERT OR IGNORE INTO responses (request_key, text, finish_reason, prompt_tokens, completion_tokens, "
                "logprobs_json, latency_s, model_identity, seed, started_at, finished_at, replaced_chars, shared_from) "
                "SELECT ?, text, finish_reason, prompt_tokens, completion_tokens, logprobs_json, latency_s, "
                "model_identity, seed, started_at, finished_at, replaced_chars, request_key "
                "FROM responses WHERE request_key = ?",
                shared,
            )
            conn.executemany(
                "UPDATE requests SET status = 'done', last_error = NULL, claimed_by = NULL, updated_at = ? "
                "WHERE key = ? AND status IN ('pending', 'failed') "
                "AND EXISTS (SELECT 1 FROM responses WHERE request_key = ?)",
                [(now, mine, mine) for mine, _ in shared],
            )
        return new


def supersede_others(conn: sqlite3.Connection, study_id: int, model_id: int, stage: str, keys: list[str]) -> int:
    """Mark the model's requests of this stage that are not in `keys` (the current
    plan, as computed; see `own_keys`) as superseded, and those in it as current.
    Returns how many are superseded."""
    with transaction(conn):
        keys = list(own_keys(conn, study_id, keys).values())
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS current_plan (key TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM current_plan")
        conn.executemany("INSERT OR IGNORE INTO current_plan (key) VALUES (?)", ((k,) for k in keys))
        conn.execute(
            "UPDATE requests SET superseded = (key NOT IN (SELECT key FROM current_plan)) "
            "WHERE study_id = ? AND model_id = ? AND stage = ?",
            (study_id, model_id, stage),
        )
        conn.execute("DELETE FROM current_plan")
        return conn.execute(
            "SELECT COUNT(*) FROM requests WHERE study_id = ? AND model_id = ? AND stage = ? AND superseded = 1",
            (study_id, model_id, stage),
        ).fetchone()[0]


def supersede_changed(
    conn: sqlite3.Connection, study_id: int, model_id: int, stage: str, current: list[str], dropped: list[str]
) -> tuple[set[str], set[str]]:
    """What `supersede_others` does to a plan that changed in part: the keys of the units
    planned again (`current`) are current, the keys no unit plans any more (`dropped`) are
    superseded, the model's other requests are left as they are. Returns both, as the study
    owns them (current, superseded)."""
    with transaction(conn):
        owned = own_keys(conn, study_id, current + dropped)
        now = {owned[k] for k in current}
        gone = {owned[k] for k in dropped} - now
        for value, keys in ((0, now), (1, gone)):
            conn.executemany(
                "UPDATE requests SET superseded = ? WHERE key = ? AND study_id = ? AND model_id = ? AND stage = ? "
                "AND superseded != ?",
                ((value, k, study_id, model_id, stage, value) for k in keys),
            )
        return now, gone


def requeue_failed(conn: sqlite3.Connection, study_id: int, model_ids: list[int]) -> int:
    """A new run gives failed requests another chance."""
    marks = ",".join("?" * len(model_ids))
    with transaction(conn):
        cur = conn.execute(
            f"UPDATE requests SET status = 'pending', claimed_by = NULL, updated_at = ? "
            f"WHERE study_id = ? AND model_id IN ({marks}) AND status = 'failed' AND superseded = 0",
            (utc_now(), study_id, *model_ids),
        )
        return cur.rowcount


def release_stale_claims(conn: sqlite3.Connection) -> int:
    """Requests left 'running' by a process that no longer exists go back to pending.

    A claim is stale when its holder ran on this host and its pid is gone. Claims
    of live processes (another `workbench run` on the same database) are left alone.
    """
    rows = conn.execute("SELECT DISTINCT claimed_by FROM requests WHERE status = 'running'").fetchall()
    stale = [owner for (owner,) in rows if owner_gone(owner)]
    released = 0
    with transaction(conn):
        for owner in stale:
            cur = conn.execute(
                "UPDATE requests SET status = 'pending', claimed_by = NULL "
                "WHERE status = 'running' AND claimed_by IS ?",
                (owner,),
            )
            released += cur.rowcount
    return released


def owner_gone(owner: str | None) -> bool:
    """Whether a claim's holder is known to be gone: none recorded, or a process of this host
    that no longer runs (a holder on another host cannot be told: it counts as alive)."""
    if owner is None:
        return True
    owner_host, _, pid = owner.rpartition(":")
    return owner_host == socket.gethostname() and not _pid_alive(pid)


def _pid_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); treat it as dead.
    try:
        with open(f"/proc/{int(pid)}/stat") as handle:
            return handle.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return True


def claim(
    conn: sqlite3.Connection, study_id: int, model_id: int, stage: str, owner: str, count: int
) -> list[sqlite3.Row]:
    """Mark up to `count` pending requests as running for `owner` and return them."""
    with transaction(conn):
        return conn.execute(
            "UPDATE requests SET status = 'running', claimed_by = ?, updated_at = ? "
            "WHERE key IN (SELECT key FROM requests WHERE study_id = ? AND model_id = ? AND stage = ? "
            "AND status = 'pending' AND superseded = 0 ORDER BY rowid LIMIT ?) "
            "RETURNING key, payload_json, seed, attempts",
            (owner, utc_now(), study_id, model_id, stage, count),
        ).fetchall()


def complete(
    conn: sqlite3.Connection,
    key: str,
    owner: str,
    *,
    text: str,
    finish_reason: str | None,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    logprobs: Any,
    latency_s: float,
    model_identity: str,
    seed: int | None,
    started_at: str,
    attempts: int,
    parallel: int | None = None,
    endpoint: str | None = None,
    served_model: str | None = None,
) -> bool:
    """Store a response and mark its request done, atomically. False if someone
    else already answered it (the response is then not stored twice).

    Values are made storable first (see `store.values`): a reply is never lost
    because a server sent a lone surrogate or a 70-bit token count."""
    now = utc_now()
    text, replaced = clean_text(text)
    try:
        logprobs_json = json.dumps(logprobs, default=repr) if logprobs is not None else None
    except (ValueError, TypeError, RecursionError):
        logprobs_json = None
    with transaction(conn):
        cur = conn.execute(
            "INSERT OR IGNORE INTO responses (request_key, text, finish_reason, prompt_tokens, "
            "completion_tokens, logprobs_json, latency_s, model_identity, seed, started_at, finished_at, "
            "replaced_chars, parallel, endpoint, served_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                text,
                clean_label(finish_reason),
                clean_count(prompt_tokens),
                clean_count(completion_tokens),
                logprobs_json,
                clean_float(latency_s),
                model_identity,
                clean_int(seed),
                started_at,
                now,
                replaced,
                clean_int(parallel),
                clean_label(endpoint, 2048),
                clean_label(served_model, 256),
            ),
        )
        conn.execute(
            "UPDATE requests SET status = 'done', attempts = attempts + ?, last_error = NULL, "
            "claimed_by = NULL, updated_at = ? WHERE key = ?",
            (attempts, now, key),
        )
        return cur.rowcount == 1


def record_error(conn: sqlite3.Connection, key: str, attempt: int, code: str, message: str) -> None:
    """An error a request met that a retry may still survive (its code, e.g. http_429, in `kind`)."""
    code, message = clean_text(code)[0], redact(clean_text(message)[0])
    with transaction(conn):
        conn.execute(
            "INSERT INTO request_errors (request_key, attempt, kind, message, final, at) VALUES (?, ?, ?, ?, 0, ?)",
            (key, attempt, code, message, utc_now()),
        )


def fail(conn: sqlite3.Connection, key: str, attempts: int, code: str, message: str) -> None:
    """Give up on a request for this run, keeping the reason."""
    now = utc_now()
    code, message = clean_text(code)[0], redact(clean_text(message)[0])
    with transaction(conn):
        conn.execute(
            "INSERT INTO request_errors (request_key, attempt, kind, message, final, at) VALUES (?, ?, ?, ?, 1, ?)",
            (key, attempts, code, message, now),
        )
        conn.execute(
            "UPDATE requests SET status = 'failed', attempts = attempts + ?, last_error = ?, "
            "claimed_by = NULL, updated_at = ? WHERE key = ?",
            (attempts, f"{code}: {message}", now, key),
        )


def release(conn: sqlite3.Connection, keys: list[str], owner: str) -> int:
    """Give unfinished claims back (on cancel), so the next run takes them."""
    if not keys:
        return 0
    with transaction(conn):
        total = 0
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            cur = conn.execute(
                f"UPDATE requests SET status = 'pending', claimed_by = NULL "
                f"WHERE status = 'running' AND claimed_by = ? AND key IN ({','.join('?' * len(chunk))})",
                (owner, *chunk),
            )
            total += cur.rowcount
        return total
