"""`workbench import entities`: regions and attributes, read and stored a chunk at a time.

Rows that name one entity (one name after normalisation, or two spellings of one entity) are
one row if they agree. To tell, each entity's values so far are kept in a scratch table of the
connection (a TEMP table, which SQLite keeps in a file of its own, not in memory), numbered in
the order the file first names the entity; a chunk of rows is merged with what the entities it
names held before. Only once the whole file is read are the entities stored, a chunk at a time
in one transaction: a file refused at its last line leaves nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbench.asking.extract import normalize_surface
from workbench.files.csv_input import CHUNK, CsvInputError, ImportError_, name_cell, read_rows
from workbench.store.db import transaction
from workbench.store.entities import mentions
from workbench.store.entities.regions import RegionError, canonical_region, known_regions
from workbench.store.requests.staging import scratch

# `entity_import_merged`: each entity the file names, by ("entity", its id) or ("name", the
# normalised name of one the store has not yet), with its first line and its merged values;
# `entity_import_chunk`: the entities one chunk names. `key` has no type: an id or a name.
SCRATCH = (
    "CREATE TEMP TABLE entity_import_merged (no INTEGER PRIMARY KEY, kind TEXT, key, line INTEGER, "
    "row_json TEXT, UNIQUE (kind, key))",
    "CREATE TEMP TABLE entity_import_chunk (kind TEXT, key)",
)
TABLES = ("entity_import_merged", "entity_import_chunk")


def import_entities(conn: sqlite3.Connection, path: Path, new_regions: bool = False) -> dict[str, Any]:
    """See `choice.data.import_entities`."""
    try:
        with scratch(conn):
            for sql in SCRATCH:
                conn.execute(sql)
        _stage(conn, path, known_regions(conn), new_regions)
        updated, unmatched = 0, []
        with transaction(conn):
            for rows in _merged_chunks(conn):
                done, names = mentions.set_entity_attributes(conn, rows, new_regions=new_regions)
                updated += done
                unmatched += names
        return {"updated": updated, "unmatched": unmatched, "without_region": mentions.entities_without_region(conn)}
    finally:
        with scratch(conn):
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS temp.{table}")


def _stage(conn: sqlite3.Connection, path: Path, known: list[str], new_regions: bool) -> None:
    """Read, check and merge the file a chunk at a time. A file that cannot be read as CSV is
    refused for that first (as it was when the file was read whole before any row was checked),
    then the first row at fault."""
    rows = _read(path)
    chunk: list[tuple] = []
    refusal = None
    try:
        for line, row in rows:
            try:
                chunk.append((line, *_checked(conn, path, line, row, known, new_regions)))
            except ImportError_ as exc:
                refusal = exc
                break
            if len(chunk) >= CHUNK:
                with scratch(conn):
                    _merge_chunk(conn, path, chunk)
                chunk = []
        with scratch(conn):  # the rows before a refused one: one of them may be at fault first
            _merge_chunk(conn, path, chunk)
    except ImportError_ as exc:
        refusal = exc
    if refusal is not None:
        for _row in rows:  # the rest of the file: a fault of its CSV is named first
            pass
        raise refusal


def _read(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        yield from read_rows(path, ("name", "region"))
    except CsvInputError as exc:
        raise ImportError_(str(exc)) from None


def _checked(
    conn: sqlite3.Connection, path: Path, line: int, row: dict[str, str], known: list[str], new_regions: bool
) -> tuple[tuple, str, dict[str, str]]:
    """The row's entity key, its name and the values it gives (region in the vocabulary's spelling)."""
    try:
        name = " ".join(name_cell(path, line, "name", row["name"]).split())
    except CsvInputError as exc:
        raise ImportError_(str(exc)) from None
    if not name:
        raise ImportError_(f"{path}: line {line}: the name is empty; every row names one entity")
    try:
        region = canonical_region(row["region"], known, allow_new=new_regions)
    except RegionError as exc:
        raise ImportError_(f"{path}: line {line}: {exc}; pass --new-region to add new regions deliberately") from None
    if region is not None and region not in known:
        known.append(region)  # a new region, spelt as its first row spells it
    values = {k: v.strip() for k, v in row.items() if k not in ("name", "region") and v.strip()}
    if region is not None:
        values["region"] = region
    entity_id = mentions.entity_of_name(conn, name)
    key = ("entity", entity_id) if entity_id is not None else ("name", normalize_surface(name))
    return key, name, values


def _merge_chunk(conn: sqlite3.Connection, path: Path, chunk: list[tuple]) -> None:
    """Merge one chunk's rows with what the entities they name held before; refuse the first
    row that gives an entity another value than an earlier row (an empty cell gives none)."""
    conn.execute("DELETE FROM entity_import_chunk")
    conn.executemany("INSERT INTO entity_import_chunk VALUES (?, ?)", [key for _line, key, _name, _v in chunk])
    merged: dict[tuple, tuple[int, dict[str, str]]] = {
        (kind, key): (line, json.loads(row))
        for kind, key, line, row in conn.execute(
            "SELECT m.kind, m.key, m.line, m.row_json FROM entity_import_merged m "
            "JOIN entity_import_chunk c ON c.kind = m.kind AND c.key = m.key ORDER BY m.no"
        )
    }
    for line, key, name, values in chunk:
        if key not in merged:
            merged[key] = (line, {"name": name, **values})
            continue
        first_line, first = merged[key]
        for column, value in values.items():
            if first.get(column, value) != value:
                same = "" if first["name"] == name else f" (the same entity as {first['name']!r})"
                raise ImportError_(
                    f"{path}: line {line}: {name!r}{same} has {column} {value!r} here and "
                    f"{first[column]!r} on line {first_line}; give each entity one row, or the same values"
                )
        first.update(values)
    # Entities named before keep their number; new ones are numbered in the order the chunk names them.
    conn.executemany(
        "INSERT INTO entity_import_merged (kind, key, line, row_json) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (kind, key) DO UPDATE SET row_json = excluded.row_json",
        [(*key, line, json.dumps(values)) for key, (line, values) in merged.items()],
    )


def _merged_chunks(conn: sqlite3.Connection) -> Iterator[list[dict[str, str]]]:
    """The merged entities in the order the file first names them, CHUNK at a time."""
    after = 0
    while chunk := conn.execute(
        "SELECT no, row_json FROM entity_import_merged WHERE no > ? ORDER BY no LIMIT ?", (after, CHUNK)
    ).fetchall():
        after = chunk[-1][0]
        yield [json.loads(row) for _no, row in chunk]
