"""ChoiceEval's evidence (workbench/evidence.py): the answers behind a PEIR, a region's share
of the recommendation slots and a log-odds between two regions, read from the lists that count
now (after review, merges and regions) exactly as the metrics count them: an entity once per
answer for PEIR, every slot for the shares and the log-odds, the 5 % filter on the topic's
answers for the log-odds."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from dataclasses import dataclass

from workbench.evidence import Answer, Evidence, EvidenceError, Query, known, model_named
from workbench.methods.choice.counts import NON_US, ResponseList, kept_regions, presence_of
from workbench.methods.choice.metrics import DEFAULT_REGION_PAIRS, _sides, preferred_entity
from workbench.metric_views import ALL
from workbench.numbers import fmt_num
from workbench.store import mentions
from workbench.store.answer_texts import answer_texts
from workbench.store.current_lists import counts_now
from workbench.store.studies import study_spec
from workbench.words import plural_word

METRICS = {
    "peir": "the preferred entity: every answer of the scope, those naming it first",
    "region_share": "each region's recommendation slots (--region: one region's)",
    "lor": "two regions' slots per cluster, after the 5% filter (--pair A B: one pair)",
}


@dataclass(frozen=True)
class _List:
    """One answer's list as the metrics read it: its slots as (surface, entity) pairs."""

    model: str
    topic: str
    cluster: str | None
    question: str
    repetition: int
    key: str | None
    text: str | None
    slots: tuple[tuple[str, str], ...]

    @property
    def entities(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(entity for _s, entity in self.slots))

    def surfaces_of(self, wanted) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s for s, entity in self.slots if wanted(entity)))


def _lists(conn: sqlite3.Connection, study_id: int, topic: str) -> list[_List]:
    rows = conn.execute(
        f"SELECT l.id, l.model, l.topic, l.cluster, l.question, l.repetition, l.response_key "
        f"FROM mention_lists l WHERE l.study_id = ? AND l.topic = ? AND {counts_now('l')} "
        f"ORDER BY l.model, l.cluster, l.question, l.repetition",
        (study_id, topic),
    ).fetchall()
    texts = answer_texts(conn, (row[6] for row in rows))
    aliases, names = mentions.resolution(conn)
    slots: dict[int, list[tuple[str, str]]] = {}
    ids = [row[0] for row in rows]
    for at in range(0, len(ids), 500):
        chunk = ids[at : at + 500]
        for list_id, surface, key in conn.execute(
            f"SELECT list_id, surface, surface_key FROM mentions WHERE list_id IN ({','.join('?' * len(chunk))}) "
            "ORDER BY list_id, rank",
            chunk,
        ):
            entity = aliases.get(key)
            if entity is not None:  # a spelling that reads as no entity counts for none (as the metrics)
                slots.setdefault(list_id, []).append((surface, names[entity]))
    return [_List(*row[1:], texts.get(row[6]), tuple(slots.get(row[0], ()))) for row in rows]


def _topics(conn: sqlite3.Connection, study_id: int) -> list[str]:
    rows = conn.execute(
        f"SELECT DISTINCT topic FROM mention_lists l WHERE study_id = ? AND {counts_now('l')} ORDER BY topic",
        (study_id,),
    )
    return [r[0] for r in rows]


def evidence(conn: sqlite3.Connection, study_id: int, query: Query) -> list[Evidence]:
    topics = _topics(conn, study_id)
    if query.topic is None:
        if len(topics) != 1:
            raise EvidenceError(f"name a topic with --topic (known: {', '.join(repr(t) for t in topics) or 'none'})")
        query = Query(query.metric, topics[0], query.model, query.cluster, query.target, query.study)
    known(query.topic, topics, "topic")
    lists = _lists(conn, study_id, query.topic)
    model = model_named(query.model, sorted({item.model for item in lists}))
    clusters = sorted({item.cluster for item in lists if item.cluster})
    known(query.cluster, clusters, f"cluster of topic {query.topic!r}")
    settings = study_spec(conn, query.study).get("metrics", {})
    out = []
    for name in sorted({item.model for item in lists}):
        if model is not None and name != model:
            continue
        of_model = [item for item in lists if item.model == name]
        scope = [item for item in of_model if query.cluster is None or item.cluster == query.cluster]
        base = {"study": query.study, "method": "choice", "model": name, "topic": query.topic, "cluster": query.cluster}
        if query.metric == "peir":
            out.append(_peir(base, scope))
        elif query.metric == "region_share":
            out.append(_region_share(conn, base, scope, query.target))
        else:
            pairs = [tuple(p) for p in settings.get("region_pairs", DEFAULT_REGION_PAIRS)]
            for a, b in _pairs(pairs, query.target):
                out.append(_lor(conn, base, of_model, scope, (a, b), settings.get("min_share", 0.05)))
    return out


