"""Peak memory of `workbench import mentions` on a large generated file, as a multiple of its size.

An import reads its file in bounded chunks, so its peak resident memory should stay a small
multiple of the file however large the file is (the acceptance: at most 4x for a file of
about a million rows). The file: 8 models x 10 topics x 9 clusters x QUESTIONS questions x
REPETITIONS repetitions, each answer a top-10 list of names drawn from a Zipf-like popularity
over 2,000 names; the defaults (15 questions, 10 repetitions) give 1,080,000 rows, about
54 MB. The import runs as its own process under `/usr/bin/time -v` and its "Maximum resident
set size" is compared with the file's size; so is the memory of a process that only imports
the workbench (the floor every command pays), and, with --whole-file, that of reading the
file the way imports did before they streamed it (the whole text, then every row as a dict).

    .venv/bin/python bench/bench_import_memory.py [--questions 15] [--repetitions 10] [--whole-file]
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODELS, TOPICS, CLUSTERS, RANKS, NAMES = 8, 10, 9, 10, 2000

# The pre-streaming reading of a file: its whole text decoded, then every row kept as a dict.
WHOLE_FILE = """
import csv, io, sys
text = open(sys.argv[1], "rb").read().decode("utf-8-sig")
reader = csv.reader(io.StringIO(text, newline=""))
header = next(reader)
rows = [(reader.line_num, dict(zip(header, values))) for values in reader]
print(len(rows))
"""


def make_file(path: Path, questions: int, repetitions: int) -> int:
    """Write the mentions file; how many data rows it has."""
    rng = np.random.default_rng(11)
    weights = 1 / np.arange(1, NAMES + 1) ** 1.1
    weights /= weights.sum()
    names = [f"Brand {i:04d}" for i in range(NAMES)]
    n_lists = MODELS * TOPICS * CLUSTERS * questions * repetitions
    picks = rng.choice(NAMES, size=(n_lists, RANKS), p=weights)
    rows = 0
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        n = 0
        for model in range(MODELS):
            for topic in range(TOPICS):
                for cluster in range(CLUSTERS):
                    for question in range(questions):
                        for repetition in range(1, repetitions + 1):
                            writer.writerows(
                                (
                                    f"model-{model}",
                                    f"topic-{topic:02d}",
                                    f"Cluster {cluster}",
                                    f"c{cluster}-q{question:03d}",
                                    repetition,
                                    rank,
                                    names[i],
                                )
                                for rank, i in enumerate(picks[n], start=1)
                            )
                            n += 1
                            rows += RANKS
    return rows


def peak_rss(*command: str) -> tuple[int, float, str]:
    """(maximum resident set size in bytes, seconds, stdout) of one process run under /usr/bin/time -v."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    kilobytes = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return kilobytes * 1024, elapsed, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=15, help="questions per cluster (default 15: 1.08M rows)")
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--whole-file", action="store_true", help="also measure reading the file whole, as before")
    args = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        sys.exit("needs /usr/bin/time (GNU time) for the peak resident memory")
    with tempfile.TemporaryDirectory() as tmp:
        mentions = Path(tmp) / "mentions.csv"
        rows = make_file(mentions, args.questions, args.repetitions)
        size = mentions.stat().st_size
        print(f"file: {rows:,} rows, {size / 1e6:.1f} MB")
        floor, _, _ = peak_rss(sys.executable, "-c", "import workbench.cli, workbench.methods.choice.data")
        print(f"a process that only loads the workbench: {floor / 1e6:.0f} MB")
        if args.whole_file:
            whole, seconds, _ = peak_rss(sys.executable, "-c", WHOLE_FILE, str(mentions))
            print(
                f"reading it whole, rows as dicts: {whole / 1e6:.0f} MB = {whole / size:.1f}x the file ({seconds:.1f} s)"
            )
        db = Path(tmp) / "bench.db"
        command = (sys.executable, "-m", "workbench", "import", "mentions", str(mentions), "--db", str(db))
        peak, seconds, out = peak_rss(*command, "--study", "bench")
        print(out.strip())
        print(f"import mentions: peak {peak / 1e6:.0f} MB = {peak / size:.2f}x the file ({seconds:.1f} s)")
        print(f"above the floor: {(peak - floor) / 1e6:.0f} MB = {(peak - floor) / size:.2f}x the file")


if __name__ == "__main__":
    main()
