"""The batch's answer text per step: detokenizing the whole answer at every token (as the
batch did) against growing it piece by piece (as it does), in the same run.

    .venv/bin/python bench/bench_batch_text.py [--tokens 128]

On a GPU the batch loop is Python-bound (docs/engines.md, "Many sequences in one batch"): this is
one of its per-token costs, measurable on any machine.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import llama_cpp

from workbench.engines.llama_pieces import piece, read_long_pieces
from workbench.engines.resolve import default_model_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=128, help="answer length in tokens")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    read_long_pieces()
    llm = llama_cpp.Llama(str(default_model_path(print)[0]), vocab_only=True, verbose=False)
    sentence = "The best running shoes are Nike Pegasus, Adidas Ultraboost and Asics Gel-Nimbus. "
    tokens = llm.tokenize((sentence * (args.tokens // 10 + 1)).encode(), add_bos=False)[: args.tokens]

    def whole() -> None:
        for k in range(1, len(tokens) + 1):
            llm.detokenize(tokens[:k]).decode("utf-8", "ignore")

    def grown() -> None:
        buffer, raw = ctypes.create_string_buffer(64), bytearray()
        for token in tokens:
            text, buffer = piece(llama_cpp, llm._model.vocab, token, buffer)
            raw += text
            bytes(raw).decode("utf-8", "ignore")

    times = {}
    for f in (whole, grown, whole, grown):  # twice each, interleaved: the better of two
        started = time.perf_counter()
        for _ in range(args.rounds):
            f()
        took = (time.perf_counter() - started) / args.rounds
        times[f.__name__] = min(times.get(f.__name__, took), took)
    print(
        f"text of a {len(tokens)}-token answer, every step: whole {times['whole'] * 1000:.2f} ms, "
        f"grown {times['grown'] * 1000:.2f} ms -> {times['whole'] / times['grown']:.0f}x"
    )


if __name__ == "__main__":
    main()
