"""ChoiceEval at paper scale: import ~31k responses of top-5 lists, then compute every metric.

3 models x 2 topics x 9 clusters x 23 questions x 5 repetitions = 6,210 responses (about 31k
mention rows); `--questions 115` gives 31,050 responses (about 155k rows). Entities are drawn
from a Zipf-like popularity over 400 names with regions. Times the two commands a user runs
(`workbench import mentions`, `workbench metrics --format json`) as separate processes.

    .venv/bin/python bench/bench_metrics.py [--questions 115]
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def make_files(tmp: Path, questions: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    names = [f"Brand {i:03d}" for i in range(400)]
    weights = 1 / np.arange(1, 401) ** 1.1
    weights /= weights.sum()
    mentions = tmp / "mentions.csv"
    clusters = [f"Cluster {c}" for c in range(9)]
    with mentions.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for model in ("model-a", "model-b", "model-c"):
            for topic in ("shoes", "phones"):
                for cluster in clusters:
                    for q in range(questions):
                        for rep in range(1, 6):
                            k = rng.integers(0, 6)
                            picks = rng.choice(400, size=k, replace=False, p=weights)
                            if k == 0:
                                writer.writerow([model, topic, cluster, f"{cluster}-{q}", rep, "", ""])
                            for rank, i in enumerate(picks, start=1):
                                writer.writerow([model, topic, cluster, f"{cluster}-{q}", rep, rank, names[i]])
    entities = tmp / "entities.csv"
    regions = ["United States", "Europe", "Asia", "Other"]
    with entities.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", "region"])
        for i, name in enumerate(names):
            writer.writerow([name, regions[i % 4]])
    return mentions, entities


def timed(*args: str) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "workbench", *args], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return time.perf_counter() - started, out.stdout


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=23, help="questions per cluster (paper: 23)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        mentions, entities = make_files(tmp_path, args.questions)
        db = str(tmp_path / "bench.db")
        startup, _ = timed("--help")
        t_import, out = timed("import", "mentions", str(mentions), "--db", db, "--study", "bench")
        print(f"import mentions: {t_import:.2f} s  ({out.strip()})")
        t_entities, _ = timed("import", "entities", str(entities), "--db", db)
        print(f"import entities: {t_entities:.2f} s")
        t_metrics, out = timed("metrics", "--db", db, "--format", "json")
        records = json.loads(out)
        print(f"metrics --format json: {t_metrics:.2f} s  ({len(records)} records)")
        print(
            f"import + metrics: {t_import + t_metrics:.2f} s (target < 5 s); "
            f"python + CLI start-up alone: {startup:.2f} s"
        )


if __name__ == "__main__":
    main()
