"""Imports and metric tables for ChoiceEval studies (the CLI and the TUI call these)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from workbench.files.csv_input import CsvInputError, ImportError_, read_rows
from workbench.methods.choice.arrays import ListArrays, only_groups, topic_counts
from workbench.methods.choice.counts import TopicCounts
from workbench.methods.choice.metrics import DEFAULT_REGION_PAIRS, records_of_counts
from workbench.methods.choice.records import ChoiceRecord
from workbench.methods.choice.study import Question, default_clusters, read_question_file
from workbench.metrics.clustered import answer_unit
from workbench.metrics.intervals import resamples
from workbench.store.db import reads_committed
from workbench.store.entities import mention_export, mentions
from workbench.store.requests import questions as question_store
from workbench.store.requests.studies import ensure_study, study_rows, study_spec
from workbench.studies.spec import StudyError, Where


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """The file's rows as they are read (never held whole), a CSV fault refused as an import's."""
    try:
        yield from read_rows(path, required)
    except CsvInputError as exc:
        raise ImportError_(str(exc)) from None


def import_mentions(conn: sqlite3.Connection, study: str, path: Path, progress=None) -> dict[str, int]:
    """Top-K lists extracted elsewhere, read and stored a chunk at a time, in one
    transaction (see workbench/methods/choice/mention_import.py)."""
    from workbench.methods.choice.mention_import import import_mentions as streamed

    return streamed(conn, study, path, progress)


def import_entities(conn: sqlite3.Connection, path: Path, new_regions: bool = False) -> dict[str, Any]:
    """name, region, any attribute columns. Returns counts and the names that matched nothing.

    The whole file is checked before anything is stored, in one transaction; it is read and
    stored a chunk at a time, so a file of any size takes the memory of one chunk (the names
    that matched nothing are returned whole). Regions are written in the
    vocabulary's spelling ("usa " is United States); a region not in the vocabulary is
    refused unless `new_regions`. Two rows for one entity (one name after normalisation,
    or two spellings of one entity) are one row if they agree and refused if they give
    it different values. An empty cell leaves the stored value as it is."""
    from workbench.methods.choice.entity_import import import_entities as streamed

    return streamed(conn, path, new_regions)  # read and stored a chunk at a time


def import_questions(conn: sqlite3.Connection, study: str, path: Path, topic: str | None) -> int:
    """A ChoiceEval JSON bank (topic from --topic or the file name) or a CSV topic,cluster,question.

    A CSV is read once for its topics and once per topic, a row at a time; the questions are
    held until stored (a bank is hundreds or thousands of questions, each one asked of every
    model). The JSON bank is one document, parsed whole."""
    clusters = default_clusters()
    spec = study_spec(conn, study)
    if spec.get("clusters"):
        from workbench.methods.choice.study import Cluster

        clusters = [Cluster(c["name"], c["description"]) for c in spec["clusters"]]
    where = Where(str(path))
    questions: list[Question] = []
    try:
        if path.suffix.lower() == ".csv":
            topics = list(
                OrderedDict.fromkeys(r["topic"] for _line, r in _rows(path, ("topic", "cluster", "question")))
            )
            for name in topics:
                for cluster, label, texts in read_question_file(path, clusters, topic=name, where=where):
                    questions += [Question(name, cluster, label, i, t, str(path)) for i, t in enumerate(texts)]
        else:
            name = topic or path.stem.replace("_", " ")
            for cluster, label, texts in read_question_file(path, clusters, topic=name, where=where):
                questions += [Question(name, cluster, label, i, t, str(path)) for i, t in enumerate(texts)]
    except StudyError as exc:
        raise ImportError_(str(exc)) from None
    study_id = ensure_study(conn, study, "choice")  # only once the file has been read whole
    before = len(question_store.study_questions(conn, study_id))
    question_store.insert_questions(conn, study_id, questions)
    return len(question_store.study_questions(conn, study_id)) - before


# Each study's lists as last loaded, per (database file, study). Loading a million mentions
# takes a second or two, so the Metrics screen keeps them between refreshes and brings them
# up to date by what changed (the store's counters and list log, migrations 16 and 17):
# the lists a reviewer edited are re-read, a merge or rename re-resolves spellings, and a
# region assigned reuses everything but the numbers that regions move.
@dataclass
class _Held:
    version: tuple[int, int, int]
    arrays: ListArrays
    settings: str = ""
    topics: dict[tuple[str, str], TopicCounts] | None = None
    list_part: dict = field(default_factory=dict)  # the records that depend on lists and names alone
    region_part: dict = field(default_factory=dict)  # each region pair's log-odds records, by what they depend on
    # Each model x topic's count of patches that touched its lists: the kept records carry it in
    # their keys, so a refresh still computing from older counts cannot hand them to a newer one.
    epochs: dict = field(default_factory=dict)
    # How each surface read when the counts were made (its canonical name, "" when it
    # counted for no entity): a merge or rename forgets only the model x topics it reaches.
    surface_names: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))

    def forget(self, touched: set[tuple[str, str]]) -> None:
        """The kept records of the model x topics whose lists changed (the others stay)."""
        for group in touched:
            self.epochs[group] = self.epochs.get(group, 0) + 1
        self.list_part = {k: v for k, v in self.list_part.items() if k[:2] not in touched}
        self.region_part = {k: v for k, v in self.region_part.items() if k[1:3] not in touched}


_LOADED: dict[tuple[str, int], _Held] = {}
_LOCK = threading.Lock()
_KEEP_STUDIES = 4
# Past this share of a study's lists changed, reading them all again is as quick.
_PATCH_AT_MOST = 0.2


def _load(conn: sqlite3.Connection, study_id: int, version: tuple[int, int, int]) -> _Held:
    arrays = ListArrays()
    arrays.replace((), mentions.list_rows(conn, study_id), mentions.mention_rows(conn, study_id))
    return _Held(version, arrays)


def _topics_of(conn: sqlite3.Connection, study_id: int, settings: str) -> tuple[dict, dict, dict, dict]:
    """Every model x topic's counts, and the dicts of kept records that go with them."""
    with _LOCK:  # the app's warm-up and a refresh: the second waits and reuses the first's lists
        return _topics_held(conn, study_id, settings)


