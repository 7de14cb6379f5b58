"""ChoiceEval's evidence (workbench/analysis/evidence.py): the answers behind a PEIR, a region's share
of the recommendation slots and a log-odds between two regions, read from the lists that count
now (after review, merges and regions) exactly as the metrics count them: an entity once per
answer for PEIR, every slot for the shares and the log-odds, the 5 % filter on the topic's
answers for the log-odds."""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from dataclasses import dataclass

from workbench.display.evidence import Answer, Evidence, EvidenceError, Query, known, model_named
from workbench.display.metric_views import ALL
from workbench.methods.choice.counts import NON_US, ResponseList, kept_regions, presence_of
from workbench.methods.choice.metrics import DEFAULT_REGION_PAIRS, _sides, preferred_entity
from workbench.store.current_lists import counts_now
from workbench.store.entities import mentions
from workbench.store.entities.regions import RegionError, canonical_region, known_regions
from workbench.store.requests.answer_texts import answer_texts
from workbench.store.requests.studies import study_spec
from workbench.store.surface import normalize_surface
from workbench.text.numbers import fmt_num
from workbench.text.words import plural_word

METRICS = {
    "peir": "the preferred entity: every answer of the scope, those naming it first",
    "region_share": "each region's recommendation slots (--region: one region's)",
    "lor": "two regions' slots per cluster, after the 5% filter (--pair A B: one pair)",
}
OPTIONS = {"peir": ("cluster",), "region_share": ("cluster", "region"), "lor": ("cluster", "pair")}
UNKNOWN = "Unknown"  # the region of the slots whose entity has none


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
    found: tuple[tuple[str, int, int], ...] = ()  # (entity, start, end) where the gazetteer flagged a name

    @property
    def entities(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(entity for _s, entity in self.slots))

    def counted_of(self, wanted) -> tuple[str, ...]:
        return tuple(e for e in self.entities if wanted(e))


def _spellings(conn: sqlite3.Connection) -> dict[str, set[str]]:
    """Each entity's name now -> the names and gazetteer spellings of it and of the entities merged
    into it: how the answers may write a name a merge or a rename changed."""
    rows = {
        i: (name, into, json.loads(attrs or "{}"))
        for i, name, into, attrs in conn.execute("SELECT id, name, merged_into, attributes_json FROM entities")
    }
    out: dict[str, set[str]] = {}
    for name, into, attrs in rows.values():
        final, seen = into, set()
        while final is not None and final in rows and final not in seen:  # a chain of merges
            seen.add(final)
            if rows[final][1] is None:
                break
            final = rows[final][1]
        head = rows[final][0] if final in rows else name
        spelled = str(attrs.get("spellings") or "").split("|")
        out.setdefault(head, set()).update(w.strip() for w in [name, *spelled] if w.strip())
    return out


def _found(flagged: str | None, aliases: dict, names: dict) -> tuple[tuple[str, int, int], ...]:
    out = []
    for flag in json.loads(flagged) if flagged else ():
        entity = aliases.get(normalize_surface(str(flag.get("name", ""))))
        if entity is not None and isinstance(flag.get("start"), int) and isinstance(flag.get("end"), int):
            out.append((names[entity], flag["start"], flag["end"]))
    return tuple(out)


