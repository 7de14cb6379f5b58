"""From stored answers to ranked entity lists: the list parser, a gazetteer's known names,
or LLM experts and a vote.

Expert extraction goes through the same persistent queue as the answers (stage
`extract`, one request per answer x expert, keyed by content), so it resumes after
a kill and never asks an expert twice. Voting only reads stored replies, so it
can be repeated at any time with the same result.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from workbench.asking.extract import (
    Voted,
    expert_agreement,
    expert_schema,
    extract_list,
    extraction_messages,
    majority_vote,
    normalize_surface,
    parse_expert_reply,
)
from workbench.asking.keys import request_key
from workbench.methods.choice import extraction_marks as marks
from workbench.methods.choice.extraction_marks import default_min_votes
from workbench.methods.choice.study import Extraction
from workbench.store.db import transaction
from workbench.store.entities import mentions
from workbench.store.entities.mentions import MentionList
from workbench.store.requests import answers, queue


@dataclass
class ExtractionReport:
    answers: int = 0  # answers given a ranked list in this pass
    empty: int = 0  # of which with no recommendation
    expert_replies: int = 0
    unparseable: int = 0  # expert replies kept but not understood
    failed_experts: int = 0  # expert requests that failed after retries
    mean_agreement: float | None = None
    below_majority: int = 0  # entities fewer than `min_votes` experts named (left out)
    ungrounded: int = 0  # voted entities not found in the answer text (dropped or flagged)
    grounding: str = "drop"  # what happened to the ungrounded: "drop" (left out) or "flag" (kept)
    gazetteer: int | None = None  # names the gazetteer holds (None: no gazetteer)
    near_spellings: int = 0  # gazetteer names of the lists found only by a near spelling: flagged
    common_words: int = 0  # ... only by common words at a sentence's start ("On balance"): flagged
    again: int = 0  # of `answers`, lists made with other settings than the study file's, replaced
    again_why: str = ""  # what changed, in words ("k changed from 5 to 2")


def to_extract(
    conn: sqlite3.Connection, study_id: int, model_id: int, made: dict, report: ExtractionReport
) -> tuple[str, list[sqlite3.Row]]:
    """(the digest of `made`, the answers whose list is missing or made otherwise), the lists
    they replace counted in `report` with why."""
    digest = marks.record(conn, made)
    rows = answers.answers_to_extract(conn, study_id, model_id, digest)
    note_again(conn, made, [row for row in rows if row["listed"]], report)
    return digest, rows


def note_again(conn: sqlite3.Connection, made: dict, replaced: list[sqlite3.Row], report: ExtractionReport) -> None:
    report.again += len(replaced)
    report.again_why = marks.why_again(conn, made, [row["was"] for row in replaced])


# A voted name counts as found in the answer when its normalized form matches a
# stretch of the normalized answer with a rapidfuzz partial_ratio of at least this
# (also compared with spaces removed, so "Vapor Max" finds "VaporMax"). 90 is an
# exact match, or about one edit in ten characters: "Nike" must appear as such.
# It checks that a name was not invented by the experts, not that it is spelled right.
GROUNDING_THRESHOLD = 90.0
SHORT_NAME = 4  # names shorter than this (spaces left out) must appear as whole words


def grounded(entity: str, answer: str | None, threshold: float = GROUNDING_THRESHOLD) -> bool:
    """Whether `entity` appears in `answer`, blind to case, accents, punctuation and spacing."""
    name, text = normalize_surface(entity), normalize_surface(answer or "")
    if not name or not text:
        return False
    compact_name, compact_text = name.replace(" ", ""), text.replace(" ", "")
    if len(compact_name) < SHORT_NAME:  # "LG", "C": a whole word of the answer, never a piece of one
        return f" {name} " in f" {text} "
    if name in text or compact_name in compact_text:
        return True
    if len(compact_name) > len(compact_text):  # partial_ratio would look for the answer inside the name
        return False
    return max(fuzz.partial_ratio(name, text), fuzz.partial_ratio(compact_name, compact_text)) >= threshold


@dataclass(frozen=True)
class Combined:
    voted: list[Voted]  # the answer's ranked list
    below_majority: list[Voted]  # named by fewer than min_votes experts
    ungrounded: list[Voted]  # not found in the answer: left out ("drop") or kept in `voted` ("flag")


def combine(
    expert_lists: Sequence[Sequence[str]],
    answer: str,
    k: int,
    min_votes: int = 1,
    grounding: str = "drop",
) -> Combined:
    """The experts' lists as one ranked list (docs/methods.md §1, Extraction).

    Entities are matched across experts by `normalize_surface` and ranked as
    `majority_vote` ranks them; an entity stays when at least `min_votes` experts
    name it, and, under grounding = "drop", when it is found in the answer text.
    The first k that stay form the list. Only parsed lists are given here: an
    expert whose reply failed or could not be parsed names nothing, so it supports
    no entity, and `min_votes` stays a count of experts (it does not shrink to
    the experts that parsed). min_votes = 1 with grounding = "flag" is the vote
    of earlier versions.
    """
    ranked = majority_vote(expert_lists, k=sum(len(entries) for entries in expert_lists))
    named_by: dict[str, int] = {}
    for entries in expert_lists:
        for key in {normalize_surface(surface) for surface in entries} - {""}:
            named_by[key] = named_by.get(key, 0) + 1
    kept, below, ungrounded = [], [], []
    for entity in ranked:
        if named_by[normalize_surface(entity.surface)] < min_votes:
            below.append(entity)
            continue
        if len(kept) >= k:
            continue  # counted when it would have been kept
        if not grounded(entity.surface, answer):
            ungrounded.append(entity)
            if grounding == "drop":
                continue
        kept.append(entity)
    return Combined(kept, below, ungrounded)


def _surfaces(names: list[str], votes: list[int | None] | None = None):
    votes = votes or [None] * len(names)
    return [(name, normalize_surface(name), v) for name, v in zip(names, votes)]


def extract_with_list_parser(
    conn: sqlite3.Connection, study_id: int, model_id: int, model_label: str, k: int
) -> ExtractionReport:
    report = ExtractionReport()
    lists = []
    digest, rows = to_extract(conn, study_id, model_id, marks.made_with(Extraction(method="list", k=k)), report)
    for key, topic, cluster, question, repetition, text, *_ in rows:
        names = extract_list(text, k)
        lists.append(
            MentionList(
                model_label, topic, cluster, question, repetition, "list", _surfaces(names), key, extracted_with=digest
            )
        )
        report.answers += 1
        report.empty += not names
    mentions.store_lists(conn, study_id, lists)
    return report


def check_gazetteer_topics(study, stored_topics: set[str]) -> None:
    """Refuse a gazetteer row whose topic is none of the study's (its file's, generated or
    imported): its names would be counted as sought and never looked for."""
    from pathlib import Path

    from workbench.methods.choice.gazetteer import load

    path = Path(study.extraction.entities or "")
    topics = {q.topic for q in study.questions} | set(study.generate) | stored_topics
    load(path).check_topics(path, sorted(topics))


def extract_with_gazetteer(
    conn: sqlite3.Connection, study_id: int, model_id: int, model_label: str, settings: Extraction
) -> ExtractionReport:
    """Each answer's list: the gazetteer's names it contains, in order of appearance (no model)."""
    from pathlib import Path

    from workbench.methods.choice.gazetteer import load

    names = load(Path(settings.entities or ""))
    report = ExtractionReport(gazetteer=len(names.names))
    lists = []
    digest, rows = to_extract(conn, study_id, model_id, marks.made_with(settings), report)
    for key, topic, cluster, question, repetition, text, *_ in rows:
        found = names.find(text, topic, settings.fuzzy)
        entities = list(dict.fromkeys(f.entity for f in found))[: settings.k]
        flagged = flags(found, text, entities)
        report.near_spellings += sum(1 for f in flagged if f["kind"] == "near spelling")
        report.common_words += sum(1 for f in flagged if f["kind"] == "common word")
        lists.append(
            MentionList(
                model_label,
                topic,
                cluster,
                question,
                repetition,
                "gazetteer",
                _surfaces(entities),
                response_key=key,
                extracted_with=digest,
                flagged=flagged,
            )
        )
        report.answers += 1
        report.empty += not entities
    mentions.store_lists(conn, study_id, lists)
    return report


def flags(found: list, text: str, entities: list[str]) -> list[dict]:
    """The names of `entities` that a reviewer should check: each one no exact match found, as
    its first match reads (`workbench.methods.choice.gazetteer.Found.kind`), in list order."""
    exact = {f.entity for f in found if f.kind == "exact"}
    first = {}
    for f in found:
        first.setdefault(f.entity, f)
    return [
        {
            "name": name,
            "text": first[name].text_in(text),
            "kind": first[name].kind,
            "start": first[name].start,
            "end": first[name].end,
        }
        for name in entities
        if name not in exact
    ]


def expert_requests(key: str, question: str, text: str, settings: Extraction, extractor_identity: str):
    """The `extract` requests of one answer, one per expert (keyed by their content)."""
    planned = []
    for expert in range(1, settings.experts + 1):
        params: dict = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "seed": expert}
        if settings.output == "json":
            params["json_schema"] = expert_schema(settings.k)
        else:
            params.update(prefill="\n1.", stop=["\n\n", "\nAnswer:"])
        payload = {
            "messages": extraction_messages(question, text, settings.k, settings.output),
            "params": params,
            "answer_key": key,
        }
        planned.append(
            queue.PlannedRequest(
                key=request_key(stage="extract", model_identity=extractor_identity, payload=payload, repetition=expert),
                stage="extract",
                payload=payload,
                repetition=expert,
                seed=expert,
                parent_key=key,
            )
        )
    return planned


def plan_experts(
    conn: sqlite3.Connection,
    study_id: int,
    answer_model_id: int,
    extractor_model_id: int,
    extractor_identity: str,
    settings: Extraction,
) -> int:
    """One `extract` request per expert x answered answer not yet voted with these settings."""
    digest = marks.record(conn, marks.made_with(settings, extractor_identity))
    planned, again = [], []
    for key, _topic, _cluster, question, _rep, text, listed, _was in answers.answers_to_extract(
        conn, study_id, answer_model_id, digest
    ):
        requests = expert_requests(key, question, text, settings, extractor_identity)
        planned += requests
        again += [r.key for r in requests] if listed else []
    new = queue.plan(conn, study_id, extractor_model_id, planned)
    if again:  # settings put back: their experts' requests, superseded meanwhile, count again
        with transaction(conn):
            answers.count_again(conn, list(queue.own_keys(conn, study_id, again).values()))
    retire_other_experts(conn, study_id, answer_model_id, extractor_identity, settings)
    return new


def retire_other_experts(
    conn: sqlite3.Connection, study_id: int, answer_model_id: int, extractor_identity: str, settings: Extraction
) -> None:
    """Supersede the `extract` requests that other settings planned from the current answers
    (the status counts, and a run asks, only this file's experts)."""
    stale = answers.with_extra_follow_ups(conn, study_id, answer_model_id, "extract", settings.experts)
    if not stale:
        return
    planned = [r.key for row in stale for r in expert_requests(row[0], row[1], row[2], settings, extractor_identity)]
    with transaction(conn):
        current = set(queue.own_keys(conn, study_id, planned).values())
        answers.mark_follow_ups(conn, [row[0] for row in stale], "extract", current)


def vote(
    conn: sqlite3.Connection,
    study_id: int,
    answer_model_id: int,
    answer_label: str,
    settings: Extraction,
    extractor_identity: str,
) -> ExtractionReport:
    """Vote every answer whose experts (of these settings) have all finished (answered or failed)."""
    lists, agreements, replaced = [], [], []
    report = ExtractionReport(grounding=settings.grounding)
    min_votes = settings.min_votes or default_min_votes(settings.experts)
    made = marks.made_with(settings, extractor_identity)
    digest = marks.record(conn, made)
    rows = answers.answers_to_extract(conn, study_id, answer_model_id, digest)
    planned = [r.key for row in rows for r in expert_requests(row[0], row[3], row[5], settings, extractor_identity)]
    current = set(queue.own_keys(conn, study_id, planned).values())  # not another settings' experts
    for row in rows:
        key, topic, cluster, question, repetition, text, *_ = row
        experts = [e for e in answers.follow_ups(conn, key, "extract") if e["key"] in current]
        if len(experts) < settings.experts or any(e["status"] in ("pending", "running") for e in experts):
            continue
        parsed_lists = []
        with transaction(conn):
            conn.execute("DELETE FROM expert_lists WHERE response_key = ?", (key,))  # another settings' experts
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
        replaced += [row] if row["listed"] else []
        combined = combine(parsed_lists, text, settings.k, min_votes, settings.grounding)
        voted = combined.voted
        report.below_majority += len(combined.below_majority)
        report.ungrounded += len(combined.ungrounded)
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
                ungrounded=[v.surface for v in combined.ungrounded],
                extracted_with=digest,
            )
        )
        report.answers += 1
        report.empty += not voted
    note_again(conn, made, replaced, report)
    mentions.store_lists(conn, study_id, lists)
    report.mean_agreement = sum(agreements) / len(agreements) if agreements else None
    return report
