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
    """Lists in id order (id, model x topic, cluster, repetition) and their mentions in
    (list id, rank) order (list id, rank, surface)."""

    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    group: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    cluster: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    rep: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    m_list: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    m_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    m_surface: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    groups: list[tuple[str, str]] = field(default_factory=list)
    clusters: list[str] = field(default_factory=list)
    surfaces: list[str] = field(default_factory=list)
    _group_code: dict = field(default_factory=dict)
    _cluster_code: dict = field(default_factory=dict)
    _surface_code: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def replace(self, drop: Iterable[int], lists: list[tuple], mentions: list[tuple]) -> None:
        """Forget the lists `drop` (and their mentions), then add `lists` (id, model,
        topic, cluster, repetition) and `mentions` (list id, rank, surface key); mentions
        of lists not held (superseded ones) are left out."""
        drop = np.fromiter(drop, dtype=np.int64)
        if drop.size:
            keep = ~np.isin(self.ids, drop)
            self.ids, self.group, self.cluster, self.rep = (
                a[keep] for a in (self.ids, self.group, self.cluster, self.rep)
            )
            keep = ~np.isin(self.m_list, drop)
            self.m_list, self.m_rank, self.m_surface = (a[keep] for a in (self.m_list, self.m_rank, self.m_surface))
        if lists:
            ids, models, topics, clusters, reps = _columns(lists, 5)
            self.ids = np.concatenate([self.ids, np.asarray(ids, dtype=np.int64)])
            self.group = np.concatenate([self.group, _codes(list(zip(models, topics)), self._group_code, self.groups)])
            names = [c or "" for c in clusters]  # no cluster: one unnamed group, as in the records
            self.cluster = np.concatenate([self.cluster, _codes(names, self._cluster_code, self.clusters)])
            self.rep = np.concatenate([self.rep, np.asarray(reps, dtype=np.int64)])
            order = np.argsort(self.ids, kind="stable")
            self.ids, self.group, self.cluster, self.rep = (
                a[order] for a in (self.ids, self.group, self.cluster, self.rep)
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


def topic_counts(
    arrays: ListArrays, surface_entity: np.ndarray, names: list[str]
) -> dict[tuple[str, str], TopicCounts]:
    """Every model x topic's counts. `surface_entity`: each surface's entity code (-1:
    no entity, the mention is not counted); `names`: each entity code's canonical name."""
    # A snapshot: the arrays are replaced, never written into, but the name lists grow in
    # place, and the region tables below are built after the caller's lock is released,
    # while another refresh may be patching the same ListArrays.
    arrays = replace(arrays, groups=list(arrays.groups), clusters=list(arrays.clusters))
    n_lists, n_entities = len(arrays.ids), max(len(names), 1)
    name_of = np.asarray(names + [""], dtype=object)
    n_clusters = max(len(arrays.clusters), 1)
    reps, rep_index = np.unique(arrays.rep, return_inverse=True)
    n_reps = max(len(reps), 1)
    # scopes: model x topic x cluster (every list is in one), and model x topic
    scope = arrays.group * n_clusters + arrays.cluster
    n_scopes, n_groups = max(len(arrays.groups), 1) * n_clusters, max(len(arrays.groups), 1)

    # every counted mention: its list's position and its entity, in (list, rank) order
    pos = np.searchsorted(arrays.ids, arrays.m_list)
    ent = surface_entity[arrays.m_surface] if len(surface_entity) else np.zeros(0, np.int64)
    counted = ent >= 0
    pos, ent = pos[counted], ent[counted]
    # each entity once per list, at its first (best-ranked) mention, ranked 1, 2, ... within the list
    _, first = np.unique(pos * n_entities + ent, return_index=True)
    first.sort()
    p_pos, p_ent = pos[first], ent[first]
    new_list = np.r_[True, p_pos[1:] != p_pos[:-1]] if len(p_pos) else np.zeros(0, bool)
    p_rank = np.arange(len(p_pos)) - np.flatnonzero(new_list)[np.cumsum(new_list) - 1] + 1

    def by_scope(keys_scope: np.ndarray, size: int, weights=None) -> _Split:
        keys, values = _sparse(keys_scope, size, weights)
        return _Split(keys, values, n_entities, name_of)

    p_scope, p_group = scope[p_pos], arrays.group[p_pos]
    presence = {
        False: by_scope(p_scope * n_entities + p_ent, n_scopes * n_entities),
        True: by_scope(p_group * n_entities + p_ent, n_groups * n_entities),
    }
    per_rep = {
        False: by_scope((p_scope * n_reps + rep_index[p_pos]) * n_entities + p_ent, n_scopes * n_reps * n_entities),
        True: by_scope((p_group * n_reps + rep_index[p_pos]) * n_entities + p_ent, n_groups * n_reps * n_entities),
    }
    rank_sums = {
        False: by_scope(p_scope * n_entities + p_ent, n_scopes * n_entities, p_rank),
        True: by_scope(p_group * n_entities + p_ent, n_groups * n_entities, p_rank),
    }
    slots = {
        False: by_scope(scope[pos] * n_entities + ent, n_scopes * n_entities),
        True: by_scope(arrays.group[pos] * n_entities + ent, n_groups * n_entities),
    }

    named = np.zeros(n_lists, bool)
    named[p_pos] = True
    is_us = np.array([is_united_states(n) for n in names] + [False], dtype=bool)
    us_rows = is_us[p_ent]
    with_us = np.zeros(n_lists, bool)
    with_us[p_pos[us_rows]] = True
    us_top3 = np.zeros(n_lists, bool)
    us_top3[p_pos[us_rows & (p_rank <= 3)]] = True
    list_counts = {
        topic: {
            what: np.bincount(key, weights=flags, minlength=size).astype(np.int64)
            for what, flags in (("n", None), ("named", named), ("us", with_us), ("top3", us_top3))
        }
        for topic, key, size in ((False, scope, n_scopes), (True, arrays.group, n_groups))
    }

    def scope_counts(index: int, topic: bool) -> ScopeCounts:
        rep_counts = {int(reps[r]): per_rep[topic].counter(index * n_reps + r) for r in range(len(reps))}
        lists = list_counts[topic]
        return ScopeCounts(
            n=int(lists["n"][index]),
            presence=presence[topic].counter(index),
            per_rep={r: c for r, c in rep_counts.items() if r in present_reps[(topic, index)]},
            slots=slots[topic].counter(index),
            with_entities=int(lists["named"][index]),
            rank_sums=rank_sums[topic].counter(index),
            with_us=int(lists["us"][index]),
            us_in_top3=int(lists["top3"][index]),
        )

    # which repetitions each scope has (a repetition whose answers named nothing still counts)
    present_reps: dict[tuple[bool, int], set[int]] = {}
    for topic, key in ((False, scope), (True, arrays.group)):
        for pair in np.unique(key * n_reps + rep_index).tolist():
            present_reps.setdefault((topic, pair // n_reps), set()).add(int(reps[pair % n_reps]))

    # mention rows grouped by cluster scope, for the region tables
    slot_order = np.argsort(scope[pos], kind="stable")
    slot_bounds = np.searchsorted(scope[pos][slot_order], np.arange(n_scopes + 1))
    list_order = np.argsort(scope, kind="stable")
    list_bounds = np.searchsorted(scope[list_order], np.arange(n_scopes + 1))
    local = np.empty(n_lists, np.int64)  # each list's row within its cluster's table
    local[list_order] = np.arange(n_lists) - list_bounds[scope[list_order]]
    code_of = {name: i for i, name in enumerate(names)}

    clusters_of = {  # each model x topic's cluster codes, in name order
        g: sorted(set(arrays.cluster[arrays.group == g].tolist()), key=lambda c: arrays.clusters[c])
        for g in range(len(arrays.groups))
    }

    def region_table(g: int, counts: ScopeCounts) -> Callable:
        def build(region_of: Callable[[str], str | None], min_share: float) -> RegionSlots:
            regions, code = kept_regions(counts.presence, counts.n, region_of, min_share)
            region_code = np.full(len(names) + 1, -1, np.int64)
            for entity, region in code.items():
                region_code[code_of[entity]] = region
            width = max(len(regions), 1)
            per_group = {}
            for c in clusters_of[g]:
                s = g * n_clusters + c
                rows = slot_order[slot_bounds[s] : slot_bounds[s + 1]]
                region = region_code[ent[rows]]
                held = region >= 0
                n_rows = int(list_bounds[s + 1] - list_bounds[s])
                matrix = np.bincount(local[pos[rows][held]] * width + region[held], minlength=n_rows * width)
                per_group[arrays.clusters[c]] = matrix.reshape(n_rows, width).astype(float)
            return RegionSlots(regions, per_group)

        return build

    out: dict[tuple[str, str], TopicCounts] = {}
    for g, key in enumerate(arrays.groups):
        if not list_counts[True]["n"][g]:
            continue  # every list of this model x topic was dropped
        topic = scope_counts(g, True)
        scopes: dict[str | None, ScopeCounts] = {None: topic}
        for c in clusters_of[g]:
            if arrays.clusters[c]:
                scopes[arrays.clusters[c]] = scope_counts(g * n_clusters + c, False)
        out[key] = TopicCounts(scopes, region_table(g, topic))
    return out