def _answer(item: _List, counted: tuple[str, ...]) -> Answer:
    return Answer(
        item.model,
        item.topic,
        item.question,
        item.text,
        tuple(s for s, _e in item.slots),
        counted,
        item.cluster,
        item.repetition,
        item.key,
    )


def _ordered(scope: list[_List], counted_of) -> tuple[tuple[Answer, ...], int]:
    """The answers, those with a counted name first (in the order asked), and how many those are."""
    answers = [_answer(item, counted_of(item)) for item in scope]
    first = [a for a in answers if a.counted]
    return tuple(first + [a for a in answers if not a.counted]), len(first)


def _peir(base: dict, scope: list[_List]) -> Evidence:
    lists = [ResponseList(i.model, i.topic, i.cluster, i.question, i.repetition, i.entities) for i in scope]
    presence = presence_of(lists)
    entity, _share, n = preferred_entity(lists, presence)
    if entity is None:
        answers, _ = _ordered(scope, lambda item: ())
        sentence = f"no entity named in any of {n} {plural_word(n, 'answer')}: no preferred entity"
        return Evidence(**base, metric="peir", sentence=sentence, answers=answers)
    tied = sorted(e for e, c in presence.items() if c == presence[entity])
    held = presence[entity]
    share = f"PEIR {fmt_num(held / n, 2)}"
    if len(tied) > 1:
        sentence = f"tie: {', '.join(tied)} each named in {held} of {n} {plural_word(n, 'answer')} ({share})"
    else:
        sentence = f"{entity} named in {held} of {n} {plural_word(n, 'answer')} ({share})"
    runner = sorted(((c, e) for e, c in presence.items() if c < held), key=lambda ce: (-ce[0], ce[1]))[:1]
    details = tuple(f"next: {e} named in {c} of {n}" for c, e in runner)
    wanted = set(tied)
    answers, counting = _ordered(scope, lambda item: item.surfaces_of(wanted.__contains__))
    target = ", ".join(tied)
    return Evidence(
        **base,
        metric="peir",
        target=target,
        sentence=sentence,
        details=details,
        answers=answers,
        counting=counting,
    )


def _region_share(conn: sqlite3.Connection, base: dict, scope: list[_List], region: str | None) -> Evidence:
    region_of = mentions.regions(conn)

    def of(entity: str) -> str:
        return region_of.get(entity) or "Unknown"

    slots = Counter(of(entity) for item in scope for _s, entity in item.slots)
    total = sum(slots.values())
    shown = [region] if region else sorted(slots)
    parts = tuple(
        f"{r}: {slots[r]} of {total} slots ({fmt_num(slots[r] / total, 2)}), in "
        f"{sum(1 for i in scope if any(of(e) == r for _s, e in i.slots))} of {len(scope)} answers"
        for r in shown
    )
    if not total:
        sentence = f"no recommendation slot in {len(scope)} {plural_word(len(scope), 'answer')}: no region's share"
    elif region:
        sentence = parts[0]
    else:
        sentence = f"{total} recommendation slots in {len(scope)} answers, by region"
    unknown = " (entities without a region count as Unknown)" if slots.get("Unknown") else ""
    answers, counting = _ordered(scope, lambda item: item.surfaces_of(lambda e: of(e) in shown))
    return Evidence(
        **base,
        metric="region_share",
        target=region,
        sentence=sentence + unknown,
        details=parts if not region else (),
        answers=answers,
        counting=counting,
    )


