"""Full-text search over the models' answers, for reviewers.

The index (`answer_search`, SQLite FTS5, kept by triggers on `responses`: see
store/schema_entities_search.py) holds every answer's words, case and accents folded. A query
is FTS5's: words (every one must appear), "a phrase", a prefix* , OR, NOT, AND, NEAR(...) and
parentheses. A word FTS5 cannot read as it stands (brands are full of punctuation: 7-Eleven,
Levi's, H&M, AT&T, Dr. Martens) is searched for literally, as if in double quotes; a query
that still cannot be read is refused in one line that says how to write it, never a traceback.

A reviewer reads a page of matches, so a page is read in the order the answers were stored
(the index's own order), a chunk of matching answers at a time, until it is full: a word in
15% of a million answers gives its first 50 lists in 8 ms, where turning every match into
its list takes 0.3 s (bench/bench_search.py). How many answers match is the index's own count
(no list read); how many lists, once the last page is read.
"""

from __future__ import annotations

import json
import re
import sqlite3
from bisect import bisect_left
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any, NamedTuple

from workbench.errors import SearchError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store.review.pages import JUDGED, in_filter, judged_list_ids


def _reason(exc: sqlite3.Error) -> str:
    text = " ".join(str(exc).split())
    return text.removeprefix("fts5: ")


# What is left as written: a word, a prefix, an operator, and anything holding a quote or a
# parenthesis (a phrase, a group: syntax the writer meant, refused if it cannot be read).
_AS_WRITTEN = re.compile(r'\w+\*?|AND|OR|NOT|.*["()].*')


def literal(query: str) -> str:
    """The query with each word FTS5 would read as syntax put in double quotes (7-Eleven,
    Levi's, H&M, Nike:), the rest as written."""
    return " ".join(w if _AS_WRITTEN.fullmatch(w) else f'"{w}"' for w in query.split())


def readable(conn: sqlite3.Connection, query: str) -> str:
    """The query as the index is to be given it: as written when FTS5 reads it, else its
    `literal` form; SearchError (one line) when neither can be read."""
    if not query.strip():
        raise SearchError('search for what? give words, a "phrase" or a prefix*')
    probe = "SELECT rowid FROM answer_search WHERE answer_search MATCH ? LIMIT 1"
    try:
        conn.execute(probe, (query,)).fetchall()
        return query
    except sqlite3.OperationalError as exc:
        first = exc
    try:
        conn.execute(probe, (literal(query),)).fetchall()
        return literal(query)
    except sqlite3.OperationalError:
        words = query.split()
        if words[0] in ("NOT", "AND", "OR") or words[-1] in ("NOT", "AND", "OR"):
            said = words[0] if words[0] in ("NOT", "AND", "OR") else words[-1]
            raise SearchError(
                f"cannot search for {query!r}: {said} joins two searches (e.g. shoes NOT Nike, Nike OR Puma); "
                f'to find the word itself, put it in double quotes ("{said.lower()}")'
            ) from None
        raise SearchError(
            f"cannot search for {query!r}: {_reason(first)}; put words with punctuation in double quotes "
            '(e.g. "Nike, Inc.") and double a quote inside them'
        ) from None


def _matching(conn: sqlite3.Connection, sql: str, query: str, *more: Any) -> list[tuple]:
    return conn.execute(sql, (readable(conn, query), *more)).fetchall()


def check_query(conn: sqlite3.Connection, query: str) -> None:
    """Refuse (SearchError) a query the index cannot read; cheap: it stops at the first match."""
    readable(conn, query)


# A superseded answer (its request no longer asked: an edited study, fewer repetitions) stays
# stored and indexed, for the log and an edit undone, but is found and counted by no search,
# as no metric reads it. Read from the superseded requests' own index (migration 29).
_SUPERSEDED = "SELECT key FROM requests WHERE superseded AND key IS NOT NULL"
_ASKED = f"p.request_key NOT IN ({_SUPERSEDED})"


