"""Scoring de-duplication against labelled alias sets (bench/data/*.csv).

A set is rows of (surface, entity, class). The store first keys surfaces
(`normalize_surface`: surfaces alike but for case, accents and punctuation are one
alias of one entity, named after the first one seen); `dedup.suggest` then
clusters those entities as the reviewer would be shown them. Every surface ends
in one predicted cluster, and the clusters are scored against the labels:
- pairwise precision / recall / F1 over pairs of surfaces (a true pair is two
  surfaces of one entity; big entities weigh more, as in the issue's figures);
- B-cubed precision / recall (per surface, then averaged: each surface weighs the same);
- per variation class: the pairs that involve a surface of that class.
"""

from __future__ import annotations

import csv
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from workbench.entities import dedup
from workbench.store.surface import normalize_surface

DATA = Path(__file__).resolve().parent / "data"
HARD = ("abbreviation", "short")  # parts of names: reported on their own, never in the headline figures


@dataclass
class Row:
    surface: str
    entity: str
    kind: str


def load(path: Path, *, hard: bool = False) -> list[Row]:
    """The rows of a set; the known-hard classes (alone or combined: "abbreviation+case")
    only when `hard`."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = [Row(r["surface"], r["entity"], r["class"]) for r in csv.DictReader(handle)]
    return rows if hard else [r for r in rows if not set(r.kind.split("+")) & set(HARD)]


@dataclass
class Scores:
    surfaces: int
    entities: int
    store_keys: int
    seconds: float
    pair_precision: float
    pair_recall: float
    pair_f1: float
    bcubed_precision: float
    bcubed_recall: float
    by_class: dict[str, tuple[int, float, float]] = field(default_factory=dict)  # class: (surfaces, P, R)
    suggestions: int = 0


def predict(rows: list[Row], **options) -> tuple[list[int], int, float, int]:
    """A cluster number per row, as the store's keying plus `suggest` leave them."""
    keys: dict[str, int] = {}
    names: list[str] = []
    counts: list[int] = []
    key_of_row = []
    for row in rows:
        key = normalize_surface(row.surface)
        if key not in keys:
            keys[key] = len(names)
            names.append(row.surface)
            counts.append(0)
        counts[keys[key]] += 1
        key_of_row.append(keys[key])
    started = time.perf_counter()
    found = dedup.suggest(names, counts, **options)
    seconds = time.perf_counter() - started
    cluster = list(range(len(names)))
    position = {name: i for i, name in enumerate(names)}
    for number, suggestion in enumerate(found):
        for member in suggestion.members:
            cluster[position[member]] = len(names) + number
    return [cluster[k] for k in key_of_row], len(names), seconds, len(found)


def score(rows: list[Row], **options) -> Scores:
    predicted, store_keys, seconds, suggestions = predict(rows, **options)
    labels = [r.entity for r in rows]
    both = Counter(zip(predicted, labels))
    cluster_size = Counter(predicted)
    label_size = Counter(labels)

    def pairs(n: int) -> int:
        return n * (n - 1) // 2

    true_positive = sum(pairs(n) for n in both.values())
    predicted_pairs = sum(pairs(n) for n in cluster_size.values())
    true_pairs = sum(pairs(n) for n in label_size.values())
    precision = true_positive / predicted_pairs if predicted_pairs else 1.0
    recall = true_positive / true_pairs if true_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    b_precision = sum(both[(c, e)] / cluster_size[c] for c, e in zip(predicted, labels)) / len(rows)
    b_recall = sum(both[(c, e)] / label_size[e] for c, e in zip(predicted, labels)) / len(rows)
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # count, together, predicted, true
    for row, c, e in zip(rows, predicted, labels):
        tally = per_class[row.kind]
        tally[0] += 1
        tally[1] += both[(c, e)] - 1
        tally[2] += cluster_size[c] - 1
        tally[3] += label_size[e] - 1
    by_class = {
        kind: (n, together / guessed if guessed else 1.0, together / truth if truth else 1.0)
        for kind, (n, together, guessed, truth) in sorted(per_class.items())
    }
    return Scores(
        len(rows),
        len(label_size),
        store_keys,
        seconds,
        precision,
        recall,
        f1,
        b_precision,
        b_recall,
        by_class,
        suggestions,
    )


def report(name: str, scores: Scores) -> str:
    lines = [
        f"{name}: {scores.surfaces} surfaces of {scores.entities} entities -> {scores.store_keys} store keys, "
        f"{scores.suggestions} suggestions in {scores.seconds:.2f} s",
        f"  pairwise  P {scores.pair_precision:.4f}  R {scores.pair_recall:.4f}  F1 {scores.pair_f1:.4f}",
        f"  B-cubed   P {scores.bcubed_precision:.4f}  R {scores.bcubed_recall:.4f}",
        "  by class (pairs involving a surface of the class):",
    ]
    lines += [f"    {kind:<13} {n:>6}  P {p:.3f}  R {r:.3f}" for kind, (n, p, r) in scores.by_class.items()]
    return "\n".join(lines)