def _pairs(pairs: list[tuple], target: str | None) -> list[tuple]:
    """The study's region pairs, or the one `target` names ("A vs B")."""
    if target is None:
        return pairs
    named = [p for p in pairs if f"{p[0]} vs {p[1]}" == target]
    if not named:
        raise EvidenceError(
            f"no region pair {target!r} in this study (known: {', '.join(f'{a} vs {b}' for a, b in pairs)})"
        )
    return named


def _lor(conn, base: dict, of_model: list[_List], scope: list[_List], pair: tuple, min_share: float) -> Evidence:
    """The log-odds of one pair: per cluster, each side's slots among the entities the 5 % filter
    keeps (over the topic's answers), the log-odds of each and the entities left out."""
    a, b = pair
    region_of = mentions.regions(conn)
    lists = [ResponseList(i.model, i.topic, i.cluster, i.question, i.repetition, i.entities) for i in of_model]
    regions, code = kept_regions(presence_of(lists), len(lists), region_of.get, min_share)
    side = {e: _sides(regions[c], a, b) for e, c in code.items()}
    by_cluster: dict[str, list[_List]] = {}
    for item in scope:
        by_cluster.setdefault(item.cluster or "", []).append(item)
    details, total_a, total_b = [], 0, 0
    for cluster, items in sorted(by_cluster.items()):
        na = sum(1 for i in items for _s, e in i.slots if side.get(e, (False, False))[0])
        nb = sum(1 for i in items for _s, e in i.slots if side.get(e, (False, False))[1])
        total_a, total_b = total_a + na, total_b + nb
        lor = f"log-odds {fmt_num(math.log((na + 0.5) / (nb + 0.5)), 2, signed=True)}" if na and nb else "n/a"
        details.append(f"{cluster or '(no cluster)'}: {a} {na} vs {b} {nb} slots in {len(items)} answers, {lor}")
    left_out = sorted({e for i in scope for _s, e in i.slots if e not in code})
    if left_out:
        shown = ", ".join(left_out[:8]) + (f" and {len(left_out) - 8} more" if len(left_out) > 8 else "")
        details.append(f"below the {min_share:.0%} filter, not counted: {shown}")
    unknown = sorted(e for e in code if not region_of.get(e))
    if unknown:
        details.append(f"without a region (counted as Unknown, on neither side): {', '.join(unknown[:8])}")
    side_b = "every other known region" if b == NON_US else b
    sentence = (
        f"{a} {total_a} vs {side_b} {total_b} recommendation slots in {len(scope)} answers "
        f"over {len(by_cluster)} {plural_word(len(by_cluster), 'cluster')}"
    )
    counted = {e for e, (sa, sb) in side.items() if sa or sb}
    answers, counting = _ordered(scope, lambda item: item.surfaces_of(counted.__contains__))
    return Evidence(
        **base,
        metric="lor",
        target=f"{a} vs {b}",
        sentence=sentence,
        details=tuple(details),
        answers=answers,
        counting=counting,
    )


def cell_query(panel_id: str, header: list[str], row: list[str], column: int, choices: dict) -> Query | None:
    """The number a cell of ChoiceEval's tables shows: its column's model, its row's topic (and
    region or region pair), the cluster the screen's filter chose."""
    if column < 1 or column >= len(header) or not row:
        return None
    cluster = choices.get("cluster")
    cluster = None if cluster in (None, "", ALL) else cluster
    model = header[column]
    if panel_id == "peir-table":
        return Query("peir", row[0], model, cluster)
    if panel_id == "lor-table" and column >= 2:
        return Query("lor", row[0], model, cluster, row[1])
    if panel_id == "region-table" and " · " in row[0]:
        topic, region = row[0].rsplit(" · ", 1)
        return Query("region_share", topic, model, cluster, region)
    return None


def record_query(row: dict) -> Query | None:
    """The number a flat record is (a report headline): a log-odds or a PEIR of a topic or cluster."""
    if row.get("metric") == "lor":
        return Query("lor", row["topic"], row["model"], row.get("cluster"), f"{row['region_a']} vs {row['region_b']}")
    if row.get("metric") == "peir":
        return Query("peir", row["topic"], row["model"], row.get("cluster"))
    if row.get("metric") == "region_share":
        return Query("region_share", row["topic"], row["model"], row.get("cluster"), row.get("region"))
    return None
