"""One model on three replicas: the pool's speed-up over one endpoint, and a replica
killed mid-run.

Three local OpenAI-compatible servers answer each request after 0.5 s (latency-bound,
as a busy GPU server is); each endpoint takes 4 requests at a time. The same study
(`--requests`, default 96) runs through `workbench run` on one endpoint, then on the
pool of three (target >= 2.7x faster, measured in this run), then on the pool with one
server stopped once a third of the answers are in: every request must end answered
exactly once, and the status names the dead endpoint.

    .venv/bin/python bench/bench_pool.py [--requests 96]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers import write_study  # noqa: E402
from openai_server import ServerConfig, ServerThread  # noqa: E402

from workbench.cli import main as workbench  # noqa: E402


def timed_run(study: Path, db: Path) -> float:
    started = time.perf_counter()
    assert workbench(["run", str(study), "--db", str(db), "--quiet"]) == 0
    return time.perf_counter() - started


def answered(db: Path) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses").fetchone()
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=96)
    args = parser.parse_args()
    threads = [ServerThread(ServerConfig(latency_s=0.5)) for _ in range(3)]
    servers = [t.__enter__() for t in threads]
    urls = [s.base_url for s in servers]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            one = write_study(tmp / "one.toml", models=[f"openai:m@{urls[0]},concurrency=4"], questions=args.requests)
            pool = write_study(
                tmp / "pool.toml", models=[f"openai:m@{'|'.join(urls)},concurrency=4"], questions=args.requests
            )
            t_one = timed_run(one, tmp / "one.db")
            t_pool = timed_run(pool, tmp / "pool.db")
            print(f"{args.requests} requests, 0.5 s each, 4 in flight per endpoint")
            print(
                f"one endpoint: {t_one:.2f} s; pool of three: {t_pool:.2f} s -> {t_one / t_pool:.2f}x (target >= 2.7x)"
            )

            # A replica dies a third of the way in.
            db = tmp / "kill.db"

            def kill_when_a_third_is_in() -> None:
                while True:
                    time.sleep(0.1)
                    if db.exists() and answered(db)[0] >= args.requests // 3:
                        threads[1].__exit__(None, None, None)
                        return

            killer = threading.Thread(target=kill_when_a_third_is_in, daemon=True)
            killer.start()
            t_kill = timed_run(pool, db)
            killer.join(5)
            total, distinct = answered(db)
            print(
                f"pool with {urls[1]} stopped mid-run: {t_kill:.2f} s; {total} answers of {distinct} distinct "
                f"requests (each once: {total == distinct == args.requests})"
            )
            workbench(["status", "--db", str(db)])
    finally:
        for index, thread in enumerate(threads):
            if index != 1:
                thread.__exit__(None, None, None)


if __name__ == "__main__":
    main()
