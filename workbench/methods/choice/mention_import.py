"""`workbench import mentions`: top-K lists made elsewhere, read and stored a chunk at a time.

A file of a million rows is never held whole: its rows are checked as they are read and
staged, a chunk at a time, in scratch tables of the connection (TEMP tables, which SQLite
keeps in a file of its own, not in memory), where the checks that span rows (a question in
two clusters, a rank given twice in one list) are made with SQL against everything staged
before. Only then are the lists built from the scratch tables, in the order the file first
names them, and stored a chunk at a time in one transaction of the store: a file refused at
its last line leaves nothing, and the refusal names the first line at fault, as it would if
the file were read whole.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path

from workbench.asking.extract import normalize_surface
from workbench.files.csv_input import CHUNK, CsvInputError, ImportError_, Progress, name_cell, read_rows, whole
from workbench.store.db import transaction
from workbench.store.entities import mentions
from workbench.store.entities.mentions import MentionList
from workbench.store.requests.staging import scratch
from workbench.store.requests.studies import ensure_study

MENTION_COLUMNS = ("model", "topic", "cluster", "question_id", "repetition", "rank", "entity")
LISTS_PER_CHUNK = 2_000  # lists stored at a time (a list is a handful of rows)

# The scratch tables, one import's at a time on a connection. `mention_import_rows` holds one
# chunk of the file; `_questions` each question's cluster as its first row gave it; `_lists`
# each list, numbered in the order the file first names it; `_items` every named slot.
SCRATCH = (
    "CREATE TEMP TABLE mention_import_rows (line INTEGER PRIMARY KEY, model TEXT, topic TEXT, cluster TEXT, "
    "question TEXT, repetition INTEGER, rank INTEGER, entity TEXT, surface_key TEXT)",
    "CREATE TEMP TABLE mention_import_questions (topic TEXT, question TEXT, cluster TEXT, line INTEGER, "
    "PRIMARY KEY (topic, question)) WITHOUT ROWID",
    "CREATE TEMP TABLE mention_import_lists (no INTEGER PRIMARY KEY, model TEXT, topic TEXT, question TEXT, "
    "repetition INTEGER, cluster TEXT, UNIQUE (model, topic, question, repetition))",
    "CREATE TEMP TABLE mention_import_items (list_no INTEGER, rank INTEGER, entity TEXT, surface_key TEXT, "
    "PRIMARY KEY (list_no, rank)) WITHOUT ROWID",
)
TABLES = ("mention_import_rows", "mention_import_questions", "mention_import_lists", "mention_import_items")

# Where two refusals fall on one line, the one the row's checks make first: its cluster, then
# its entity, then its rank.
CLUSTER, ROW, RANK = 0, 1, 2


def import_mentions(conn: sqlite3.Connection, study: str, path: Path, progress: Progress | None = None) -> dict:
    """Top-K lists extracted elsewhere: one row per (response, rank). A response with
    no recommendation is one row with an empty entity and rank. The whole file is
    read and checked before anything is stored, and stored in one transaction.

    A response (model x topic x question x repetition) is one unit: re-imported, it
    replaces the stored list whole. Every row is one recommendation slot, so a spelling
    repeated in one list is kept at each of its ranks, as a merge of two spellings into
    one entity keeps both slots (the log-odds count slots; PEIR counts the answer once).
    A question belongs to one cluster, in the file and in the study."""
    try:
        with scratch(conn):
            for sql in SCRATCH:
                conn.execute(sql)
        if not _stage(conn, path, progress):
            raise ImportError_(
                f"{path}: no rows after the header; expected one row per (response, rank): {','.join(MENTION_COLUMNS)}"
            )
        got = {"responses": 0, "mentions": 0, "empty": 0}
        with transaction(conn):
            study_id = ensure_study(conn, study, "choice")
            mentions.store_list_chunks(conn, study_id, _list_chunks(conn, got, progress))
            _refuse_moved_clusters(conn, study, study_id, path)
        return got
    finally:
        with scratch(conn):
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS temp.{table}")


def _checked(path: Path, progress: Progress | None) -> Iterator[tuple[tuple, ImportError_ | None]]:
    """Each row as it is staged, with the refusal of its entity (the row is staged without
    it, for the checks of its cluster); a refusal of the row itself is raised."""
    try:
        for line, row in read_rows(path, MENTION_COLUMNS, progress):
            # Both count from 1, as a run numbers them: the first repetition, the first recommendation.
            repetition = whole(path, line, "repetition", row["repetition"], 1)
            rank = whole(path, line, "rank", row["rank"], 1) if row["rank"].strip() else None
            entity = name_cell(path, line, "entity", row["entity"] or "")
            key = normalize_surface(entity) if entity else ""
            staged = (line, row["model"], row["topic"], row["cluster"] or None, row["question_id"], repetition, rank)
            if entity and rank is None:
                yield (
                    (*staged, "", ""),
                    ImportError_(
                        f"{path}: line {line}: entity {entity!r} has no rank; give its rank (a response with no "
                        "recommendation is one row with both rank and entity empty)"
                    ),
                )
                return
            if entity and not key:
                yield (
                    (*staged, "", ""),
                    ImportError_(
                        f"{path}: line {line}: entity {entity!r} has no letters or digits, so it names nothing; "
                        "leave the row out, or give the name"
                    ),
                )
                return
            yield (*staged, entity, key), None
    except CsvInputError as exc:
        raise ImportError_(str(exc)) from None


def _stage(conn: sqlite3.Connection, path: Path, progress: Progress | None) -> int:
    """Read, check and stage the file a chunk at a time; raise the refusal of its first line at
    fault. The rows staged."""
    rows = _checked(path, progress)
    more, staged = True, 0
    while more:
        chunk: list[tuple] = []
        refusals: list[tuple[float, int, ImportError_]] = []
        try:
            for row, refusal in rows:
                chunk.append(row)
                if refusal is not None:
                    refusals.append((row[0], ROW, refusal))
                    break
                if len(chunk) >= CHUNK:
                    break
            else:
                more = False
        except ImportError_ as exc:  # a row that cannot be read: after every row staged
            refusals.append((float("inf"), ROW, exc))
        with scratch(conn):
            refusals += _stage_chunk(conn, path, chunk)
        if refusals:
            raise min(refusals, key=lambda found: found[:2])[2]
        staged += len(chunk)
    return staged


def _stage_chunk(conn: sqlite3.Connection, path: Path, chunk: list[tuple]) -> list[tuple[int, int, ImportError_]]:
    """Stage one chunk; the refusals of its rows that earlier rows (of this chunk or before) call for."""
    conn.execute("DELETE FROM mention_import_rows")
    conn.executemany("INSERT INTO mention_import_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
    conn.execute(
        "INSERT OR IGNORE INTO mention_import_questions SELECT topic, question, cluster, line "
        "FROM mention_import_rows ORDER BY line"
    )
    conn.execute(
        "INSERT OR IGNORE INTO mention_import_lists (model, topic, question, repetition, cluster) "
        "SELECT model, topic, question, repetition, cluster FROM mention_import_rows ORDER BY line"
    )
    found = []
    moved = conn.execute(
        "SELECT r.line, r.topic, r.question, r.cluster, q.cluster, q.line FROM mention_import_rows r "
        "JOIN mention_import_questions q ON q.topic = r.topic AND q.question = r.question "
        "WHERE r.cluster IS NOT q.cluster ORDER BY r.line LIMIT 1"
    ).fetchone()
    if moved is not None:  # one question in two clusters: a mix-up
        line, topic, question, cluster, first_cluster, first_line = moved
        found.append(
            (
                line,
                CLUSTER,
                ImportError_(
                    f"{path}: line {line}: question_id {question!r} of topic {topic!r} is under cluster "
                    f"{cluster!r} here and {first_cluster!r} on line {first_line}; a question belongs to one "
                    "cluster: give each question its own id"
                ),
            )
        )
    twice = _rank_twice(conn, chunk)
    if twice is not None:
        line, model, question, repetition, rank = twice
        found.append(
            (
                line,
                RANK,
                ImportError_(
                    f"{path}: line {line}: rank {rank} appears twice for question_id {question!r} "
                    f"(model {model!r}, repetition {repetition}); each rank holds one entity"
                ),
            )
        )
    conn.execute(
        "INSERT OR IGNORE INTO mention_import_items SELECT l.no, r.rank, r.entity, r.surface_key "
        "FROM mention_import_rows r JOIN mention_import_lists l ON l.model = r.model AND l.topic = r.topic "
        "AND l.question = r.question AND l.repetition = r.repetition WHERE r.entity != '' ORDER BY r.line"
    )
    return found


def _rank_twice(conn: sqlite3.Connection, chunk: list[tuple]) -> tuple | None:
    """(line, model, question, repetition, rank) of the chunk's first row naming an entity at a
    rank its list already holds, in an earlier chunk or earlier in this one."""
    earlier = conn.execute(
        "SELECT r.line, r.model, r.question, r.repetition, r.rank FROM mention_import_rows r "
        "JOIN mention_import_lists l ON l.model = r.model AND l.topic = r.topic AND l.question = r.question "
        "AND l.repetition = r.repetition JOIN mention_import_items i ON i.list_no = l.no AND i.rank = r.rank "
        "WHERE r.entity != '' ORDER BY r.line LIMIT 1"
    ).fetchone()
    held: set[tuple] = set()
    for line, model, topic, _cluster, question, repetition, rank, entity, _key in chunk:
        if earlier is not None and line >= earlier[0]:
            break
        if entity:
            slot = (model, topic, question, repetition, rank)
            if slot in held:
                return line, model, question, repetition, rank
            held.add(slot)
    return None if earlier is None else tuple(earlier)


def _list_chunks(conn: sqlite3.Connection, got: dict[str, int], progress: Progress | None) -> Iterator[list]:
    """The staged lists, in the order the file first names them, LISTS_PER_CHUNK at a time;
    `got` counts them as they go."""
    total = conn.execute("SELECT COUNT(*) FROM mention_import_lists").fetchone()[0]
    rows = conn.execute(
        "SELECT l.no, l.model, l.topic, l.cluster, l.question, l.repetition, i.entity, i.surface_key "
        "FROM mention_import_lists l LEFT JOIN mention_import_items i ON i.list_no = l.no ORDER BY l.no, i.rank"
    )
    chunk: list[MentionList] = []
    for _no, group in groupby(rows, key=lambda row: row[0]):
        slots = list(group)
        _, model, topic, cluster, question, repetition, _, _ = slots[0]
        surfaces = [(entity, key, None) for *_, entity, key in slots if entity is not None]
        chunk.append(MentionList(model, topic, cluster, question, repetition, "import", surfaces))
        got["responses"] += 1
        got["mentions"] += len(surfaces)
        got["empty"] += not surfaces
        if len(chunk) >= LISTS_PER_CHUNK:
            yield chunk
            chunk = []
            if progress is not None:
                progress("storing lists", got["responses"], total)
    if chunk:
        yield chunk
    if progress is not None:
        progress("storing lists", got["responses"], total)


def _refuse_moved_clusters(conn: sqlite3.Connection, study: str, study_id: int, path: Path) -> None:
    """Refuse the import (its transaction is rolled back) when a question of the file is
    under another cluster in lists of the study that the file did not replace."""
    moved = conn.execute(
        "SELECT g.topic, g.question, g.cluster, g.model, g.repetition, q.cluster, q.line FROM ("
        "  SELECT topic, question, cluster, model, MIN(repetition) AS repetition FROM mention_lists "
        "  WHERE study_id = ? GROUP BY topic, question, cluster"
        ") g JOIN mention_import_questions q ON q.topic = g.topic AND q.question = g.question "
        "WHERE g.cluster IS NOT q.cluster ORDER BY g.topic, g.question, g.cluster LIMIT 1",
        (study_id,),
    ).fetchone()
    if moved is not None:
        topic, question, cluster, model, repetition, mine, line = moved
        raise ImportError_(
            f"{path}: line {line}: question_id {question!r} of topic {topic!r} is under cluster "
            f"{mine!r} here but under cluster {cluster!r} in study {study!r} already (model {model!r}, "
            f"repetition {repetition}); a question belongs to one cluster: give each question its own "
            "id, or re-import all of its lists under one cluster; nothing was imported"
        )
