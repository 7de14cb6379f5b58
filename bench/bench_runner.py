"""Runner throughput against bare baselines measured in the same process and run.

(a) local: the runner on `llama:default` vs a bare llama-cpp-python loop over the same
    prompts, parameters and model (tokens generated per second);
(b) HTTP: the runner with its SQLite writes vs a bare aiohttp loop at the same
    concurrency against the same local OpenAI-compatible server (requests per second);
(c) local batching: the runner on `llama:default,parallel=N` vs `llama:default` (one
    sequence at a time) over the same study (tokens generated per second).

Prints ratios (runner / baseline); machines here are noisy, so each side runs twice,
interleaved, and the best of each counts. Usage:

    .venv/bin/python bench/bench_runner.py [--prompts 24] [--http-requests 600] [--concurrency 16]
        [--parallel 8] [--only local|http|parallel]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers import write_study

from workbench.engines.prompting import COMPLETION_STOPS, render_completion_prompt
from workbench.methods.study_files import load_study
from workbench.pipeline.audit import prepare, run_prepared
from workbench.pipeline.run_types import RunOptions
from workbench.store.db import connect

MAX_TOKENS = 48


def study_file(tmp: Path, name: str, models: list[str], questions: int) -> Path:
    return write_study(
        tmp / f"{name}.toml", models=models, questions=questions, name=name, max_tokens=MAX_TOKENS, temperature=0.7
    )


def run_runner(tmp: Path, study_path: Path, tag: str) -> tuple[float, int, int]:
    """Plan and drain a study in a fresh database; (seconds, tokens, answered)."""
    conn = connect(tmp / f"{tag}.db")
    study = load_study(study_path)
    prepared = prepare(conn, study)
    started = time.perf_counter()
    asyncio.run(run_prepared(conn, prepared, RunOptions()))
    elapsed = time.perf_counter() - started
    tokens, answered = conn.execute("SELECT COALESCE(SUM(completion_tokens), 0), COUNT(*) FROM responses").fetchone()
    conn.close()
    return elapsed, tokens, answered


# -- (a) local -----------------------------------------------------------------


def bare_llama(model_path: str, prompts: list[str], seeds: list[int]) -> tuple[float, int]:
    import llama_cpp

    from workbench.engines.llama_cpu import plain_layout_on_amx

    plain_layout_on_amx()  # llama.cpp's AMX kernels crash on some machines

    llm = llama_cpp.Llama(model_path=model_path, n_ctx=2048, n_batch=512, verbose=False)
    started = time.perf_counter()
    tokens = 0
    for prompt, seed in zip(prompts, seeds):
        out = llm.create_completion(
            prompt, max_tokens=MAX_TOKENS, temperature=0.7, seed=seed, stop=list(COMPLETION_STOPS)
        )
        tokens += out["usage"]["completion_tokens"]
    elapsed = time.perf_counter() - started
    llm.close()
    return elapsed, tokens


def bench_local(tmp: Path, prompts_n: int) -> None:
    from workbench.engines.resolve import resolve
    from workbench.engines.specs import parse_spec

    resolved = resolve(parse_spec("llama:default"), print)
    path = study_file(tmp, "local", ["llama:default"], prompts_n)
    study = load_study(path)
    prompts = [render_completion_prompt([{"role": "user", "content": q.text}]) for q in study.questions]
    seeds = [study.seed] * len(prompts)  # repetition 1 uses the study seed
    best_bare = best_runner = 0.0
    for round_ in range(2):
        seconds, tokens = bare_llama(resolved.file_path, prompts, seeds)
        best_bare = max(best_bare, tokens / seconds)
        print(
            f"  local round {round_ + 1}: bare llama-cpp-python {tokens} tokens in {seconds:.2f} s "
            f"= {tokens / seconds:.1f} tok/s"
        )
        seconds, tokens, answered = run_runner(tmp, path, f"local{round_}")
        best_runner = max(best_runner, tokens / seconds)
        print(
            f"  local round {round_ + 1}: runner {tokens} tokens ({answered} answers) in {seconds:.2f} s "
            f"= {tokens / seconds:.1f} tok/s"
        )
    print(
        f"(a) local generation: runner {best_runner:.1f} tok/s vs bare {best_bare:.1f} tok/s "
        f"-> ratio {best_runner / best_bare:.2f} (target >= 0.90)"
    )


# -- (c) local batching -----------------------------------------------------------


def bench_parallel(tmp: Path, prompts_n: int, parallel: int) -> None:
    best = {1: 0.0, parallel: 0.0}
    for round_ in range(2):
        for n in (1, parallel):
            spec = "llama:default" if n == 1 else f"llama:default,parallel={n}"
            path = study_file(tmp, f"par{n}_{round_}", [spec], prompts_n)
            seconds, tokens, answered = run_runner(tmp, path, f"par{n}_{round_}")
            best[n] = max(best[n], tokens / seconds)
            print(
                f"  batching round {round_ + 1}: parallel={n}: {tokens} tokens ({answered} answers) in "
                f"{seconds:.2f} s = {tokens / seconds:.1f} tok/s"
            )
    print(
        f"(c) local batching: parallel={parallel} {best[parallel]:.1f} tok/s vs parallel=1 {best[1]:.1f} tok/s "
        f"-> ratio {best[parallel] / best[1]:.2f} (target >= 1.8 on 2 CPU cores)"
    )


# -- (b) HTTP ------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def bare_aiohttp(base: str, bodies: list[dict], concurrency: int) -> float:
    import aiohttp

    limit = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(body):
            async with limit:
                async with session.post(f"{base}/chat/completions", json=body) as reply:
                    data = json.loads(await reply.read())
                    assert data["choices"][0]["message"]["content"]

        started = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - started


def bench_http(tmp: Path, n: int, concurrency: int, latency: float) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "openai_server.py"), "--port", str(port), "--latency", str(latency)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/models", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        spec = f"openai:bench@{base},concurrency={concurrency}"
        best_bare = best_runner = 0.0
        for round_ in range(2):
            path = study_file(tmp, f"http{round_}", [spec], n)
            study = load_study(path)
            bodies = [
                {
                    "model": "bench",
                    "messages": [{"role": "user", "content": q.text + f" #{round_}"}],
                    "temperature": 0.7,
                    "max_tokens": MAX_TOKENS,
                }
                for q in study.questions
            ]
            seconds = asyncio.run(bare_aiohttp(base, bodies, concurrency))
            best_bare = max(best_bare, n / seconds)
            print(f"  http round {round_ + 1}: bare aiohttp {n} requests in {seconds:.2f} s = {n / seconds:.0f} req/s")
            seconds, _tokens, answered = run_runner(tmp, path, f"http{round_}")
            assert answered == n
            best_runner = max(best_runner, n / seconds)
            print(
                f"  http round {round_ + 1}: runner {answered} requests (+ SQLite) in {seconds:.2f} s "
                f"= {answered / seconds:.0f} req/s"
            )
        print(
            f"(b) HTTP: runner {best_runner:.0f} req/s vs bare aiohttp {best_bare:.0f} req/s at concurrency "
            f"{concurrency} -> ratio {best_runner / best_bare:.2f} (target >= 0.80)"
        )
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=24, help="prompts for the local comparison")
    parser.add_argument("--http-requests", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.02, help="server-side latency per reply (s)")
    parser.add_argument("--parallel", type=int, default=8, help="sequences per batch for (c)")
    parser.add_argument("--only", choices=["local", "http", "parallel"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "local"):
            bench_local(Path(tmp), args.prompts)
        if args.only in (None, "http"):
            bench_http(Path(tmp), args.http_requests, args.concurrency, args.latency)
        if args.only in (None, "parallel"):
            # 96 answers by default: with fewer, loading the model and the batch's last,
            # half-empty steps weigh more than the decoding being measured.
            bench_parallel(Path(tmp), args.prompts * 4, args.parallel)


if __name__ == "__main__":
    main()
