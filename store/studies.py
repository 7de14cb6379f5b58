"""A study's row as the methods read it: its id, its name and the study as last stored.

The spec is decoded here once, so no method parses `studies.spec_json` or queries the
table itself (`queue.upsert_study` and `queue.ensure_study` write it)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any


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
