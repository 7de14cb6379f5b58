"""ChoiceEval at ten times the paper's scale: every figure as a ratio to one read of the rows.

The files: 8 models x 10 topics x 9 clusters x QUESTIONS questions x 5 repetitions, each
answer a top-5 list of distinct names drawn from a Zipf-like popularity over 400 brands with
regions; 60 questions give 1,080,000 mention rows, `--large` (175 questions) 3,150,000.
The project's modules are compiled first, as an installed wheel's are. Every figure is set
against its baseline measured in the same run, on the same store: one
read of the mention rows (`SELECT * FROM mentions`, fetched whole, in a process of its own),
its time and its peak memory (the median of `--repeat` reads, and of as many runs of each
command: machines here are noisy). Measured:

- `workbench import mentions` and `import entities` (time; peak memory, bounded on its own
  by bench/bench_import_memory.py);
- `workbench metrics --format json` at the default number of resamples, at 1,000, and with
  intervals over answers (`--ci-unit answer`) beside the default over questions (time and
  peak resident memory, the process start-up included);
- the app (headless, 80x24): the first Metrics refresh pressed once the start-up loading is
  done, and a later one after a region is assigned elsewhere (bench/bench_tui.py's way); and
  the live refresh of Metrics, Entities and Review left on view, from a list edited from
  another connection (its commit) until the screen shows what it read after it (Review: the
  response on view, and every list of its filter with each reviewer's progress).

    .venv/bin/python bench/bench_scale.py [--large] [--no-app] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

MODELS, TOPICS, CLUSTERS, REPETITIONS, RANKS, BRANDS = 8, 10, 9, 5, 5, 400
REGIONS = ("United States", "Europe", "Asia", "Other")

READ = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1])
started = time.perf_counter()
rows = conn.execute("SELECT * FROM mentions").fetchall()
print(time.perf_counter() - started, len(rows))
"""


def picks(rng: np.random.Generator, n_lists: int) -> np.ndarray:
    """Each list's RANKS distinct brands, by popularity: the top keys of log-weight plus
    Gumbel noise are a draw without replacement (in chunks: lists x brands floats)."""
    weights = np.log(1 / np.arange(1, BRANDS + 1) ** 1.1)
    out = np.empty((n_lists, RANKS), np.int64)
    for start in range(0, n_lists, 20_000):
        size = min(20_000, n_lists - start)
        keys = weights + rng.gumbel(size=(size, BRANDS))
        top = np.argpartition(-keys, RANKS, axis=1)[:, :RANKS]
        order = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1)
        out[start : start + size] = np.take_along_axis(top, order, axis=1)
    return out


def make_files(folder: Path, questions: int) -> tuple[Path, Path, int]:
    """The mentions and entities files; how many mention rows."""
    rng = np.random.default_rng(2024)
    names = [f"Brand {i:03d}" for i in range(BRANDS)]
    n_lists = MODELS * TOPICS * CLUSTERS * questions * REPETITIONS
    chosen = picks(rng, n_lists)
    mentions = folder / "mentions.csv"
    n = 0
    with mentions.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model in range(MODELS):
            for topic in range(TOPICS):
                for cluster in range(CLUSTERS):
                    for question in range(questions):
                        for repetition in range(1, REPETITIONS + 1):
                            head = (f"model-{model}", f"topic-{topic:02d}", f"Cluster {cluster}")
                            writer.writerows(
                                (*head, f"c{cluster}-q{question:03d}", repetition, rank, names[i])
                                for rank, i in enumerate(chosen[n], start=1)
                            )
                            n += 1
    entities = folder / "entities.csv"
    with entities.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", "region"])
        writer.writerows((name, REGIONS[i % len(REGIONS)]) for i, name in enumerate(names))
    return mentions, entities, n * RANKS


# The project's modules compiled, as an installed wheel has them (pip compiles on install):
# with PYTHONDONTWRITEBYTECODE set, every start compiled 200 modules again (0.3 s a command).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compiled() -> None:
    folders = [str(ROOT / name) for name in ("workbench", "store", "screens", "widgets")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True, env=ENV, capture_output=True)


