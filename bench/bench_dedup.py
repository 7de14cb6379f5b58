"""Entity de-duplication measured against the truth, and timed.

For each labelled alias set in bench/data (see bench/data/README.md) it keys the
surfaces as the store does, runs `dedup.suggest` (all methods, the CLI's
defaults) and reports pairwise precision / recall / F1 and B-cubed against the
labels, per variation class, then the known-hard classes (abbreviations, parts of
names) on their own. Then the speed: `suggest` on the 20k-form set (target < 2 s
on 2 cores), its blocked fuzzy search as a ratio to exhaustive all-pairs cdist in
the same process, and `workbench entities suggest` end to end on a real store.

    .venv/bin/python bench/bench_dedup.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dedup_truth  # noqa: E402

from workbench.entities import dedup_pairs  # noqa: E402

SETS = [
    ("generated brands", "brand_aliases.csv"),
    ("held-out brands", "heldout/heldout_aliases.csv"),
    ("cold-start answers (real)", "coldstart_aliases.csv"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="quality only: skip the exhaustive and CLI timings")
    args = parser.parse_args()
    for title, name in SETS:
        rows = dedup_truth.load(dedup_truth.DATA / name)
        print(dedup_truth.report(title, dedup_truth.score(rows)))
        hard = dedup_truth.load(dedup_truth.DATA / name, hard=True)
        if len(hard) > len(rows):
            scores = dedup_truth.score(hard)
            kinds = {k: v for k, v in scores.by_class.items() if set(k.split("+")) & set(dedup_truth.HARD)}
            print(
                f"  with the known-hard classes: P {scores.pair_precision:.4f}  R {scores.pair_recall:.4f}; "
                + "; ".join(f"{k} ({n}) R {r:.3f}" for k, (n, _p, r) in kinds.items())
            )
        print()
    if args.quick:
        return
    rows = dedup_truth.load(dedup_truth.DATA / "brand_aliases.csv")
    names = list(dict.fromkeys(r.surface for r in rows))
    timings = []
    for _ in range(3):  # the first run also fills the name caches
        timings.append(dedup_truth.score(rows).seconds)
    print(f"suggest on {len(names):,} forms: {timings[0]:.2f} s cold, {min(timings[1:]):.2f} s warm (target < 2 s)")
    started = time.perf_counter()
    blocked = dedup_pairs.similar_pairs(names, 90)
    t_blocked = time.perf_counter() - started
    started = time.perf_counter()
    exhaustive = dedup_pairs.exhaustive_pairs(names, 90)
    t_exhaustive = time.perf_counter() - started
    found = len(set(blocked) & set(exhaustive))
    print(
        f"blocked search at 90: {t_blocked:.2f} s vs exhaustive cdist {t_exhaustive:.2f} s "
        f"({t_exhaustive / t_blocked:.1f}x); it keeps {found / max(1, len(exhaustive)):.2%} of the exhaustive pairs "
        "(a speed check only: quality is the figures above)"
    )
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
        with mentions.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
            for i, name in enumerate(names):
                writer.writerow(["m", "t", "c", f"q{i // 5}", 1, i % 5 + 1, name])
        db = str(Path(tmp) / "d.db")
        subprocess.run(
            [sys.executable, "-m", "workbench", "import", "mentions", str(mentions), "--db", db, "--study", "s"],
            check=True,
            capture_output=True,
            cwd=root,
        )
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "workbench", "entities", "suggest", "--db", db, "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
            cwd=root,
        )
        elapsed = time.perf_counter() - started
        print(
            f"`workbench entities suggest --format json` on a store of these forms: {elapsed:.2f} s end to end, "
            f"{len(json.loads(out.stdout)):,} clusters"
        )


if __name__ == "__main__":
    main()
