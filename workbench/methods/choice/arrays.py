"""A study's ranked lists as numpy arrays, and every scope's counts taken from them.

The lists are held by surface (the spelling a mention was stored under), not by
entity: a merge or a rename only changes which entity each surface resolves to, so
it costs a look-up table, not a reload. A reviewer's edit changes a few lists, which
`replace` swaps in place. The counts are the same numbers `counts.scope_counts`
gives from `ResponseList`s (tests hold the two to equality), counted with a few
bincounts over all mentions instead of Python loops over them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from operator import itemgetter

import numpy as np

from workbench.methods.choice.counts import RegionSlots, ScopeCounts, TopicCounts, is_united_states, kept_regions
from workbench.metrics.clustered import Questions, SlotRows


def _codes(values: list, index: dict, into: list) -> np.ndarray:
    """Each value's code in `index`; values not seen before get the next codes (and go
    into `into`). A dict pass per distinct value, then one look-up per value."""
    for value in dict.fromkeys(values):
        if value not in index:
            index[value] = len(into)
            into.append(value)
    return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))


def _columns(rows: list[tuple], width: int) -> list[list]:
    # not zip(*rows): unpacking a million rows as arguments costs half a second
    return [list(map(itemgetter(i), rows)) for i in range(width)]


@dataclass
class ListArrays:
    """Lists in id order (id, model x topic, cluster, repetition, question) and their
    mentions in (list id, rank) order (list id, rank, surface). A question is a wording in a
    model x topic x cluster: its repetitions are what an interval over questions resamples
    together."""

    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    group: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    cluster: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    rep: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    question: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    m_list: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    m_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    m_surface: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    groups: list[tuple[str, str]] = field(default_factory=list)
    clusters: list[str] = field(default_factory=list)
    surfaces: list[str] = field(default_factory=list)
    questions: list[tuple] = field(default_factory=list)
    _group_code: dict = field(default_factory=dict)
    _cluster_code: dict = field(default_factory=dict)
    _surface_code: dict = field(default_factory=dict)
    _question_code: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def replace(self, drop: Iterable[int], lists: list[tuple], mentions: list[tuple]) -> None:
        """Forget the lists `drop` (and their mentions), then add `lists` (id, model,
        topic, cluster, repetition, question) and `mentions` (list id, rank, surface key); mentions
        of lists not held (superseded ones) are left out."""
        drop = np.fromiter(drop, dtype=np.int64)
        if drop.size:
            keep = ~np.isin(self.ids, drop)
            self.ids, self.group, self.cluster, self.rep, self.question = (
                a[keep] for a in (self.ids, self.group, self.cluster, self.rep, self.question)
            )
            keep = ~np.isin(self.m_list, drop)
            self.m_list, self.m_rank, self.m_surface = (a[keep] for a in (self.m_list, self.m_rank, self.m_surface))
        if lists:
            ids, models, topics, clusters, reps, texts = _columns(lists, 6)
            self.ids = np.concatenate([self.ids, np.asarray(ids, dtype=np.int64)])
            self.group = np.concatenate([self.group, _codes(list(zip(models, topics)), self._group_code, self.groups)])
            names = [c or "" for c in clusters]  # no cluster: one unnamed group, as in the records
            self.cluster = np.concatenate([self.cluster, _codes(names, self._cluster_code, self.clusters)])
            self.rep = np.concatenate([self.rep, np.asarray(reps, dtype=np.int64)])
            asked = list(zip(models, topics, names, texts))
            self.question = np.concatenate([self.question, _codes(asked, self._question_code, self.questions)])
            order = np.argsort(self.ids, kind="stable")
            self.ids, self.group, self.cluster, self.rep, self.question = (
                a[order] for a in (self.ids, self.group, self.cluster, self.rep, self.question)
            )
        if mentions:
            list_ids, ranks, keys = _columns(mentions, 3)
            m_list = np.asarray(list_ids, dtype=np.int64)
            held = np.isin(m_list, self.ids)
            self.m_list = np.concatenate([self.m_list, m_list[held]])
            self.m_rank = np.concatenate([self.m_rank, np.asarray(ranks, dtype=np.int64)[held]])
            self.m_surface = np.concatenate([self.m_surface, _codes(keys, self._surface_code, self.surfaces)[held]])
            order = np.lexsort((self.m_rank, self.m_list))
            self.m_list, self.m_rank, self.m_surface = (a[order] for a in (self.m_list, self.m_rank, self.m_surface))


def only_groups(arrays: ListArrays, groups: set[tuple[str, str]]) -> ListArrays:
    """The lists of some model x topics (and their mentions), in the same codes: what their
    counts are made from, since a model x topic's counts read its own lists alone."""
    codes = np.asarray([arrays._group_code[g] for g in groups if g in arrays._group_code], dtype=np.int64)
    keep = np.isin(arrays.group, codes)
    ids = arrays.ids[keep]
    held = np.isin(arrays.m_list, ids)
    return replace(
        arrays,
        ids=ids,
        group=arrays.group[keep],
        cluster=arrays.cluster[keep],
        rep=arrays.rep[keep],
        question=arrays.question[keep],
        m_list=arrays.m_list[held],
        m_rank=arrays.m_rank[held],
        m_surface=arrays.m_surface[held],
    )


