"""Search across answers: the FTS5 index (`answer_search`) over a million synthetic answers.

Builds a store with N answers (default 1,000,000, 40 to 80 words each: picks of synthetic
brand names in running text) and each one's extracted list, stored the way a run stores them
(request, response, list, in transactions of 10,000), one list in 500 accepted by a reviewer
(2,000 verdicts: the lists the review filters judge by their rules), and times:

- build: storing the answers with the index kept by its triggers, against storing the same
  answers with the triggers dropped (the baseline); and the migration's one-statement build of
  the index over a store of answers made before it;
- search, best of 5 (the count of matching answers printed beside each, so a fast empty
  result cannot pass for a search): the full search as `review lists --search` and the Review
  screen made it before (`matching_list_ids`: every match made its list, best of 3; the
  baseline), against what a reviewer waits for now: `search_lists`, the first page of 50 of a
  study's lists (`page`), the page at offset 1,000 (`@1000`) and the first of the `unreviewed`
  filter (`unrev`); the Review screen's first 100 matches among a filter's million pages
  (`search_pages`, `screen`); the index's count of matching answers (`count`). `--like` adds a
  LIKE scan of every answer's text (what a user without the index has), best of 1.

Usage:

    .venv/bin/python bench/bench_search.py [--answers 1000000] [--keep DIR] [--like]

`--keep DIR` keeps the stores; run again with the same DIR, it searches them without building.

Measured on 2 shared cores, load average 1.5-2.1 (`uptime`; absolute times vary 2-4x with the
load, the ratios less): storing 1,000,000 answers 1.93x as long with the index as without (85 s
against 44 s; a run stores one answer at a time, behind the model's latency); the migration
builds the index over them in 11.5 s (0.26x).

    query             answers  full ms  page ms   @1000   unrev  screen  count full/page  LIKE ms
    brand0042           1,523      4.8      4.7    12.2     4.8     0.6    0.1        1x    248.1
    "new balance"      49,987    124.5      7.6    13.5     7.5     3.3    2.7       16x    345.1
    sauc*              49,801    123.4      7.5    17.7     7.4     3.2    2.0       16x    271.0
    hoka NOT asics     49,932    121.3      7.1    17.6     7.0     2.9    2.4       17x
    puma               50,088    122.2      5.7    16.0     5.6     1.6    1.2       21x    210.0
    cushioning        152,723    288.0      8.4    18.7     8.5     4.1    3.6       34x    213.7

A page costs about what it shows, whatever the number of matches (a word in 15% of the answers
34x faster than reading every match); a rare word costs the same either way. A filter that few
matching answers pass (a study among many in one store, experts' disagreements when experts
rarely disagree) reads more of them, at worst every one: the full search's cost.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.store.db import connect
from workbench.store.reads import answer_search

FILLER = (
    "I would recommend it for its comfort and value; the foam holds up on long runs and "
    "the fit is true to size, though wide feet may prefer a roomier model for daily training"
).split()
BRANDS = [f"Brand{i:04d}" for i in range(2000)] + ["New Balance", "Saucony", "Hoka", "Asics", "Pumá"]
# (query, the LIKE pattern that finds the same answers; the baseline reads every answer's text)
TOPICS = ("running shoes", "trail shoes", "walking shoes", "hiking boots")
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
        # Each answer's extracted list, as extraction stores it (what `review lists --search` pages).
        conn.executemany(
            "INSERT INTO mention_lists (study_id, model, topic, question, repetition, source, response_key, "
            "extracted_json) VALUES (1, 'm', ?, ?, 1, 'vote', ?, '[]')",
            [(TOPICS[int(k[1:]) % len(TOPICS)], f"question {k[1:]}", k) for k in keys],
        )
        conn.execute("COMMIT")
    return time.perf_counter() - started


def review_some(conn: sqlite3.Connection, every: int = 500) -> int:
    """One list in `every` accepted by a reviewer (2,000 of a million): the lists the review
    filters judge by their rules."""
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO verdicts (study_id, model, topic, question, repetition, answer_key, reviewer, decision, "
        "before_json, after_json, at) SELECT study_id, model, topic, question, repetition, response_key, 'ana', "
        "'accept', '[]', '[]', 't' FROM mention_lists WHERE id % ? = 0",
        (every,),
    )
    conn.execute("COMMIT")
    return conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]


def best(run, times: int) -> tuple[float, Any]:
    found, seconds = None, []
    for _ in range(times):
        started = time.perf_counter()
        found = run()
        seconds.append(time.perf_counter() - started)
    return min(seconds), found


def build(folder: Path, answers: int) -> sqlite3.Connection:
    """Both stores, timed: the baseline without the index's triggers (then the migration's
    build of the index over it) and the one with them."""
    plain = connect(folder / "plain.db")
    for trigger in ("answer_search_insert", "answer_search_delete", "answer_search_update"):
        plain.execute(f"DROP TRIGGER {trigger}")
    baseline = fill(plain, answers)
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
    indexed = fill(conn, answers)
    print(f"store without the index (baseline): {baseline:7.1f} s")
    print(f"store with the index kept by triggers: {indexed:7.1f} s ({indexed / baseline:.2f}x the baseline)")
    print(f"index built over stored answers (the migration): {migration:7.1f} s ({migration / baseline:.2f}x)")
    return conn


def searches(conn: sqlite3.Connection, like_baseline: bool) -> None:
    """Each query: the full search as it was (every match made its list), against what a
    reviewer waits for now: the first page of 50 in `review lists --search` (and the page at
    offset 1,000), the Review screen's first 100 matches among a filter's pages, and the
    index's count of matching answers."""
    pages = [{"id": r[0]} for r in conn.execute("SELECT id FROM mention_lists ORDER BY id")]
    print(
        f"{'query':<16} {'answers':>8} {'full ms':>8} {'page ms':>8} {'@1000':>7} {'unrev':>7} {'screen':>7}"
        f" {'count':>6} {'full/page':>9}" + (f" {'LIKE ms':>8}" if like_baseline else "")
    )
    for query, like in QUERIES:
        full, every = best(lambda q=query: answer_search.matching_list_ids(conn, q), 3)
        page, found = best(lambda q=query: answer_search.search_lists(conn, q, study="b", limit=50), 5)
        later, _ = best(lambda q=query: answer_search.search_lists(conn, q, study="b", offset=1000, limit=50), 5)
        unreviewed, _ = best(lambda q=query: answer_search.search_lists(conn, q, "unreviewed", study="b"), 5)
        screen, (shown, _) = best(lambda q=query: answer_search.search_pages(conn, q, pages, 100), 5)
        count, answers = best(lambda q=query: answer_search.answers_matching(conn, q), 5)
        assert found.ids == sorted(found.ids) and set(found.ids) <= every and len(shown) == min(100, len(every))
        line = (
            f"{query:<16} {answers:>8,} {full * 1000:>8.1f} {page * 1000:>8.1f} {later * 1000:>7.1f} "
            f"{unreviewed * 1000:>7.1f} {screen * 1000:>7.1f} {count * 1000:>6.1f} {full / page:>8.0f}x"
        )
        if like_baseline and like is not None:
            scan, _ = best(lambda p=like: conn.execute("SELECT COUNT(*) FROM responses WHERE text LIKE ?", (p,)), 1)
            line += f" {scan * 1000:>8.1f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument(
        "--keep",
        help="build the stores in this folder and keep them; a folder holding them already is searched "
        "again without building (its build is not timed)",
    )
    parser.add_argument("--like", action="store_true", help="also time a LIKE scan of every answer per query")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_search_"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.keep and (folder / "indexed.db").exists():
        conn = connect(folder / "indexed.db")
        print(f"searching the store kept in {folder} (not built again)")
    else:
        conn = build(folder, args.answers)
    stored = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    verdicts = conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] or review_some(conn)
    size = sum(p.stat().st_size for p in folder.glob("indexed.db*")) / 1e6
    print(f"{stored:,} answers, {verdicts:,} verdicts ({size:,.0f} MB store with the index)")
    searches(conn, args.like)
    conn.close()


if __name__ == "__main__":
    main()