def _lists(conn: sqlite3.Connection, study_id: int, topic: str) -> list[_List]:
    rows = conn.execute(
        f"SELECT l.id, l.model, l.topic, l.cluster, l.question, l.repetition, l.response_key, l.flagged_json "
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
    return [
        _List(*row[1:7], texts.get(row[6]), tuple(slots.get(row[0], ())), _found(row[7], aliases, names))
        for row in rows
    ]


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
    region = _region(conn, query.target) if query.metric == "region_share" else None
    spellings = _spellings(conn)
    out = []
    for name in sorted({item.model for item in lists}):
        if model is not None and name != model:
            continue
        of_model = [item for item in lists if item.model == name]
        scope = [item for item in of_model if query.cluster is None or item.cluster == query.cluster]
        base = {"study": query.study, "method": "choice", "model": name, "topic": query.topic, "cluster": query.cluster}
        if query.metric == "peir":
            out.append(_peir(base, scope, spellings))
        elif query.metric == "region_share":
            out.append(_region_share(conn, base, scope, region, spellings))
        else:
            pairs = [tuple(p) for p in settings.get("region_pairs", DEFAULT_REGION_PAIRS)]
            for a, b in _pairs(pairs, query.target, known_regions(conn)):
                args = (of_model, scope, (a, b), settings.get("min_share", 0.05), spellings)
                out.append(_lor(conn, base, *args))
    return out


def _region(conn: sqlite3.Connection, value: str | None) -> str | None:
    """The region `--region` names, matched as `import entities` matches regions (case and
    spacing aside, "US" for United States), or Unknown; refused naming the known ones."""
    if value is None or value.strip().casefold() == UNKNOWN.casefold():
        return None if value is None else UNKNOWN
    if not value.strip():  # blank would read as every region: not what was asked for
        raise EvidenceError(f"--region is blank (known: {', '.join(known_regions(conn))}, {UNKNOWN})")
    try:
        return canonical_region(value, known_regions(conn))
    except RegionError as exc:
        raise EvidenceError(f"{exc} (and {UNKNOWN}: entities without a region)") from None


def _answer(item: _List, counted: tuple[str, ...], spellings: dict[str, set[str]]) -> Answer:
    """One answer: its list by its entities' names now, the counted ones with the ways the text
    writes them (the list's own spellings, the gazetteer's) and where the gazetteer flagged them."""
    written = {s for s, e in item.slots if e in counted} | {w for e in counted for w in spellings.get(e, ())}
    spans = tuple((start, end) for e, start, end in item.found if e in counted)
    return Answer(
        item.model,
        item.topic,
        item.question,
        item.text,
        tuple(e for _s, e in item.slots),
        counted,
        item.cluster,
        item.repetition,
        item.key,
        spellings=tuple(sorted(written - set(counted))),
        spans=spans,
    )


def _ordered(scope: list[_List], counted_of, spellings) -> tuple[tuple[Answer, ...], int]:
    """The answers, those with a counted name first (in the order asked), and how many those are."""
    answers = [_answer(item, counted_of(item), spellings) for item in scope]
    first = [a for a in answers if a.counted]
    return tuple(first + [a for a in answers if not a.counted]), len(first)


def _peir(base: dict, scope: list[_List], spellings: dict) -> Evidence:
    lists = [ResponseList(i.model, i.topic, i.cluster, i.question, i.repetition, i.entities) for i in scope]
    presence = presence_of(lists)
    entity, _share, n = preferred_entity(lists, presence)
    if entity is None:
        answers, _ = _ordered(scope, lambda item: (), spellings)
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
    answers, counting = _ordered(scope, lambda item: item.counted_of(wanted.__contains__), spellings)
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


def _region_share(conn: sqlite3.Connection, base: dict, scope: list[_List], region: str | None, spellings) -> Evidence:
    region_of = mentions.regions(conn)

    def of(entity: str) -> str:
        return region_of.get(entity) or UNKNOWN

    slots = Counter(of(entity) for item in scope for _s, entity in item.slots)
    total = sum(slots.values())
    shown = [region] if region else sorted(slots)
    parts = tuple(
        f"{r}: {slots[r]} of {total} {plural_word(total, 'slot')} "
        f"({fmt_num(slots[r] / total, 2) if total else 'n/a: no slots'}), in "
        f"{sum(1 for i in scope if any(of(e) == r for _s, e in i.slots))} of {len(scope)} {plural_word(len(scope), 'answer')}"
        for r in shown
    )
    if not total:
        sentence = f"no recommendation slot in {len(scope)} {plural_word(len(scope), 'answer')}: no region's share"
    elif region:
        sentence = parts[0]
    else:
        sentence = f"{total} recommendation {plural_word(total, 'slot')} in {len(scope)} {plural_word(len(scope), 'answer')}, by region"
    unknown = " (entities without a region count as Unknown)" if slots.get("Unknown") else ""
    answers, counting = _ordered(scope, lambda item: item.counted_of(lambda e: of(e) in shown), spellings)
    return Evidence(
        **base,
        metric="region_share",
        target=region,
        sentence=sentence + unknown,
        details=parts if not region else (),
        answers=answers,
        counting=counting,
    )


def _pairs(pairs: list[tuple], target: str | None, regions: list[str]) -> list[tuple]:
    """The study's region pairs, or the one `target` names ("A vs B", each side matched as
    `import entities` matches a region: "us vs europe" is "United States vs Europe")."""
    if target is None:
        return pairs

    def key(side: str) -> str:
        try:
            return canonical_region(side, [*regions, NON_US]) or side
        except RegionError:
            return side  # no pair holds it: refused below, naming the pairs

    a, _vs, b = target.partition(" vs ")
    named = [p for p in pairs if (key(p[0]), key(p[1])) == (key(a), key(b))]
    if not named:
        raise EvidenceError(
            f"no region pair {target!r} in this study (known: {', '.join(f'{a} vs {b}' for a, b in pairs)})"
        )
    return named


def _lor(
    conn, base: dict, of_model: list[_List], scope: list[_List], pair: tuple, min_share: float, spellings
) -> Evidence:
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
        details.append(
            f"{cluster or '(no cluster)'}: {a} {na} vs {b} {nb} slots in {len(items)} {plural_word(len(items), 'answer')}, {lor}"
        )
    left_out = sorted({e for i in scope for _s, e in i.slots if e not in code})
    if left_out:
        shown = ", ".join(left_out[:8]) + (f" and {len(left_out) - 8} more" if len(left_out) > 8 else "")
        details.append(f"below the {min_share:.0%} filter, not counted: {shown}")
    unknown = sorted(e for e in code if not region_of.get(e))
    if unknown:
        details.append(f"without a region (counted as Unknown, on neither side): {', '.join(unknown[:8])}")
    side_b = "every other known region" if b == NON_US else b
    sentence = (
        f"{a} {total_a} vs {side_b} {total_b} recommendation slots in {len(scope)} {plural_word(len(scope), 'answer')} "
        f"over {len(by_cluster)} {plural_word(len(by_cluster), 'cluster')}"
    )
    counted = {e for e, (sa, sb) in side.items() if sa or sb}
    answers, counting = _ordered(scope, lambda item: item.counted_of(counted.__contains__), spellings)
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