def _sparse(keys: np.ndarray, size: int, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, their counts or weight sums), keys ascending: a dense bincount
    where the key space is small, a sort where it is not."""
    if size <= 20_000_000:
        counts = np.bincount(keys, minlength=size)
        present = np.flatnonzero(counts)
        return present, (counts if weights is None else np.bincount(keys, weights, minlength=size))[present]
    distinct, inverse = np.unique(keys, return_inverse=True)
    return distinct, np.bincount(inverse, weights=weights)


class _Split:
    """Sparse counts keyed by (scope, entity), handed out one scope at a time as Counters."""

    def __init__(self, keys: np.ndarray, values: np.ndarray, n_entities: int, names: np.ndarray) -> None:
        self.scope, self.entity = np.divmod(keys, n_entities)
        self.values, self.names = values.astype(np.int64), names

    def counter(self, scope: int) -> Counter[str]:
        lo, hi = np.searchsorted(self.scope, [scope, scope + 1])
        return Counter(dict(zip(self.names[self.entity[lo:hi]].tolist(), self.values[lo:hi].tolist())))


class _Layout:
    """The lists and counted mentions of a snapshot, laid out by scope: model x topic x
    cluster (every list is in one) and model x topic. Every count is taken from these."""

    def __init__(self, arrays: ListArrays, surface_entity: np.ndarray, names: list[str]) -> None:
        self.arrays, self.names = arrays, names
        self.n_lists, self.n_entities = len(arrays.ids), max(len(names), 1)
        self.name_of = np.asarray(names + [""], dtype=object)
        self.n_clusters = max(len(arrays.clusters), 1)
        self.reps, self.rep_index = np.unique(arrays.rep, return_inverse=True)
        self.n_reps = max(len(self.reps), 1)
        self.scope = arrays.group * self.n_clusters + arrays.cluster
        self.n_groups = max(len(arrays.groups), 1)
        self.n_scopes = self.n_groups * self.n_clusters
        # every counted mention: its list's position and its entity, in (list, rank) order
        pos = np.searchsorted(arrays.ids, arrays.m_list)
        ent = surface_entity[arrays.m_surface] if len(surface_entity) else np.zeros(0, np.int64)
        counted = ent >= 0
        self.pos, self.ent = pos[counted], ent[counted]
        # each entity once per list, at its first (best-ranked) mention, ranked 1, 2, ... within the list
        _, first = np.unique(self.pos * self.n_entities + self.ent, return_index=True)
        first.sort()
        self.p_pos, self.p_ent = self.pos[first], self.ent[first]
        new_list = np.r_[True, self.p_pos[1:] != self.p_pos[:-1]] if len(self.p_pos) else np.zeros(0, bool)
        self.p_rank = np.arange(len(self.p_pos)) - np.flatnonzero(new_list)[np.cumsum(new_list) - 1] + 1

    def keys(self, topic: bool) -> tuple[np.ndarray, int]:
        """Each list's scope code and how many scopes: model x topic, or x cluster too."""
        return (self.arrays.group, self.n_groups) if topic else (self.scope, self.n_scopes)

    def by_scope(self, keys_scope: np.ndarray, size: int, weights=None) -> _Split:
        keys, values = _sparse(keys_scope, size, weights)
        return _Split(keys, values, self.n_entities, self.name_of)


