"""Entity de-duplication at scale: blocked suggestions vs exhaustive all-pairs cdist.

Generates 20,000 distinct surface forms (brand-like names and their variants: case,
punctuation, legal suffixes, word order, typos), then in one run times
`dedup.suggest` (all methods; its fuzzy step compares within blocks only) and the
exhaustive `process.cdist` over all pairs at the same scorer and threshold, and
reports the recall of the blocked fuzzy pairs against the exhaustive ones.

    .venv/bin/python bench/bench_dedup.py [--names 20000] [--threshold 90]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench import dedup  # noqa: E402

SYLLABLES = ["ka", "lo", "mi", "to", "ra", "ne", "su", "vi", "do", "pe", "ba", "zen", "tor", "lux", "ix", "on",
             "ar", "el", "qu", "fi", "gra", "mo", "sta", "ter", "vo", "co", "ny", "pha", "bri", "dex"]
WORDS = ["Air", "Max", "Pro", "Ultra", "Sport", "Home", "Tech", "Motors", "Foods", "Labs", "Global", "Prime"]
SUFFIXES = ["Inc.", "Ltd", "LLC", "Co.", "GmbH", "AG", "Corp."]


def make_names(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)

    def base() -> str:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize()
        extra = [rng.choice(WORDS) for _ in range(rng.randint(0, 2))]
        return " ".join([word, *extra])

    def typo(text: str) -> str:
        i = rng.randrange(len(text))
        kind = rng.random()
        if kind < 0.33:
            return text[:i] + text[i + 1:]
        if kind < 0.66:
            return text[:i] + rng.choice("aeiourstln") + text[i:]
        j = min(i + 1, len(text) - 1)
        return text[:i] + text[j] + text[i] + text[j + 1:]

    def variant(name: str) -> str:
        choice = rng.random()
        if choice < 0.2:
            return name.upper() if rng.random() < 0.5 else name.lower()
        if choice < 0.4:
            return f"{name} {rng.choice(SUFFIXES)}"
        if choice < 0.55:
            return " ".join(reversed(name.split()))
        if choice < 0.7:
            return name.replace(" ", "-")
        return typo(name)

    names: dict[str, None] = {}
    while len(names) < count:
        name = base()
        names[name] = None
        for _ in range(rng.randint(0, 3)):
            names[variant(name)] = None
    return list(names)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", type=int, default=20_000)
    parser.add_argument("--threshold", type=float, default=dedup.DEFAULT_THRESHOLD)
    parser.add_argument("--scorer", default="token_sort_ratio", choices=sorted(dedup.SCORERS))
    args = parser.parse_args()
    names = make_names(args.names)
    counts = [1 + (i * 7919) % 50 for i in range(len(names))]

    started = time.perf_counter()
    suggestions = dedup.suggest(names, counts, threshold=args.threshold, scorer=args.scorer)
    t_suggest = time.perf_counter() - started

    started = time.perf_counter()
    blocked = dedup.similar_pairs(names, args.threshold, args.scorer)
    t_blocked = time.perf_counter() - started

    started = time.perf_counter()
    exhaustive = dedup.exhaustive_pairs(names, args.threshold, args.scorer)
    t_exhaustive = time.perf_counter() - started

    found = len(set(blocked) & set(exhaustive))
    recall = found / len(exhaustive) if exhaustive else 1.0
    print(f"{len(names):,} distinct surface forms, {args.scorer} >= {args.threshold:g}")
    print(f"suggest (fingerprint + ngram + blocked nearest): {t_suggest:.2f} s, {len(suggestions):,} clusters "
          f"(target < 2 s)")
    print(f"blocked fuzzy pairs alone: {t_blocked:.2f} s; exhaustive all-pairs cdist: {t_exhaustive:.2f} s "
          f"-> {t_exhaustive / t_blocked:.1f}x")
    print(f"recall of blocked pairs vs exhaustive: {found:,}/{len(exhaustive):,} = {recall:.2%} (target >= 98%)")
    cli_suggest(names)


def cli_suggest(names: list[str]) -> None:
    """The same names as mentions in a store, and `workbench entities suggest` as a user runs it."""
    import csv
    import json
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        mentions = Path(tmp) / "mentions.csv"
        with mentions.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
            for i, name in enumerate(names):
                writer.writerow(["m", "t", "c", f"q{i // 5}", 1, i % 5 + 1, name])
        db = str(Path(tmp) / "d.db")
        subprocess.run([sys.executable, "-m", "workbench", "import", "mentions", str(mentions), "--db", db,
                        "--study", "s"], check=True, capture_output=True, cwd=root)
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "workbench", "entities", "suggest", "--db", db, "--format",
                              "json"], check=True, capture_output=True, text=True, cwd=root)
        elapsed = time.perf_counter() - started
        entities = subprocess.run([sys.executable, "-c", f"import sqlite3; print(sqlite3.connect({db!r})"
                                   ".execute('SELECT COUNT(*) FROM entities').fetchone()[0])"],
                                  capture_output=True, text=True).stdout.strip()
        print(f"`workbench entities suggest --format json` on a store of {entities} entities: {elapsed:.2f} s "
              f"end to end, {len(json.loads(out.stdout)):,} clusters")


if __name__ == "__main__":
    main()
