"""A study's lists and mentions read a share of its model x topics at a time: what a forked
worker of `workbench metrics` reads of a large store (workbench/methods/choice/split_load.py),
the same rows `mentions.list_rows` and `mentions.mention_rows` give, for those model x topics."""

from __future__ import annotations

import json
import sqlite3

from workbench.store.current_lists import counts_now
from workbench.store.db import tuples

# (model, topic) pairs handed over as one JSON parameter: any number of them, one statement
_PAIRS = "(l.model, l.topic) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))"


def group_sizes(conn: sqlite3.Connection, study_id: int) -> list[tuple[str, str, int]]:
    """(model, topic, lists that count now) of each of the study's model x topics."""
    return tuples(
        conn,
        f"""
        SELECT l.model, l.topic, COUNT(*) FROM mention_lists l
        WHERE l.study_id = ? AND {counts_now("l")} GROUP BY l.model, l.topic ORDER BY l.model, l.topic
        """,
        (study_id,),
    )


def group_list_rows(conn: sqlite3.Connection, study_id: int, groups: list[tuple[str, str]]) -> list[tuple]:
    """`mentions.list_rows` of these model x topics only."""
    return tuples(
        conn,
        f"""
        SELECT l.id, l.model, l.topic, l.cluster, l.repetition, l.question FROM mention_lists l
        WHERE l.study_id = ? AND {_PAIRS} AND {counts_now("l")}
        """,
        (study_id, json.dumps([list(g) for g in groups])),
    )


def group_mention_rows(conn: sqlite3.Connection, study_id: int, groups: list[tuple[str, str]]) -> list[tuple]:
    """`mentions.mention_rows` of these model x topics' lists (superseded ones too, as there:
    the arrays keep only the mentions of the lists they hold; they sort them too)."""
    return tuples(
        conn,
        f"""
        SELECT m.list_id, m.rank, m.surface_key FROM mention_lists l JOIN mentions m ON m.list_id = l.id
        WHERE l.study_id = ? AND {_PAIRS}
        """,
        (study_id, json.dumps([list(g) for g in groups])),
    )
