"""Entities, their surface forms, and the ranked lists metrics are computed from."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

from workbench.store.current_lists import counts_now
from workbench.store.db import transaction, tuples, utc_now
from workbench.store.entities.names import ensure_entities  # noqa: F401  (where importers find it)
from workbench.store.reads.change_log import changed_lists, lists_version  # noqa: F401  (where readers find them)
from workbench.store.review.verdicts import settle_lists


@dataclass(frozen=True)
class MentionList:
    model: str
    topic: str
    cluster: str | None
    question: str
    repetition: int
    source: str  # vote | list | import
    surfaces: list[tuple[str, str, int | None]]  # (surface, surface_key, votes), ranked
    response_key: str | None = None
    n_experts: int | None = None
    agreement: float | None = None
    ungrounded: list[str] | None = None  # voted, not found in the answer (dropped or flagged)
    extracted_with: str | None = None  # the digest of the extraction's settings (None: imported)
    flagged: list[dict] | None = None  # gazetteer: names found only by near spellings or common words


def store_lists(conn: sqlite3.Connection, study_id: int, lists: Iterable[MentionList]) -> int:
    """Insert or replace ranked lists (one per answer) in one transaction."""
    return store_list_chunks(conn, study_id, [list(lists)])


def store_list_chunks(conn: sqlite3.Connection, study_id: int, chunks: Iterable[list[MentionList]]) -> int:
    """`store_lists` of many lists, given a chunk at a time (an import of a million rows
    holds one chunk, not the file), in one transaction: stored as one call would."""
    stored = 0
    with transaction(conn):
        # A first import into a study replaces nothing: skip a lookup per list. Asked once,
        # before the first chunk: a later chunk's lists are no less new.
        replacing = conn.execute("SELECT 1 FROM mention_lists WHERE study_id = ? LIMIT 1", (study_id,)).fetchone()
        for chunk in chunks:
            _store_chunk(conn, study_id, chunk, bool(replacing))
            stored += len(chunk)
    return stored


def _store_chunk(conn: sqlite3.Connection, study_id: int, lists: list[MentionList], replacing: bool) -> None:
    ensure_entities(conn, ((s, k) for item in lists for s, k, _ in item.surfaces))
    stored: list[int] = []
    for item in lists:
        if replacing:
            conn.execute(
                "DELETE FROM mention_lists WHERE study_id = ? AND model = ? AND topic = ? AND question = ? "
                "AND repetition = ?",
                (study_id, item.model, item.topic, item.question, item.repetition),
            )
        list_id = conn.execute(
            "INSERT INTO mention_lists (study_id, model, topic, cluster, question, repetition, source, "
            "response_key, n_experts, agreement, ungrounded_json, extracted_with, flagged_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                study_id,
                item.model,
                item.topic,
                item.cluster,
                item.question,
                item.repetition,
                item.source,
                item.response_key,
                item.n_experts,
                item.agreement,
                json.dumps(item.ungrounded, ensure_ascii=False) if item.ungrounded else None,
                item.extracted_with,
                json.dumps(item.flagged, ensure_ascii=False) if item.flagged else None,
            ),
        ).lastrowid
        conn.executemany(
            "INSERT INTO mentions (list_id, rank, surface, surface_key, votes) VALUES (?, ?, ?, ?, ?)",
            [(list_id, rank, s, k, v) for rank, (s, k, v) in enumerate(item.surfaces, start=1)],
        )
        stored.append(list_id)
    # Reviewers' verdicts outlive the lists they judged: re-applied to the new ones.
    settle_lists(conn, study_id, stored)


def load_lists(conn: sqlite3.Connection, study_id: int) -> Iterator[tuple[Any, ...]]:
    """(model, topic, cluster, question, repetition, [canonical entity names], [slots]) per
    answer: entities resolved through the alias registry and de-duplicated within a list,
    and the same names slot by slot, repeats kept ("Nike Pegasus", "Nike Vomero" -> Nike twice).

    Two flat queries (lists, then mentions as integer pairs) keep this fast on
    stores with millions of mentions.
    """
    lists = conn.execute(
        """
        SELECT l.id, l.model, l.topic, l.cluster, l.question, l.repetition
        FROM mention_lists l LEFT JOIN requests r ON r.key = l.response_key
        WHERE l.study_id = ? AND COALESCE(r.superseded, 0) = 0
        ORDER BY l.id
        """,
        (study_id,),
    ).fetchall()
    names = dict(conn.execute("SELECT id, name FROM entities").fetchall())
    entities: dict[int, list[str]] = {}
    rows = conn.execute(
        """
        SELECT m.list_id, a.entity_id FROM mentions m
        JOIN mention_lists l ON l.id = m.list_id
        JOIN aliases a ON a.surface_key = m.surface_key
        WHERE l.study_id = ?
        ORDER BY m.list_id, m.rank
        """,
        (study_id,),
    )
    slots: dict[int, list[str]] = {}
    for list_id, group in groupby(rows, key=itemgetter(0)):  # rows come ordered by list
        named = [names[entity_id] for _, entity_id in group]
        slots[list_id] = named
        entities[list_id] = list(dict.fromkeys(named))  # first mention of each, in rank order
    for list_id, model, topic, cluster, question, repetition in lists:
        yield model, topic, cluster, question, repetition, entities.get(list_id, []), slots.get(list_id, [])


def _only(ids: list[int] | None, column: str) -> tuple[str, tuple]:
    return ("", ()) if ids is None else (f" AND {column} IN (SELECT value FROM json_each(?))", (json.dumps(ids),))


def list_rows(conn: sqlite3.Connection, study_id: int, ids: list[int] | None = None) -> list[tuple]:
    """(id, model, topic, cluster, repetition, question) of the study's lists (or of `ids`
    among them) that count: a superseded request's list does not."""
    only, args = _only(ids, "l.id")
    return tuples(
        conn,
        f"""
        SELECT l.id, l.model, l.topic, l.cluster, l.repetition, l.question FROM mention_lists l
        WHERE l.study_id = ?{only} AND {counts_now("l")}
        """,
        (study_id, *args),
    )