def matching_ids(conn: sqlite3.Connection, query: str) -> set[int]:
    """The ids (`responses.id`) of the answers asked now that match `query`."""
    sql = f"SELECT s.rowid FROM answer_search s JOIN responses p ON p.id = s.rowid WHERE answer_search MATCH ? AND {_ASKED}"
    return {row[0] for row in _matching(conn, sql, query)}


def matching_keys(conn: sqlite3.Connection, query: str) -> set[str]:
    """The request keys of the answers asked now that match `query`, in every study."""
    sql = (
        "SELECT p.request_key FROM answer_search s JOIN responses p ON p.id = s.rowid "
        f"WHERE answer_search MATCH ? AND {_ASKED}"
    )
    return {row[0] for row in _matching(conn, sql, query)}


def matching_list_ids(conn: sqlite3.Connection, query: str) -> set[int]:
    """The ids of the ranked lists whose answer matches `query` (a superseded answer's never).
    A list without an answer (an imported one) never matches."""
    sql = (
        "SELECT l.id FROM answer_search s JOIN responses p ON p.id = s.rowid "
        f"JOIN mention_lists l ON l.response_key = p.request_key WHERE answer_search MATCH ? AND {_ASKED}"
    )
    return {row[0] for row in _matching(conn, sql, query)}


_SUPERSEDED_MATCHING = (
    "SELECT count(*) FROM requests r CROSS JOIN responses p ON p.request_key = r.key WHERE r.superseded "
    "AND r.key IS NOT NULL AND EXISTS (SELECT 1 FROM answer_search s WHERE answer_search MATCH ? AND s.rowid = p.id)"
)


def answers_matching(conn: sqlite3.Connection, query: str) -> int:
    """How many answers asked now match `query`: the index counts every match (4 ms for
    150,000 of a million), less the superseded answers that match (each superseded answer
    looked up in the index by its id), no list is read."""
    every = _matching(conn, "SELECT count(*) FROM answer_search WHERE answer_search MATCH ?", query)[0][0]
    return every - _matching(conn, _SUPERSEDED_MATCHING, query)[0][0] if every else 0


class Found(NamedTuple):
    """A page of the lists whose answer matches: `ids` (list ids, in the order their answers
    were stored), `more` (lists past the page match too), `answers` (answers in the store
    that match, every study's)."""

    ids: list[int]
    more: bool
    answers: int


# A chunk of matching answers after a given one, in the index's order (FTS5 reads it from
# the index alone), then each one's lists: looked up by key, never a scan of the lists.
_ANSWERS = "SELECT rowid FROM answer_search WHERE answer_search MATCH ? AND rowid > ? ORDER BY rowid LIMIT ?"
_LISTS = (
    "SELECT l.id FROM json_each(?) a CROSS JOIN responses p ON p.id = a.value "
    "CROSS JOIN mention_lists l ON l.response_key = p.request_key "
    "WHERE NOT EXISTS (SELECT 1 FROM requests r WHERE r.key = l.response_key AND r.superseded) AND {where} "
    "ORDER BY a.key, l.id"
)


def walk(
    conn: sqlite3.Connection,
    query: str,
    keep: Callable[[list[int]], list[int]] | None = None,
    where: tuple[str, list[Any]] = ("1", []),
    offset: int = 0,
    limit: int | None = 50,
    chunk: int | None = None,
) -> Found:
    """The lists whose answer matches `query` (a superseded answer's lists never), past the
    first `offset`, at most `limit` (None: all), in the order of their answers, then of their
    ids. `where` (SQL on mention_lists `l`, its arguments) and `keep` (which of a chunk's list
    ids to keep, in their order) narrow them. Reads matching answers a chunk at a time, the chunks growing, so a page of a
    common word reads about as many answers as it shows (`chunk`: the first chunk's size)."""
    query = readable(conn, query)
    answers = answers_matching(conn, query)
    wanted = None if limit is None else offset + limit + 1  # one more: whether more match
    ids: list[int] = []
    after, size = 0, chunk or max(64, wanted or 0)
    while wanted is None or len(ids) < wanted:
        answer_ids = [r[0] for r in conn.execute(_ANSWERS, (query, after, size))]  # `query`: readable already
        if answer_ids:
            found = [r[0] for r in conn.execute(_LISTS.format(where=where[0]), (json.dumps(answer_ids), *where[1]))]
            ids += found if keep is None else keep(found)
        if len(answer_ids) < size:  # the last matching answer read
            break
        after, size = answer_ids[-1], min(size * 4, 16_384)
    page = ids[offset:] if limit is None else ids[offset : offset + limit]
    return Found(page, limit is not None and len(ids) > offset + limit, answers)


