"""What reviewers and scripts read of the extracted lists: the details of the list on screen,
records for scripts and every verdict for export (the review pages, one per list for each
filter of the Review screen, and the progress per reviewer: store/review/pages.py). A blind
reader (a second reviewer on the validation sample) is shown the machine's extraction and
their own verdicts only."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from workbench.store.entities.gazetteer_flags import flagged_of
from workbench.store.entities.grounding import ungrounded_of
from workbench.store.errors import InputError
from workbench.store.review.base import extracted, latest_by_reviewer, list_row, scope_of, standing, surfaces
from workbench.store.review.pages import FILTERS, progress_counts, review_items, review_progress  # noqa: F401
from workbench.store.review.reviewer_names import same_reviewer
from workbench.store.review.versions import verdict_trail, version_of


def _experts(conn: sqlite3.Connection, response_key: str | None) -> list[list[str]]:
    return [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT entities_json FROM expert_lists WHERE response_key = ? ORDER BY expert", (response_key,)
        )
    ]


def review_detail(conn: sqlite3.Connection, item: dict[str, Any]) -> dict[str, Any]:
    """The parts of an item only the response on screen needs: experts' lists, the list
    shown (the extraction when blind, else the current list), the extraction with its votes,
    and the `version` to give back with a verdict on it (`reviews.review(if_version=...)`);
    not blind, the `trail` of its verdicts too (who changed it, when a screen sees it change)."""
    answer = conn.execute("SELECT text FROM responses WHERE request_key = ?", (item["response_key"],)).fetchone()
    row = list_row(conn, item["id"])
    voted = extracted(conn, row)
    names = [s for s, _ in voted]
    return {
        **item,
        "experts": _experts(conn, item["response_key"]),
        "extracted": names,
        "votes": [votes for _, votes in voted],
        "entities": names if item.get("blind") else surfaces(conn, item["id"]),
        "answer": answer[0] if answer else None,
        "ungrounded": ungrounded_of(conn, item["id"]),
        "flagged": flagged_of(conn, item["id"]),  # near spellings and common words: to check
        "version": version_of(conn, row, bool(item.get("blind"))),
        "trail": [] if item.get("blind") else verdict_trail(conn, row),
    }


def list_records(
    conn: sqlite3.Connection,
    study: str,
    only: str = "all",
    reviewer: str | None = None,
    blind: bool = False,
    list_ids: list[int] | None = None,
) -> list[dict[str, Any]]:
    """Every list of a study (or those of `list_ids`) for scripts: ids, the version shown, the
    answer, the experts' lists and the vote, what was extracted, what metrics use now, and each
    reviewer's standing verdict (and the verdicts that no longer apply; blind: the reviewer's
    own only). In the order of their ids."""
    items = review_items(conn, study, only=only, list_ids=list_ids, reviewer=reviewer, blind=blind)
    study_id = conn.execute("SELECT id FROM studies WHERE name = ?", (study,)).fetchone()
    every = standing(conn, study_id[0]) if study_id else {}
    out = []
    for item in items:
        detail = review_detail(conn, item)
        stale = {
            who: {"decision": v["decision"], "list": json.loads(v["after_json"]), "id": v["id"]}
            for who, v in latest_by_reviewer(every.get(scope_of(item), []), item["response_key"], False).items()
            if not blind or same_reviewer(who, reviewer)
        }
        out.append(
            {
                "list_id": item["id"],
                **{k: item[k] for k in ("model", "topic", "cluster", "question", "repetition")},
                "version": detail["version"],
                "answer": detail["answer"],
                "experts": detail["experts"],
                "vote": {
                    "method": item["source"],
                    "agreement": item["agreement"],
                    "votes": [[n, v] for n, v in zip(detail["extracted"], detail["votes"])],
                },
                "extracted": detail["extracted"],
                "current": detail["entities"],
                "flagged": detail["flagged"],
                "verdicts": item["verdicts"],
                "adjudication": item["adjudication"],
                "no_longer_apply": stale,
            }
        )
    return out


def review_records(conn: sqlite3.Connection):
    """Every verdict with its provenance, for export."""
    for row in conn.execute(
        "SELECT v.id, s.name AS study, v.model, v.topic, v.question, v.repetition, v.answer_key, v.reviewer, "
        "v.decision, v.before_json, v.after_json, v.blind, v.why, v.at, v.undone, v.adjudicates, v.took "
        "FROM verdicts v "
        "JOIN studies s ON s.id = v.study_id ORDER BY v.id"
    ):
        record = dict(row)
        record["blind"] = bool(record["blind"])
        record["state"] = "undone" if record.pop("undone") else "active"
        yield record


REVIEW_FIELDS = [
    "id",
    "study",
    "model",
    "topic",
    "question",
    "repetition",
    "answer_key",
    "reviewer",
    "decision",
    "before_json",
    "after_json",
    "blind",
    "why",
    "at",
    "state",
    "adjudicates",
    "took",
]


def reviewed_counts(conn) -> tuple[int, int]:
    """(extracted lists, lists with a standing verdict that is not blind)."""
    row = conn.execute(
        """
        SELECT (SELECT COUNT(*) FROM mention_lists),
               -- from the verdicts' side: a few thousand verdicts, not a million lists
               (SELECT COUNT(*) FROM (
                   SELECT DISTINCT study_id, model, topic, question, repetition FROM verdicts
                   WHERE undone = 0 AND blind = 0) v
                WHERE EXISTS (SELECT 1 FROM mention_lists l WHERE l.study_id = v.study_id AND l.model = v.model
                   AND l.topic = v.topic AND l.question = v.question AND l.repetition = v.repetition))
        """
    ).fetchone()
    return row[0], row[1]


def list_values(conn, column: str) -> list[Any]:
    """The distinct topics or models of the extracted lists (for the filters)."""
    if column not in ("topic", "model"):
        raise InputError(f"no filter on {column!r}")
    return [r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM mention_lists ORDER BY {column}")]