def _entity_counts(layout: _Layout) -> dict[str, dict[bool, _Split]]:
    """Per scope and entity (keyed by whether the scope is a whole topic): the answers
    naming it, the same per repetition, its rank sums and its recommendation slots."""
    n_e, n_reps = layout.n_entities, layout.n_reps
    counts: dict[str, dict[bool, _Split]] = {"presence": {}, "per_rep": {}, "rank_sums": {}, "slots": {}}
    for topic in (False, True):
        key, size = layout.keys(topic)
        p_key = key[layout.p_pos]
        counts["presence"][topic] = layout.by_scope(p_key * n_e + layout.p_ent, size * n_e)
        counts["per_rep"][topic] = layout.by_scope(
            (p_key * n_reps + layout.rep_index[layout.p_pos]) * n_e + layout.p_ent, size * n_reps * n_e
        )
        counts["rank_sums"][topic] = layout.by_scope(p_key * n_e + layout.p_ent, size * n_e, layout.p_rank)
        counts["slots"][topic] = layout.by_scope(key[layout.pos] * n_e + layout.ent, size * n_e)
    return counts


def _list_flags(layout: _Layout) -> dict[str, np.ndarray]:
    """Per list: whether it names an entity, names the United States, and names it in its
    first three."""
    named = np.zeros(layout.n_lists, bool)
    named[layout.p_pos] = True
    is_us = np.array([is_united_states(n) for n in layout.names] + [False], dtype=bool)
    us_rows = is_us[layout.p_ent]
    with_us = np.zeros(layout.n_lists, bool)
    with_us[layout.p_pos[us_rows]] = True
    us_top3 = np.zeros(layout.n_lists, bool)
    us_top3[layout.p_pos[us_rows & (layout.p_rank <= 3)]] = True
    return {"named": named, "us": with_us, "top3": us_top3}


def _list_counts(layout: _Layout, flags: dict[str, np.ndarray]) -> dict[bool, dict[str, np.ndarray]]:
    """Per scope: its lists, those naming an entity, naming the United States, and
    naming it in their first three."""
    return {
        topic: {
            what: np.bincount(key, weights=flags.get(what), minlength=size).astype(np.int64)
            for what in ("n", "named", "us", "top3")
        }
        for topic, (key, size) in ((False, layout.keys(False)), (True, layout.keys(True)))
    }


def _question_counts(layout: _Layout, flags: dict[str, np.ndarray]) -> Callable[[int, bool], Questions]:
    """A scope's questions (model x topic x cluster x wording), each with all its
    repetitions: its stratum (cluster), answers, answers naming an entity or the United
    States in their first three, and per entity the answers naming it (one sparse count
    over every question, looked up per scope)."""
    arrays, n_e = layout.arrays, layout.n_entities
    _, first, local = np.unique(arrays.question, return_index=True, return_inverse=True)
    local = local.reshape(-1)
    q_group, q_cluster = arrays.group[first], arrays.cluster[first]
    q_n = np.bincount(local, minlength=len(first))
    q_named, q_top3 = (
        np.bincount(local, weights=flags[f], minlength=len(first)).astype(np.int64) for f in ("named", "top3")
    )
    # sorted, not a bincount: questions x entities is large (43,200 x 400 at 1M mentions)
    keys, values = np.unique(local[layout.p_pos] * n_e + layout.p_ent, return_counts=True)
    names = sorted(arrays.clusters)
    rank = np.argsort(np.argsort(np.asarray(arrays.clusters, dtype=object), kind="stable"))
    code_of = {name: i for i, name in enumerate(layout.names)}
    by, q_keys = {}, {True: q_group, False: q_group * layout.n_clusters + q_cluster}
    for topic, q_key in q_keys.items():
        order = np.argsort(q_key, kind="stable")
        by[topic] = (order, np.searchsorted(q_key[order], np.arange(layout.n_scopes + 1)))
    slot_rows = _slot_rows(layout, local, q_keys)

    def questions(index: int, topic: bool) -> Questions:
        order, bounds = by[topic]
        held = order[bounds[index] : bounds[index + 1]]

        def naming(entity: str) -> np.ndarray:
            if entity not in code_of or not len(keys):
                return np.zeros(len(held), np.int64)
            wanted = held * n_e + code_of[entity]
            at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            return np.where(keys[at] == wanted, values[at], 0).astype(np.int64)

        slots = lambda: slot_rows(index, topic)  # noqa: E731
        return Questions(rank[q_cluster[held]], names, q_n[held], q_named[held], naming, q_top3[held], slots)

    return questions


