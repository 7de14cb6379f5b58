"""`workbench metrics` of a large study: each forked worker reads, counts and computes a share
of the study's model x topics, and only the records come back.

Reading a million mention rows into arrays took as long as computing every number from them,
on one core while the other waited: a model x topic's numbers read its own lists alone, so
each worker reads its share of them (its own connection, at the commit the command reads:
a worker that finds another one gives up, and the command computes everything itself), and
the command adds the adjusted p-values, whose families span the topics. The records are the
ones the lists loaded at once give, in the same order (tests/statistics/test_metrics_processes.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.methods.choice.arrays import ListArrays, topic_counts
from workbench.methods.choice.metrics import adjusted_records, topic_records
from workbench.metrics import threads
from workbench.store.db import connect, snapshot
from workbench.store.entities import mentions
from workbench.store.reads import groups as group_reads


@dataclass(frozen=True)
class SplitStudy:
    """What every worker needs of a study: where to read it, at which commit, and how its
    numbers are computed (`records_of_counts`' options; the regions as the command read them)."""

    path: str
    study_id: int
    version: tuple[int, int, int]
    resolve: Callable[[sqlite3.Connection, list[str]], tuple[Any, list[str]]]
    name: str
    region_of: Callable[[str], str | None]
    options: dict[str, Any]


def split_records(conn: sqlite3.Connection, study: SplitStudy) -> list | None:
    """The study's records computed by forked workers, or None where they cannot be (one
    model x topic, one core, a store in memory, or a commit between the command's reads and
    a worker's): the caller then computes them itself."""
    if not threads.split_load_wanted() or not study.path:
        return None
    sizes = group_reads.group_sizes(conn, study.study_id)
    shares = _shares(sizes, threads.workers())
    if len(shares) < 2:
        return None
    import scipy.special  # noqa: F401 (imported here once, not by each worker)

    parts = threads.map_in_threads(lambda groups: _part(study, groups), shares)
    if any(part is None for part in parts):
        return None
    per_topic = {key: records for part in parts for key, records in part.items()}
    return adjusted_records([r for key in sorted(per_topic) for r in per_topic[key]])


def _shares(sizes: list[tuple[str, str, int]], workers: int) -> list[list[tuple[str, str]]]:
    """The model x topics dealt to `workers` shares of about as many lists each, the largest
    first to the share with the fewest so far; empty shares left out."""
    shares: list[list[tuple[str, str]]] = [[] for _ in range(workers)]
    loads = [0] * workers
    for model, topic, n in sorted(sizes, key=lambda row: (-row[2], row[0], row[1])):
        least = loads.index(min(loads))
        shares[least].append((model, topic))
        loads[least] += n
    return [share for share in shares if share]


def _part(study: SplitStudy, groups: list[tuple[str, str]]) -> dict | None:
    """One worker's model x topics: their records before the adjusted p-values (None: the
    store has moved on since the command's read)."""
    conn = connect(study.path, create=False)
    try:
        with snapshot(conn):
            if mentions.lists_version(conn) != study.version:
                return None
            arrays = ListArrays()
            lists = group_reads.group_list_rows(conn, study.study_id, groups)
            arrays.replace((), lists, group_reads.group_mention_rows(conn, study.study_id, groups))
            del lists
            surface_entity, canonical = study.resolve(conn, arrays.surfaces)
    finally:
        conn.close()
    topics = topic_counts(arrays, surface_entity, canonical)
    return topic_records(study.name, topics, study.region_of, **study.options)