def search_pages(conn: sqlite3.Connection, query: str, pages: list[dict[str, Any]], limit: int) -> tuple[list, Found]:
    """The Review screen's `pages` (sorted by id: one filter's) whose answer matches
    `query`: the first `limit` of them, in the order of their answers, and what was found."""
    ids = itemgetter("id")

    def page_of(list_id: int) -> dict[str, Any] | None:
        at = bisect_left(pages, list_id, key=ids)
        return pages[at] if at < len(pages) and pages[at]["id"] == list_id else None

    found = walk(conn, query, lambda chunk: [i for i in chunk if page_of(i) is not None], limit=limit)
    return [page_of(list_id) for list_id in found.ids], found


# Given lists (a few), theirs that match: each answer looked up in the index by its id.
_AMONG = (
    "SELECT p.id, l.id FROM json_each(?) c CROSS JOIN mention_lists l ON l.id = c.value "
    "CROSS JOIN responses p ON p.request_key = l.response_key "
    "WHERE NOT EXISTS (SELECT 1 FROM requests r WHERE r.key = l.response_key AND r.superseded) "
    "AND EXISTS (SELECT 1 FROM answer_search s WHERE answer_search MATCH ? AND s.rowid = p.id) AND {where} "
    "ORDER BY p.id, l.id"
)


def among(
    conn: sqlite3.Connection,
    query: str,
    list_ids: Iterable[int],
    where: tuple[str, list[Any]] = ("1", []),
    offset: int = 0,
    limit: int | None = 50,
) -> Found:
    """`walk` over the given lists only (a filter only lists with verdicts are in): read from
    them, never from every matching answer."""
    query = readable(conn, query)
    answers = answers_matching(conn, query)
    sql = _AMONG.format(where=where[0])
    ids = [r[1] for r in conn.execute(sql, (json.dumps(sorted(list_ids)), query, *where[1]))] if answers else []
    page = ids[offset:] if limit is None else ids[offset : offset + limit]
    return Found(page, limit is not None and len(ids) > offset + limit, answers)


def search_lists(
    conn: sqlite3.Connection,
    query: str,
    only: str = "all",
    *,
    study: str | None = None,
    reviewer: str | None = None,
    blind: bool = False,
    offset: int = 0,
    limit: int | None = 50,
) -> Found:
    """`review lists --search`: a page of a study's lists in filter `only` (store/review/pages.py)
    whose answer matches `query`. The filter's SQL narrows the lists as they are read; a list
    some verdict is about is judged by the review rules when read (a filter only those lists
    are in reads them first: thousands where lists are a million)."""
    clauses, args = ["1"], []
    if study is not None:
        clauses.append("l.study_id = (SELECT id FROM studies WHERE name = ?)")
        args.append(study)
    if only == "disagreements":
        clauses.append("l.agreement IS NOT NULL AND l.agreement < 1")
    judged = judged_list_ids(conn)
    where = (" AND ".join(clauses), args)
    if only in JUDGED:  # only a list with a verdict can be in these: read from them
        return among(conn, query, in_filter(conn, sorted(judged), only, reviewer, blind), where, offset, limit)

    def keep(chunk: list[int]) -> list[int]:
        ruled = [i for i in chunk if i in judged]
        kept = in_filter(conn, ruled, only, reviewer, blind) if ruled else set()
        return [i for i in chunk if i not in judged or i in kept]

    return walk(conn, query, keep, where, offset, limit)