def _slot_rows(layout: _Layout, local: np.ndarray, q_keys: dict[bool, np.ndarray]) -> Callable[[int, bool], SlotRows]:
    """A scope's recommendation slots (every counted mention): each one's question row (in
    the order `questions` holds them), answer row and entity, from one sort per kind of scope,
    made when first asked for."""
    built: dict[bool, tuple] = {}

    def prepared(topic: bool) -> tuple:
        if topic not in built:
            q_key, (l_key, _size) = q_keys[topic], layout.keys(topic)
            bounds = np.arange(layout.n_scopes + 1)
            order = np.argsort(q_key, kind="stable")
            row_of = np.empty(len(q_key), np.int64)
            row_of[order] = np.arange(len(order)) - np.searchsorted(q_key[order], bounds)[q_key[order]]
            l_order = np.argsort(l_key, kind="stable")
            l_bounds = np.searchsorted(l_key[l_order], bounds)
            answer_of = np.empty(layout.n_lists, np.int64)
            answer_of[l_order] = np.arange(layout.n_lists) - l_bounds[l_key[l_order]]
            m_order = np.argsort(l_key[layout.pos], kind="stable")
            built[topic] = (row_of, answer_of, m_order, np.searchsorted(l_key[layout.pos][m_order], bounds), l_bounds)
        return built[topic]

    def rows(index: int, topic: bool) -> SlotRows:
        row_of, answer_of, m_order, m_bounds, l_bounds = prepared(topic)
        held = m_order[m_bounds[index] : m_bounds[index + 1]]
        pos = layout.pos[held]
        answers = int(l_bounds[index + 1] - l_bounds[index])
        return SlotRows(row_of[local[pos]], answer_of[pos], layout.ent[held], layout.names, answers)

    return rows