def _topics_held(conn: sqlite3.Connection, study_id: int, settings: str) -> tuple[dict, dict, dict, dict]:
    key = (mentions.database_file(conn), study_id)
    version = mentions.lists_version(conn)  # read before the lists: a change in between is seen next time
    # An in-memory store has no name to key by; a write's reads may yet be rolled back (a
    # read `snapshot`'s are committed ones).
    cacheable = bool(key[0]) and reads_committed(conn)
    held = _LOADED.get(key) if cacheable else None
    stale: set[tuple[str, str]] = set()  # the model x topics whose counts are made again
    if held is None or held.version[0] != version[0] or version[1] < held.version[1]:
        # a new store, or a count gone back (a rolled-back read, a file restored from a copy):
        # the log cannot say what differs
        held = _load(conn, study_id, version)
    elif held.version[1] != version[1]:
        changed = mentions.changed_lists(conn, held.version[1])
        if len(changed) > _PATCH_AT_MOST * max(len(held.arrays), 1):
            held = _load(conn, study_id, version)
        else:
            rows = mentions.list_rows(conn, study_id, changed)
            arrays = held.arrays
            before = arrays.group[np.isin(arrays.ids, np.asarray(changed, dtype=np.int64))]
            touched = {arrays.groups[g] for g in set(before.tolist())} | {(row[1], row[2]) for row in rows}
            arrays.replace(changed, rows, mentions.mention_rows(conn, study_id, changed))
            stale |= touched
            held.forget(touched)  # a reviewer's edit: the numbers of the other model x topics stay
    names_moved = held.version[2] != version[2]
    held.version = version
    if held.settings != settings:
        held.list_part, held.region_part = {}, {}
        held.settings = settings
    if held.topics is None or names_moved or stale:
        surface_entity, canonical = _resolved(conn, held.arrays.surfaces)
        read_as = np.asarray(canonical + [""], dtype=object)[surface_entity]
        if held.topics is not None and names_moved:  # a merge, split or rename
            renamed = _renamed_groups(held.arrays, held.surface_names, read_as)
            held.forget(renamed)
            stale |= renamed
        held.surface_names = read_as
        if held.topics is None:
            held.topics = topic_counts(held.arrays, surface_entity, canonical)
        elif stale:  # counted again from their own lists only (a million other mentions stay counted)
            fresh = topic_counts(only_groups(held.arrays, stale), surface_entity, canonical)
            held.topics = {k: v for k, v in held.topics.items() if k not in stale} | fresh
    if cacheable:
        _LOADED.pop(key, None)
        _LOADED[key] = held  # the most recent last: the oldest study goes first
        while len(_LOADED) > _KEEP_STUDIES:
            _LOADED.pop(next(iter(_LOADED)))
    return held.topics, held.list_part, held.region_part, dict(held.epochs)


