"""Greedy answers (temperature 0) at `parallel = N`: decoded alone, as the engine does, or
batched with their neighbours, as it did before.

On the bundled model, the same greedy requests (different questions, and one question twice)
are answered three ways in one process: at `parallel = 1`; at `parallel = N` as the engine
decodes them (alone, between two steps of the batch); and batched with each other in the
continuous-batching loop. Prints the time of each and how many answers differ from
`parallel = 1`. Usage:

    .venv/bin/python bench/bench_greedy.py [--parallel 6] [--max-tokens 48]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.engines.base import GenerationRequest
from workbench.engines.resolve import make_engine, resolve
from workbench.engines.specs import parse_spec

QUESTIONS = [
    "Which running shoe brand would you recommend to a beginner?",
    "Name the best smartphone brand and say why.",
    "Which country has the best food?",
    "Recommend a laptop for a student.",
    "Which car brand is the most reliable?",
    "Which running shoe brand would you recommend to a beginner?",  # the first one, again
]


def requests(n: int, max_tokens: int) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            messages=[{"role": "user", "content": QUESTIONS[i % len(QUESTIONS)]}],
            temperature=0,
            max_tokens=max_tokens,
            seed=i,  # as repetitions would: greedy decoding draws nothing, so it changes nothing
        )
        for i in range(n)
    ]


async def answer(spec: str, asked: list[GenerationRequest], batch_greedy: bool = False) -> tuple[float, list[str]]:
    engine = make_engine(resolve(parse_spec(spec)))
    await engine.start()
    try:
        if batch_greedy:  # as before: greedy requests prepared for the batch like sampled ones
            for instance in engine._instances:
                prepare = instance.prepare
                instance.batch.prepare = lambda r, prepare=prepare: dataclasses.replace(
                    prepare(dataclasses.replace(r, temperature=1.0)), temperature=0
                )
        for instance in engine._instances:
            instance._greedy.size = 0  # every request decoded: no answer from memory
        started = time.perf_counter()
        replies = await asyncio.gather(*(engine.generate(r) for r in asked))
        return time.perf_counter() - started, [r.text for r in replies]
    finally:
        await engine.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parallel", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()
    asked = requests(args.parallel, args.max_tokens)
    base = "llama:default,n_ctx=512"
    lone_s, lone = asyncio.run(answer(base, asked))
    alone_s, alone = asyncio.run(answer(f"{base},parallel={args.parallel}", asked))
    batched_s, batched = asyncio.run(answer(f"{base},parallel={args.parallel}", asked, batch_greedy=True))
    print(f"{len(asked)} greedy requests, max_tokens {args.max_tokens}, parallel {args.parallel}:")
    print(f"  parallel=1                      {lone_s:6.1f} s")
    rows = (("decoded alone (the engine)", alone_s, alone), ("batched together (before)", batched_s, batched))
    for name, seconds, texts in rows:
        differ = sum(a != b for a, b in zip(texts, lone))
        print(f"  parallel={args.parallel}, {name:<22} {seconds:6.1f} s  {differ} of {len(asked)} answers differ")
    print(f"  repeated question, batched: {'same' if batched[0] == batched[5 % len(asked)] else 'different'} answers")


if __name__ == "__main__":
    main()
