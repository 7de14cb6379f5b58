"""Search across answers: the FTS5 index (`answer_search`) over a million synthetic answers.

Builds a temporary store with N answers (default 1,000,000, 40 to 80 words each: picks of
synthetic brand names in running text), stored the way a run stores them (request, then
response, in transactions of 10,000) and timed:

- build: storing the answers with the index kept by its triggers, against storing the same
  answers with the triggers dropped (the baseline); and the migration's one-statement build of
  the index over a store of answers made before it;
- search: each query through the index alone (`answer_search.matching_ids`: the matching
  answers' ids) and with each answer's request key as `review lists --search` and the Review
  screen use it (`matching_keys`, one look-up in `responses` per match), best of 5, against a
  scan of the answers' text with LIKE (the baseline a user without the index has), best of 3.
  The count of matches is printed beside each, so a fast empty result cannot pass for a search.

Usage:

    .venv/bin/python bench/bench_search.py [--answers 1000000] [--keep DIR]

Measured on 2 shared cores (load average about 8 from other work, so absolute times vary 2-4x
between runs): storing 1,000,000 answers 2.1x as long with the index as without (250 s against
120 s; a run stores one answer at a time, behind the model's latency); the migration builds the
index over them in 23 s (0.19x). A rare word (1,523 answers) 0.6 ms through the index, 5.2 ms
with request keys, against 947 ms for LIKE (1500x); a phrase, a prefix or a word in 5% of the
answers (50,000) 99-120 ms through the index, 316-366 ms with keys (8-11x faster than LIKE); a
word in 15% of them 412 ms (2x): mapping each match to its answer's key, not the search, costs
most past a few thousand matches.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.store import answer_search
from workbench.store.db import connect

FILLER = (
    "I would recommend it for its comfort and value; the foam holds up on long runs and "
    "the fit is true to size, though wide feet may prefer a roomier model for daily training"
).split()
BRANDS = [f"Brand{i:04d}" for i in range(2000)] + ["New Balance", "Saucony", "Hoka", "Asics", "Pumá"]
# (query, the LIKE pattern that finds the same answers; the baseline reads every answer's text)
QUERIES = (
    ("brand0042", "%brand0042%"),  # a rare word: about 1 answer in 700
    ('"new balance"', "%new balance%"),  # a phrase
    ("sauc*", "%sauc%"),  # a prefix
    ("hoka NOT asics", None),  # two words, one excluded (no LIKE of its own)
    ("puma", "%pum%"),  # accents folded: finds "Pumá"
    ("cushioning", "%cushioning%"),  # a common word: about one answer in seven
)


def answer(rng: random.Random) -> str:
    picks = rng.sample(BRANDS[:2000], 3) + [rng.choice(BRANDS[2000:])] * (rng.random() < 0.25)
    words = ["Here", "are", "my", "picks:"]
    for n, brand in enumerate(picks, 1):
        words += [f"{n}.", brand, "-"] + rng.sample(FILLER, rng.randint(8, 16))
        if rng.random() < 0.05:
            words.append("cushioning")
    return " ".join(words)


def fill(conn: sqlite3.Connection, total: int, seed: int = 7) -> float:
    """Store `total` answers as a run does (a request, then its response); seconds taken."""
    conn.execute(
        "INSERT INTO studies (name, method, spec_json, created_at, updated_at) VALUES ('b', 'choice', '{}', 't', 't')"
    )
    conn.execute(
        "INSERT INTO models (identity, spec, engine, name, params_json, created_at) VALUES ('m', 'm', 'x', 'm', '{}', 't')"
    )
    rng = random.Random(seed)
    started = time.perf_counter()
    for start in range(0, total, 10_000):
        keys = [f"k{i}" for i in range(start, min(total, start + 10_000))]
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO requests (key, study_id, model_id, stage, status, payload_json, created_at, updated_at) "
            "VALUES (?, 1, 1, 'answer', 'done', '{}', 't', 't')",
            [(k,) for k in keys],
        )
        conn.executemany(
            "INSERT INTO responses (request_key, text, latency_s, model_identity, started_at, finished_at) "
            "VALUES (?, ?, 0, 'm', 't', 't')",
            [(k, answer(rng)) for k in keys],
        )
        conn.execute("COMMIT")
    return time.perf_counter() - started


def best(run, times: int) -> tuple[float, int]:
    found, seconds = 0, []
    for _ in range(times):
        started = time.perf_counter()
        found = run()
        seconds.append(time.perf_counter() - started)
    return min(seconds), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--keep", help="build the stores in this folder (default: a temporary one)")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_search_"))
    folder.mkdir(parents=True, exist_ok=True)

    plain = connect(folder / "plain.db")
    for trigger in ("answer_search_insert", "answer_search_delete", "answer_search_update"):
        plain.execute(f"DROP TRIGGER {trigger}")
    baseline = fill(plain, args.answers)
    started = time.perf_counter()
    plain.execute("BEGIN")
    plain.execute(
        "INSERT INTO answer_search (rowid, text) SELECT p.id, p.text FROM responses p "
        "JOIN requests r ON r.key = p.request_key WHERE r.stage = 'answer'"
    )
    plain.execute("COMMIT")
    migration = time.perf_counter() - started
    plain.close()

    conn = connect(folder / "indexed.db")
    indexed = fill(conn, args.answers)
    size = sum(p.stat().st_size for p in folder.glob("indexed.db*")) / 1e6
    print(f"{args.answers:,} answers ({size:,.0f} MB store with the index)")
    print(f"store without the index (baseline): {baseline:7.1f} s")
    print(f"store with the index kept by triggers: {indexed:7.1f} s ({indexed / baseline:.2f}x the baseline)")
    print(f"index built over stored answers (the migration): {migration:7.1f} s ({migration / baseline:.2f}x)")
    print(f"{'query':<18} {'answers':>8} {'ids ms':>8} {'keys ms':>8} {'LIKE ms':>9} {'LIKE/ids':>9}")
    for query, like in QUERIES:
        ids, found = best(lambda q=query: len(answer_search.matching_ids(conn, q)), 5)
        keys, _ = best(lambda q=query: len(answer_search.matching_keys(conn, q)), 5)
        line = f"{query:<18} {found:>8,} {ids * 1000:>8.1f} {keys * 1000:>8.1f}"
        if like is not None:
            scan, scanned = best(
                lambda p=like: conn.execute("SELECT COUNT(*) FROM responses WHERE text LIKE ?", (p,)).fetchone()[0], 3
            )
            line += f" {scan * 1000:>9.1f} {scan / ids:>8.0f}x" + ("" if scanned == found else f"  (LIKE: {scanned:,})")
        print(line)
    conn.close()


if __name__ == "__main__":
    main()