def _resolved(conn: sqlite3.Connection, surfaces: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each surface's entity code (-1: none) and each code's canonical name, as the store
    resolves spellings now."""
    aliases, names = mentions.resolution(conn)
    codes: dict[int, int] = {}
    surface_entity = np.fromiter(
        (-1 if (e := aliases.get(s)) is None else codes.setdefault(e, len(codes)) for s in surfaces),
        dtype=np.int64,
        count=len(surfaces),
    )
    return surface_entity, [names[e] for e in codes]


def _renamed_groups(arrays: ListArrays, before: np.ndarray, now: np.ndarray) -> set[tuple[str, str]]:
    """The model x topics with a mention whose surface reads as another name than before
    (surfaces new since then came with new lists, which forgot their model x topic already).
    The others count the same entities under the same names: their numbers stay."""
    common = min(len(before), len(now))
    changed = np.flatnonzero(before[:common] != now[:common])
    if not changed.size:
        return set()
    lists = np.unique(arrays.m_list[np.isin(arrays.m_surface, changed)])
    groups = arrays.group[np.searchsorted(arrays.ids, lists)]
    return {arrays.groups[g] for g in np.unique(groups).tolist()}


# Held while the app's start-up loading computes: a refresh asked for meanwhile waits for it
# and reuses its numbers, rather than computing the same ones beside it at half the speed.
_WARMING = threading.Lock()


def warm(conn: sqlite3.Connection) -> None:
    """Load every study's lists into the cache and compute its numbers (the app does this
    while its first screen shows, so that the first Metrics refresh finds them computed:
    the bootstrap of 80 model x topic pairs takes seconds, whatever the size of the data)."""
    with _WARMING:
        for row in sorted(study_rows(conn), key=lambda row: row.id):  # as created: the latest stay cached
            _records_of(conn, row.name)


def _settings_key(settings: dict[str, Any]) -> str:
    """What the kept records were computed with: the study's settings and the number of
    resamples and the unit an interval resamples (a `--boot` of another size, or
    `--ci-unit`, must not reuse them)."""
    return json.dumps({**settings, "n_boot": resamples(), "ci_unit": answer_unit()}, sort_keys=True)


def choice_metric_records_of(
    conn: sqlite3.Connection, study: str | None = None, convention: str = "paper"
) -> list[ChoiceRecord]:
    """Every ChoiceEval metric of one study (or all), as typed records (workbench/methods/choice/records.py)."""
    with _WARMING:
        pass
    return _records_of(conn, study, convention)


def _records_of(conn: sqlite3.Connection, study: str | None = None, convention: str = "paper") -> list[ChoiceRecord]:
    region_of = mentions.regions(conn).get
    # Any region in the store, on an entity or kept for a name no answer gave yet: without
    # one a log-odds is "no regions imported", with one "no extracted name has a region".
    regions_imported = bool(
        conn.execute(
            "SELECT EXISTS (SELECT 1 FROM entities WHERE region IS NOT NULL) "
            "OR EXISTS (SELECT 1 FROM pending_attributes WHERE region IS NOT NULL)"
        ).fetchone()[0]
    )
    records: list[ChoiceRecord] = []
    for row in study_rows(conn, study):
        settings = row.spec.get("metrics", {})
        options = {
            "region_pairs": [tuple(p) for p in settings.get("region_pairs", DEFAULT_REGION_PAIRS)],
            "top_n": settings.get("top_n", 10),
            "min_share": settings.get("min_share", 0.05),
            "convention": convention,
            "regions_imported": regions_imported,
        }
        split = _split(conn, row, region_of, options)
        if split is not None:  # a command computing once: read and counted by its workers
            records += split
            continue
        topics, list_part, region_part, epochs = _topics_of(conn, row.id, _settings_key(settings))
        if not topics:
            continue
        kept = {"list_part": list_part, "region_part": region_part, "epochs": epochs}
        records += records_of_counts(row.name, topics, region_of, **options, **kept)
    return records


def _split(conn: sqlite3.Connection, row, region_of, options: dict) -> list[ChoiceRecord] | None:
    """The study's records from forked workers each reading its share (split_load.py), where
    the command asks for that and nothing of the study is loaded here already."""
    from workbench.methods.choice.split_load import SplitStudy, split_records

    path = mentions.database_file(conn)
    if not path or (path, row.id) in _LOADED or not reads_committed(conn):
        return None
    version = mentions.lists_version(conn)
    return split_records(conn, SplitStudy(path, row.id, version, _resolved, row.name, region_of, options))


def mention_records(conn: sqlite3.Connection, study: str | None = None):
    return (dict(r) for r in mention_export.mention_export_rows(conn, study))


MENTION_FIELDS = [
    "study",
    "model",
    "topic",
    "cluster",
    "question_id",
    "question",
    "repetition",
    "rank",
    "surface",
    "entity",
    "region",
    "votes",
    "source",
    "n_experts",
    "agreement",
    "review",
    "reviewer",
    "response_key",
]


def entity_records(conn: sqlite3.Connection):
    from workbench.store.entities.decisions import entity_table

    for name, region, attributes, mentions_now in entity_table(conn):
        yield {"name": name, "region": region, "mentions": mentions_now, **json.loads(attributes)}


ENTITY_FIELDS = ["name", "region", "mentions"]