def mention_rows(conn: sqlite3.Connection, study_id: int, ids: list[int] | None = None) -> list[tuple]:
    """(list id, rank, surface key) of the study's mentions (or of lists `ids`)."""
    only, args = _only(ids, "m.list_id")
    if ids is None:
        return tuples(
            conn,
            "SELECT m.list_id, m.rank, m.surface_key FROM mentions m "
            "WHERE m.list_id IN (SELECT id FROM mention_lists WHERE study_id = ?)",
            (study_id,),
        )
    return tuples(conn, f"SELECT m.list_id, m.rank, m.surface_key FROM mentions m WHERE 1{only}", args)


def resolution(conn: sqlite3.Connection) -> tuple[dict[str, int], dict[int, str]]:
    """(surface key -> entity id, entity id -> canonical name): how every spelling reads now."""
    return dict(conn.execute("SELECT surface_key, entity_id FROM aliases")), dict(
        conn.execute("SELECT id, name FROM entities")
    )


def database_file(conn: sqlite3.Connection) -> str:
    return conn.execute("PRAGMA database_list").fetchone()[2]


def regions(conn: sqlite3.Connection) -> dict[str, str | None]:
    """Each entity's region in its canonical spelling (a store may hold "USA" and
    "united states " from before imports checked regions: both read "United States")."""
    from workbench.store.entities.regions import canonical_spellings

    stored = conn.execute("SELECT name, region FROM entities").fetchall()
    spelling = canonical_spellings(region for _name, region in stored)
    return {name: None if region is None else spelling[region] for name, region in stored}


def entity_of_name(conn: sqlite3.Connection, name: str) -> int | None:
    """The entity a name in an imported file means: the one its surface form belongs to
    (after a merge, the entity it was merged into), else the entity of that name (one a
    merge created under a new name); None when there is none yet."""
    from workbench.store.surface import normalize_surface

    hit = conn.execute("SELECT entity_id FROM aliases WHERE surface_key = ?", (normalize_surface(name),)).fetchone()
    if hit is None:
        hit = conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
    return None if hit is None else hit[0]


def set_entity_attributes(
    conn: sqlite3.Connection, rows: list[dict[str, Any]], new_regions: bool = False
) -> tuple[int, list[str]]:
    """Assign region and attributes by entity name (or any surface form of it).
    Regions are written in the vocabulary's spelling (store/entities/regions.py); a region not
    in it is refused (RegionError, nothing written) unless `new_regions`. An empty
    value never overwrites a stored one. Returns (entities updated, names in the file
    that match no entity yet: those are kept and applied when an entity with that name
    appears)."""
    from workbench.store.entities.regions import canonical_region, known_regions
    from workbench.store.surface import normalize_surface

    def given(row: dict[str, Any]) -> dict[str, Any]:  # the attributes the row has a value for
        return {
            k: v.strip() if isinstance(v, str) else v
            for k, v in row.items()
            if k not in ("name", "region") and v is not None and (not isinstance(v, str) or v.strip())
        }

    updated, unmatched = 0, []
    with transaction(conn):
        known = known_regions(conn)
        for row in rows:
            name = row["name"]
            region = canonical_region(row.get("region"), known, allow_new=new_regions)
            if region is not None and region not in known:
                known.append(region)
            entity_id = entity_of_name(conn, name)
            if entity_id is None:
                # Kept for later: entities appear when mentions are imported or extracted.
                key = normalize_surface(name)
                before = conn.execute(
                    "SELECT region, attributes_json FROM pending_attributes WHERE surface_key = ?", (key,)
                ).fetchone()
                old_region, old_attributes = before if before else (None, "{}")
                conn.execute(
                    "INSERT OR REPLACE INTO pending_attributes (surface_key, name, region, attributes_json, "
                    "imported_at) VALUES (?, ?, ?, ?, ?)",
                    (
                        key,
                        name,
                        region or old_region,
                        json.dumps({**json.loads(old_attributes), **given(row)}),
                        utc_now(),
                    ),
                )
                unmatched.append(name)
                continue
            old_region, old_attributes = conn.execute(
                "SELECT region, attributes_json FROM entities WHERE id = ?", (entity_id,)
            ).fetchone()
            conn.execute(
                "UPDATE entities SET region = ?, attributes_json = ? WHERE id = ?",
                (region or old_region, json.dumps({**json.loads(old_attributes), **given(row)}), entity_id),
            )
            updated += 1
    return updated, unmatched


def entities_without_region(conn: sqlite3.Connection, study_id: int | None = None) -> list[tuple[str, int]]:
    """Entities mentioned (in this study) that have no region yet, most mentioned first: in the
    lists that count now (a superseded request's are not read by any number)."""
    where, args = ("AND l.study_id = ?", (study_id,)) if study_id is not None else ("", ())
    return conn.execute(
        f"""
        SELECT e.name, COUNT(*) AS n FROM mentions m
        JOIN mention_lists l ON l.id = m.list_id
        JOIN aliases a ON a.surface_key = m.surface_key
        JOIN entities e ON e.id = a.entity_id
        WHERE e.region IS NULL AND {counts_now("l")} {where}
        GROUP BY e.name ORDER BY n DESC, e.name
        """,
        args,
    ).fetchall()
