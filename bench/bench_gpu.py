"""Local generation throughput at several `parallel` values, for a GPU (or any) build.

One engine per value, the same prompts and seeds for each, every layer offloaded
(`n_gpu_layers=-1`); prints tokens generated per second and the ratio to
`parallel=1` measured in this same run. Meant to run as one short script on a
machine with a GPU and llama-cpp-python built for it, e.g.

    CMAKE_ARGS="-DGGML_CUDA=on" pip install --no-binary llama-cpp-python llama-cpp-python
    python bench/bench_gpu.py --model /models/qwen2.5-7b-instruct-q4_k_m.gguf

Where no model can be fetched, `bench/synthetic_gguf.py` writes one of Llama-2-7B's
shape with random Q4_0 weights (speed depends on shapes and types, not values).

Without --model it uses the bundled Gemma 3 270M. On a CPU-only build it still
runs (the offload is ignored), which is how it is checked here.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.engines.base import GenerationRequest
from workbench.engines.resolve import make_engine, resolve
from workbench.engines.specs import parse_spec

TOPICS = ["running shoes", "smartphones", "coffee makers", "laptops", "cars", "banks", "airlines", "beer"]


def requests(n: int, max_tokens: int) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            messages=[{"role": "user", "content": f"Which {TOPICS[i % len(TOPICS)]} would you recommend, and why?"}],
            temperature=0.7,
            max_tokens=max_tokens,
            seed=i,
        )
        for i in range(n)
    ]


async def measure(model: str, parallel: int, n: int, max_tokens: int, n_ctx: int) -> tuple[float, int]:
    # parallel named even when 1: left out, a GPU build would pick its own default
    spec = f"llama:{model},n_gpu_layers=-1,n_ctx={n_ctx},parallel={parallel}"
    engine = make_engine(resolve(parse_spec(spec), print))
    await engine.start()
    try:
        await engine.generate(requests(1, 4)[0])  # warm-up: first-call allocations are not throughput
        started = time.perf_counter()
        replies = await asyncio.gather(*(engine.generate(r) for r in requests(n, max_tokens)))
        seconds = time.perf_counter() - started
    finally:
        await engine.aclose()
    return seconds, sum(r.completion_tokens or 0 for r in replies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="default", help="a GGUF path (default: the bundled model)")
    parser.add_argument("--parallel", default="1,8,32,64", help="comma-separated values to measure")
    parser.add_argument(
        "--requests", type=int, default=0, help="requests per value (default: 2 x parallel, at least 8)"
    )
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--n-ctx", type=int, default=1024, help="context per sequence")
    args = parser.parse_args()
    import llama_cpp

    values = [int(v) for v in args.parallel.split(",")]
    print(
        f"llama-cpp-python {llama_cpp.__version__}, GPU offload supported: "
        f"{bool(llama_cpp.llama_supports_gpu_offload())}; requests of up to {args.max_tokens} tokens each"
    )
    base = None
    for parallel in values:
        n = args.requests or max(8, 2 * parallel)  # every sequence slot busy twice over
        seconds, tokens = asyncio.run(measure(args.model, parallel, n, args.max_tokens, args.n_ctx))
        rate = tokens / seconds
        base = base or rate
        print(
            f"parallel={parallel:<3} {n:4d} requests {tokens:6d} tokens in {seconds:7.2f} s = {rate:8.1f} tok/s  x{rate / base:.2f}"
        )


if __name__ == "__main__":
    main()
