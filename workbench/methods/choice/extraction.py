"""From stored answers to ranked entity lists: the list parser, or LLM experts and a vote.

Expert extraction goes through the same persistent queue as the answers (stage
`extract`, one request per answer x expert, keyed by content), so it resumes after
a kill and never asks an expert twice. Voting only reads stored replies, so it
can be repeated at any time with the same result.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from workbench.extract import (
    expert_agreement,
    expert_schema,
    extract_list,
    extraction_messages,
    majority_vote,
    normalize_surface,
    parse_expert_reply,
)
from workbench.keys import request_key
from workbench.methods.choice.study import Extraction
from workbench.store import mentions, queue
from workbench.store.mentions import MentionList


@dataclass
class ExtractionReport:
    answers: int = 0  # answers given a ranked list in this pass
    empty: int = 0  # of which with no recommendation
    expert_replies: int = 0
    unparseable: int = 0  # expert replies kept but not understood
    failed_experts: int = 0  # expert requests that failed after retries
    mean_agreement: float | None = None


def _answers_without_list(conn: sqlite3.Connection, study_id: int, model_id: int):
    return conn.execute(
        """
        SELECT r.key, q.topic, q.cluster, q.text AS question, r.repetition, p.text
        FROM requests r
        JOIN responses p ON p.request_key = r.key
        JOIN questions q ON q.id = r.question_id
        JOIN models m ON m.id = r.model_id
        WHERE r.study_id = ? AND r.model_id = ? AND r.stage = 'answer' AND r.status = 'done'
          AND r.superseded = 0
          AND NOT EXISTS (SELECT 1 FROM mention_lists l WHERE l.response_key = r.key)
        ORDER BY r.rowid
        """,
        (study_id, model_id),
    ).fetchall()


def _surfaces(names: list[str], votes: list[int | None] | None = None):
    votes = votes or [None] * len(names)
    return [(name, normalize_surface(name), v) for name, v in zip(names, votes)]


def extract_with_list_parser(
    conn: sqlite3.Connection, study_id: int, model_id: int, model_label: str, k: int
) -> ExtractionReport:
    report = ExtractionReport()
    lists = []
    for key, topic, cluster, question, repetition, text in _answers_without_list(conn, study_id, model_id):
        names = extract_list(text, k)
        lists.append(
            MentionList(model_label, topic, cluster, question, repetition, "list", _surfaces(names), response_key=key)
        )
        report.answers += 1
        report.empty += not names
    mentions.store_lists(conn, study_id, lists)
    return report


def plan_experts(
    conn: sqlite3.Connection,
    study_id: int,
    answer_model_id: int,
    extractor_model_id: int,
    extractor_identity: str,
    settings: Extraction,
) -> int:
    """One `extract` request per answered, not yet voted answer x expert."""
    planned = []
    schema = expert_schema(settings.k)
    for key, _topic, _cluster, question, _rep, text in _answers_without_list(conn, study_id, answer_model_id):
        for expert in range(1, settings.experts + 1):
            params: dict = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "seed": expert}
            if settings.output == "json":
                params["json_schema"] = schema
            else:
                params.update(prefill="\n1.", stop=["\n\n", "\nAnswer:"])
            payload = {
                "messages": extraction_messages(question, text, settings.k, settings.output),
                "params": params,
                "answer_key": key,
            }
            planned.append(
                queue.PlannedRequest(
                    key=request_key(
                        stage="extract", model_identity=extractor_identity, payload=payload, repetition=expert
                    ),
                    stage="extract",
                    payload=payload,
                    repetition=expert,
                    seed=expert,
                    parent_key=key,
                )
            )
    return queue.plan(conn, study_id, extractor_model_id, planned)


def vote(
    conn: sqlite3.Connection, study_id: int, answer_model_id: int, answer_label: str, settings: Extraction
) -> ExtractionReport:
    """Vote every answer whose experts have all finished (answered or failed)."""
    report = ExtractionReport()
    lists, agreements = [], []
    for key, topic, cluster, question, repetition, _text in _answers_without_list(conn, study_id, answer_model_id):
        experts = conn.execute(
            "SELECT r.key, r.repetition, r.status, p.text FROM requests r "
            "LEFT JOIN responses p ON p.request_key = r.key "
            "WHERE r.parent_key = ? AND r.stage = 'extract' ORDER BY r.repetition",
            (key,),
        ).fetchall()
        if not experts or any(e["status"] in ("pending", "running") for e in experts):
            continue
        parsed_lists = []
        with queue.transaction(conn):
            for expert in experts:
                if expert["status"] == "failed":
                    report.failed_experts += 1
                    continue
                names = parse_expert_reply(expert["text"], settings.k)
                report.expert_replies += 1
                report.unparseable += names is None
                conn.execute(
                    "INSERT OR REPLACE INTO expert_lists (request_key, response_key, expert, entities_json, parsed) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (expert["key"], key, expert["repetition"], json.dumps(names or []), int(names is not None)),
                )
                if names is not None:
                    parsed_lists.append(names)
        voted = majority_vote(parsed_lists, settings.k)
        agreement = expert_agreement(parsed_lists)
        if agreement is not None:
            agreements.append(agreement)
        lists.append(
            MentionList(
                answer_label,
                topic,
                cluster,
                question,
                repetition,
                "vote",
                _surfaces([v.surface for v in voted], [v.votes for v in voted]),
                response_key=key,
                n_experts=len(parsed_lists),
                agreement=agreement,
            )
        )
        report.answers += 1
        report.empty += not voted
    mentions.store_lists(conn, study_id, lists)
    report.mean_agreement = sum(agreements) / len(agreements) if agreements else None
    return report
