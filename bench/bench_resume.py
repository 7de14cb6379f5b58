"""Resuming a large study: planning it against starting again without planning.

Writes a ChoiceEval study of `--requests` requests (10 topics x 9 clusters x enough
questions x 10 repetitions, one OpenAI-compatible model that is never contacted), then
times in this process:
- the first `prepare`: every request built, keyed and stored (the baseline);
- `prepare` again on the unchanged study: a resume, which reuses the stored plan;
- `prepare` after one question is added to the file: only that question is planned
  (its repetitions), the others' marks still hold;
- `prepare` after that question is reworded: one question planned, the old wording's
  requests superseded (the file is the truth of what is asked, as a whole plan has it).
Each is printed in seconds and as a ratio to the first.

    .venv/bin/python bench/bench_resume.py [--requests 1000000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.methods.study_files import load_study
from workbench.pipeline.audit import prepare
from workbench.store.db import connect

TOPICS, CLUSTERS, REPETITIONS = 10, 9, 10


def write_study(path: Path, requests: int, extra: str | None = None) -> Path:
    per_cluster = max(1, requests // (TOPICS * CLUSTERS * REPETITIONS))
    lines = [
        'name = "big"',
        'method = "choice"',
        "seed = 1",
        f"repetitions = {REPETITIONS}",
        'models = ["openai:m@http://127.0.0.1:9/v1"]',
        "[extraction]",
        'method = "list"',
    ]
    for t in range(TOPICS):
        lines += ["[[topics]]", f'name = "topic{t}"', "[topics.questions]"]
        for c in range(CLUSTERS):
            # each cluster its own wordings: a study file asks a wording once in a topic
            questions = [f"Which brand number {q} of topic {t} would group {c} pick?" for q in range(per_cluster)]
            if extra and t == 0 and c == 0:
                questions.append(extra)
            lines.append(f"c{c} = [" + ", ".join(f'"{q}"' for q in questions) + "]")
    for c in range(CLUSTERS):
        lines += ["[[clusters]]", f'name = "c{c}"', f'description = "people of group {c}"']
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(db: Path, study_path: Path) -> tuple[float, int]:
    conn = connect(str(db))
    try:
        start = time.perf_counter()
        prepared = prepare(conn, load_study(study_path), max_requests=10**8)
        return time.perf_counter() - start, sum(m.total for m in prepared.models)
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        study, db = write_study(Path(tmp) / "big.toml", args.requests), Path(tmp) / "big.db"
        first, total = timed(db, study)
        resume, _ = timed(db, study)
        write_study(study, args.requests, extra="Which brand would you pick today?")
        added, added_total = timed(db, study)
        write_study(study, args.requests, extra="Which brand would you pick this week?")
        reworded, reworded_total = timed(db, study)
    print(f"requests planned: {total:,} (one question added: {added_total:,}, then reworded: {reworded_total:,})")
    print(f"first plan:               {first:7.2f} s   1.000")
    for what, seconds in (
        ("resume, unchanged:", resume),
        ("one question added:", added),
        ("that question reworded:", reworded),
    ):
        print(f"{what:<26}{seconds:7.2f} s   {seconds / first:.3f} of the first plan")


if __name__ == "__main__":
    main()
