"""Full-text search over the models' answers, for reviewers.

The index (`answer_search`, SQLite FTS5, kept by triggers on `responses`: see
store/schema_entities_search.py) holds every answer's words, case and accents folded. A query
is FTS5's: words (every one must appear), "a phrase", a prefix* , OR, NOT, AND, NEAR(...) and
parentheses. A query FTS5 cannot read is refused in one line that says how to search for it
literally (in double quotes), never a traceback.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from workbench.store.errors import InputError


class SearchError(InputError):
    """A search query the index cannot read; the message says what to write instead."""


def _reason(exc: sqlite3.Error) -> str:
    text = " ".join(str(exc).split())
    return text.removeprefix("fts5: ")


def _matching(conn: sqlite3.Connection, sql: str, query: str) -> list[tuple]:
    if not query.strip():
        raise SearchError('search for what? give words, a "phrase" or a prefix*')
    try:
        return conn.execute(sql, (query,)).fetchall()
    except sqlite3.OperationalError as exc:
        raise SearchError(
            f"cannot search for {query!r}: {_reason(exc)}; put words with punctuation in double quotes "
            '(e.g. "Nike, Inc.") and double a quote inside them'
        ) from None


def check_query(conn: sqlite3.Connection, query: str) -> None:
    """Refuse (SearchError) a query the index cannot read; cheap: it stops at the first match."""
    _matching(conn, "SELECT rowid FROM answer_search WHERE answer_search MATCH ? LIMIT 1", query)


def matching_ids(conn: sqlite3.Connection, query: str) -> set[int]:
    """The ids (`responses.id`) of the answers that match `query`: the index alone."""
    return {row[0] for row in _matching(conn, "SELECT rowid FROM answer_search WHERE answer_search MATCH ?", query)}


def matching_keys(conn: sqlite3.Connection, query: str) -> set[str]:
    """The request keys of the answers that match `query`, in every study."""
    sql = "SELECT p.request_key FROM answer_search s JOIN responses p ON p.id = s.rowid WHERE answer_search MATCH ?"
    return {row[0] for row in _matching(conn, sql, query)}


def matching_list_ids(conn: sqlite3.Connection, query: str) -> set[int]:
    """The ids of the ranked lists whose answer matches `query`. A list without an answer
    (an imported one) never matches."""
    sql = (
        "SELECT l.id FROM answer_search s JOIN responses p ON p.id = s.rowid "
        "JOIN mention_lists l ON l.response_key = p.request_key WHERE answer_search MATCH ?"
    )
    return {row[0] for row in _matching(conn, sql, query)}


def search_items(conn: sqlite3.Connection, items: Iterable[dict[str, Any]], query: str, id_key: str = "id") -> list:
    """The review items (`id_key` "id") or list records ("list_id") whose answer matches
    `query`, in their order."""
    ids = matching_list_ids(conn, query)
    return [item for item in items if item[id_key] in ids]


def quoted(text: str) -> str:
    """`text` as one FTS5 phrase: what a user typed, searched for literally."""
    return '"' + text.replace('"', '""') + '"'