def _present_reps(layout: _Layout) -> dict[tuple[bool, int], set[int]]:
    """Which repetitions each scope has (a repetition whose answers named nothing still counts)."""
    present: dict[tuple[bool, int], set[int]] = {}
    for topic in (False, True):
        key, _size = layout.keys(topic)
        for pair in np.unique(key * layout.n_reps + layout.rep_index).tolist():
            present.setdefault((topic, pair // layout.n_reps), set()).add(int(layout.reps[pair % layout.n_reps]))
    return present


def _clusters_of(arrays: ListArrays) -> dict[int, list[int]]:
    """Each model x topic's cluster codes, in name order."""
    return {
        g: sorted(set(arrays.cluster[arrays.group == g].tolist()), key=lambda c: arrays.clusters[c])
        for g in range(len(arrays.groups))
    }


def _region_tables(layout: _Layout, clusters_of: dict[int, list[int]]) -> Callable:
    """A builder of a model x topic's region tables: per cluster, each list's slots by region."""
    arrays, names, scope, pos, ent = layout.arrays, layout.names, layout.scope, layout.pos, layout.ent
    # mention rows grouped by cluster scope
    slot_order = np.argsort(scope[pos], kind="stable")
    slot_bounds = np.searchsorted(scope[pos][slot_order], np.arange(layout.n_scopes + 1))
    list_order = np.argsort(scope, kind="stable")
    list_bounds = np.searchsorted(scope[list_order], np.arange(layout.n_scopes + 1))
    local = np.empty(layout.n_lists, np.int64)  # each list's row within its cluster's table
    local[list_order] = np.arange(layout.n_lists) - list_bounds[scope[list_order]]
    code_of = {name: i for i, name in enumerate(names)}

    def region_table(g: int, counts: ScopeCounts) -> Callable:
        def build(region_of: Callable[[str], str | None], min_share: float) -> RegionSlots:
            regions, code = kept_regions(counts.presence, counts.n, region_of, min_share)
            region_code = np.full(len(names) + 1, -1, np.int64)
            for entity, region in code.items():
                region_code[code_of[entity]] = region
            width = max(len(regions), 1)
            per_group, questions = {}, {}
            for c in clusters_of[g]:
                s = g * layout.n_clusters + c
                rows = slot_order[slot_bounds[s] : slot_bounds[s + 1]]
                region = region_code[ent[rows]]
                held = region >= 0
                n_rows = int(list_bounds[s + 1] - list_bounds[s])
                matrix = np.bincount(local[pos[rows][held]] * width + region[held], minlength=n_rows * width)
                per_group[arrays.clusters[c]] = matrix.reshape(n_rows, width).astype(float)
                asked = arrays.question[list_order[list_bounds[s] : list_bounds[s + 1]]]
                questions[arrays.clusters[c]] = np.unique(asked, return_inverse=True)[1].reshape(-1)
            return RegionSlots(regions, per_group, questions)

        return build

    return region_table


def topic_counts(
    arrays: ListArrays, surface_entity: np.ndarray, names: list[str]
) -> dict[tuple[str, str], TopicCounts]:
    """Every model x topic's counts. `surface_entity`: each surface's entity code (-1:
    no entity, the mention is not counted); `names`: each entity code's canonical name."""
    # A snapshot: the arrays are replaced, never written into, but the name lists grow in
    # place, and the region tables below are built after the caller's lock is released,
    # while another refresh may be patching the same ListArrays.
    arrays = replace(arrays, groups=list(arrays.groups), clusters=list(arrays.clusters))
    layout = _Layout(arrays, surface_entity, names)
    flags = _list_flags(layout)
    entity_counts, list_counts, present_reps = (
        _entity_counts(layout),
        _list_counts(layout, flags),
        _present_reps(layout),
    )
    question_counts = _question_counts(layout, flags)
    reps, n_reps = layout.reps, layout.n_reps

    def scope_counts(index: int, topic: bool) -> ScopeCounts:
        rep_counts = {
            int(reps[r]): entity_counts["per_rep"][topic].counter(index * n_reps + r) for r in range(len(reps))
        }
        lists = list_counts[topic]
        return ScopeCounts(
            n=int(lists["n"][index]),
            presence=entity_counts["presence"][topic].counter(index),
            per_rep={r: c for r, c in rep_counts.items() if r in present_reps[(topic, index)]},
            slots=entity_counts["slots"][topic].counter(index),
            with_entities=int(lists["named"][index]),
            rank_sums=entity_counts["rank_sums"][topic].counter(index),
            with_us=int(lists["us"][index]),
            us_in_top3=int(lists["top3"][index]),
            questions=question_counts(index, topic),
        )

    clusters_of = _clusters_of(arrays)
    region_table = _region_tables(layout, clusters_of)
    out: dict[tuple[str, str], TopicCounts] = {}
    for g, key in enumerate(arrays.groups):
        if not list_counts[True]["n"][g]:
            continue  # every list of this model x topic was dropped
        topic = scope_counts(g, True)
        scopes: dict[str | None, ScopeCounts] = {None: topic}
        for c in clusters_of[g]:
            if arrays.clusters[c]:
                scopes[arrays.clusters[c]] = scope_counts(g * layout.n_clusters + c, False)
        out[key] = TopicCounts(scopes, region_table(g, topic))
    return out
