"""The studies and models tables: a study's row as the methods read it (its id, its name and
the study as last stored), the lookups the commands and screens need, and their writes.

The spec is decoded here once, so no method parses `studies.spec_json` or queries the
table itself (`upsert_study` and `ensure_study` write it). The requests planned for them
are the queue's (store/requests/queue.py)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from workbench.store.db import transaction, utc_now


@dataclass(frozen=True)
class StudyRow:
    id: int
    name: str
    spec: dict[str, Any]  # the study as parsed when it was last run or imported


def study_rows(conn: sqlite3.Connection, name: str | None = None) -> list[StudyRow]:
    """Every study (or the one named), by name."""
    where, args = ("WHERE name = ?", (name,)) if name else ("", ())
    return [
        StudyRow(study_id, study_name, json.loads(spec_json or "{}"))
        for study_id, study_name, spec_json in conn.execute(
            f"SELECT id, name, spec_json FROM studies {where} ORDER BY name", args
        )
    ]


def study_spec(conn: sqlite3.Connection, name: str) -> dict[str, Any]:
    """The named study as last stored; empty when there is no such study yet."""
    row = conn.execute("SELECT spec_json FROM studies WHERE name = ?", (name,)).fetchone()
    return json.loads(row[0]) if row else {}


def study_names_by_id(conn: sqlite3.Connection) -> dict[int, str]:
    return dict(conn.execute("SELECT id, name FROM studies").fetchall())


def upsert_study(
    conn: sqlite3.Connection, name: str, method: str, spec: dict[str, Any], source_path: str | None
) -> int:
    now = utc_now()
    with transaction(conn):
        row = conn.execute("SELECT id FROM studies WHERE name = ?", (name,)).fetchone()
        if row:
            conn.execute(
                "UPDATE studies SET method = ?, spec_json = ?, source_path = ?, updated_at = ? WHERE id = ?",
                (method, json.dumps(spec), source_path, now, row["id"]),
            )
            return row["id"]
        cur = conn.execute(
            "INSERT INTO studies (name, method, source_path, spec_json, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (name, method, source_path, json.dumps(spec), now, now),
        )
        return cur.lastrowid


def upsert_model(
    conn: sqlite3.Connection,
    *,
    identity: str,
    spec: str,
    engine: str,
    name: str,
    base_url: str | None,
    file_path: str | None,
    file_hash: str | None,
    params: dict[str, Any],
) -> int:
    with transaction(conn):
        row = conn.execute("SELECT id FROM models WHERE identity = ?", (identity,)).fetchone()
        if row:
            return row["id"]
        cur = conn.execute(
            "INSERT INTO models (identity, spec, engine, name, base_url, file_path, file_hash, "
            "params_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (identity, spec, engine, name, base_url, file_path, file_hash, json.dumps(params), utc_now()),
        )
        return cur.lastrowid


def study_id(conn: sqlite3.Connection, name: str) -> int | None:
    row = conn.execute("SELECT id FROM studies WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def study_method(conn: sqlite3.Connection, name: str) -> str | None:
    """The method the named study was stored with (None: no such study)."""
    row = conn.execute("SELECT method FROM studies WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def study_methods(conn: sqlite3.Connection) -> list[str]:
    """The methods of the stored studies, each once, in the order of the studies."""
    return list(dict.fromkeys(r[0] for r in conn.execute("SELECT method FROM studies ORDER BY id")))


def model_label(conn: sqlite3.Connection, model_id: int) -> str:
    """The spec a model was first registered with: the label its results are stored under,
    kept when its replicas (and so its spec) change, so one model never splits in two."""
    return conn.execute("SELECT spec FROM models WHERE id = ?", (model_id,)).fetchone()[0]


def study_identities(conn: sqlite3.Connection, name: str) -> list[str]:
    """The model identities a study's requests were planned for (none for a new study)."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT m.identity FROM requests r JOIN models m ON m.id = r.model_id "
            "JOIN studies s ON s.id = r.study_id WHERE s.name = ?",
            (name,),
        )
    ]


def study_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM studies ORDER BY name")]


def ensure_study(conn: sqlite3.Connection, name: str, method: str) -> int:
    """The study's id; a new one is created bare, of its importer's `method`."""
    found = study_id(conn, name)
    if found is not None:
        return found
    return upsert_study(conn, name, method, {"name": name, "method": method, "imported": True}, None)


def model_specs(conn: sqlite3.Connection) -> list[str]:
    """The specs of the models the store holds, in the order they came."""
    return [r[0] for r in conn.execute("SELECT spec FROM models ORDER BY id")]