def measured(*command: str) -> tuple[float, int, str]:
    """(seconds, peak resident bytes, stdout) of one process, run under /usr/bin/time -v."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, cwd=ROOT, env=ENV)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    kilobytes = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return seconds, kilobytes * 1024, done.stdout


def workbench(*args: str) -> tuple[float, int, str]:
    return measured(sys.executable, "-m", "workbench", *args)


def app_refreshes(db: Path) -> dict[str, float]:
    """The first Metrics refresh pressed at once (it waits for the start-up loading) and once
    that loading is done, and later ones after a change made from another connection
    (bench/bench_tui.py's way): a region assigned, a reviewer's edit of one list."""
    from bench_tui import LIVE, live_refresh, metrics_refresh, refresh_after

    def assign_region(conn) -> None:
        from workbench.store.entities.mentions import set_entity_attributes

        # It was Other; a store kept from an earlier run (--keep) has it in Europe already,
        # and a change to the same region would change nothing to wait for.
        now = conn.execute("SELECT region FROM entities WHERE name = 'Brand 007'").fetchone()[0]
        set_entity_attributes(conn, [{"name": "Brand 007", "region": "Asia" if now == "Europe" else "Europe"}])

    def edit_list(conn) -> None:
        """A reviewer's edit of one list, to names the store holds (see `reviews.review`)."""
        from workbench.store.review import verdicts as reviews
        from workbench.store.review.repeat import AlreadyRecorded

        list_id = conn.execute("SELECT id FROM mention_lists ORDER BY id LIMIT 1 OFFSET 500").fetchone()[0]
        try:
            reviews.review(conn, list_id, "bench", "edit", ["Brand 003", "Brand 001"])
        except AlreadyRecorded:  # a store kept from an earlier run holds this edit: the same verdict changes nothing
            reviews.review(conn, list_id, "bench", "edit", ["Brand 001", "Brand 003"])

    return {
        "first, pressed at once": asyncio.run(metrics_refresh(db, False)),
        "first, after the start-up loading": asyncio.run(metrics_refresh(db, True)),
        "later, after a region is assigned": asyncio.run(refresh_after(db, assign_region)),
        "later, after a list is edited": asyncio.run(refresh_after(db, edit_list)),
        **{
            f"live, {name} shown, a list edited elsewhere": asyncio.run(live_refresh(db, edit_list, name))
            for name in LIVE
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--large", action="store_true", help="175 questions per cluster: 3,150,000 rows")
    parser.add_argument("--questions", type=int, help="questions per cluster (default 60, or 175 with --large)")
    parser.add_argument("--no-app", action="store_true", help="leave out the app's refreshes")
    parser.add_argument("--keep", type=Path, help="build the store in this folder and keep it (reused if there)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="times each read and metrics run is measured: their medians (default 3)"
    )
    args = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        sys.exit("needs /usr/bin/time (GNU time) for the peak resident memory")
    questions = args.questions or (175 if args.large else 60)
    compiled()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / "scale.db"
        if not db.exists():
            started = time.perf_counter()
            mentions, entities, rows = make_files(folder, questions)
            print(f"files: {rows:,} mention rows in {time.perf_counter() - started:.1f} s")
            t_import, m_import, _ = workbench("import", "mentions", str(mentions), "--db", str(db), "--study", "scale")
            t_entities, _, _ = workbench("import", "entities", str(entities), "--db", str(db))
        else:
            t_import = t_entities = m_import = None
        reads = [measured(sys.executable, "-c", READ, str(db)) for _ in range(args.repeat)]
        read_mem, out = max(r[1] for r in reads), reads[0][2]
        read, count = median(float(r[2].split()[0]) for r in reads), int(out.split()[1])
        print(f"baseline, one read of {count:,} mention rows: {read:.2f} s, peak {read_mem / 1e6:.0f} MB")
        if t_import is not None:
            print(
                f"import mentions: {t_import:.1f} s = {t_import / read:.1f}x the read, peak {m_import / 1e6:.0f} MB "
                f"= {m_import / read_mem:.1f}x; import entities: {t_entities:.2f} s"
            )
        runs = (
            ("default: intervals over questions", ()),
            ("--boot 1000", ("--boot", "1000")),
            ("--ci-unit answer", ("--ci-unit", "answer")),
        )
        for label, extra in runs:
            tries = [workbench("metrics", "--db", str(db), "--format", "json", *extra) for _ in range(args.repeat)]
            seconds, peak, out = median(t[0] for t in tries), max(t[1] for t in tries), tries[0][2]
            print(
                f"metrics --format json ({label}): {seconds:.2f} s = {seconds / read:.1f}x the read "
                f"(target 5x), peak {peak / 1e6:.0f} MB = {peak / read_mem:.1f}x the read's ({len(out):,} bytes)"
            )
        if not args.no_app:
            for what, seconds in app_refreshes(db).items():
                target = "5 s" if what.startswith("first") else "2 s"
                screen = "" if what.startswith("live") else "Metrics "
                print(
                    f"app, {screen}refresh {what}: {seconds:.2f} s = {seconds / read:.2f}x the read (target {target})"
                )


if __name__ == "__main__":
    main()
