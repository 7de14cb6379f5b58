"""Would label scoring gain from putting several prompts in one llama.cpp batch?

For a few prompts, the next-token log-probabilities at each prompt's last token are
computed alone (one sequence per batch) and together (all prompts as separate
sequences of one batch), under two kernel set-ups:

- fast: the default model (repacked 4-bit weights) with micro-batches of up to 512 tokens;
- invariant: the model without repacking and one token per micro-batch (what
  `invariant=true` label scoring uses, exact to a lone evaluation).

Prints, per set-up, the largest difference in any log-probability between alone
and together (nats) and the time of each, measured in this run:

    .venv/bin/python bench/bench_score_batching.py [--prompts 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.engines.llama_logprobs import log_softmax
from workbench.engines.llama_scoring import quiet_llama
from workbench.engines.resolve import default_model_path

SENTENCES = [
    "The patient in {} reports chest pain and shortness of breath since this morning.",
    "A customer from {} asks for a refund on a laptop that stopped working after a week.",
    "The shipment to {} is delayed because the customs documents were incomplete.",
    "A student from {} wants to know whether the scholarship covers travel costs.",
    "The hotel guest from {} complains that the room was not cleaned yesterday.",
    "A farmer in {} asks how to protect the harvest from the coming frost.",
]
COUNTRIES = ["France", "Chad", "Japan", "Peru", "Norway", "Kenya"]


def last_token_logprobs(model, prompts: list[list[int]], together: bool, invariant: bool, threads: int):
    import llama_cpp
    from llama_cpp import _internals as internals

    params = llama_cpp.llama_context_default_params()
    params.n_ctx = 512 * len(prompts)
    params.n_batch = 512 * len(prompts)
    params.n_ubatch = 1 if invariant else 512
    params.n_seq_max = len(prompts) if together else 1
    params.kv_unified = True
    params.n_threads = params.n_threads_batch = threads
    with quiet_llama():
        ctx = internals.LlamaContext(model=model, params=params, verbose=False)
    batch = internals.LlamaBatch(n_tokens=params.n_batch, embd=0, n_seq_max=1, verbose=False)
    memory = llama_cpp.llama_get_memory(ctx.ctx)
    n_vocab = llama_cpp.llama_vocab_n_tokens(model.vocab)
    out = []
    started = time.perf_counter()
    groups = [list(enumerate(prompts))] if together else [[(0, p)] for p in prompts]
    for group in groups:
        batch.reset()
        b = batch.batch
        last = []
        for seq, tokens in group:
            for pos, token in enumerate(tokens):
                i = b.n_tokens
                b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, pos == len(tokens) - 1
                b.seq_id[i][0] = seq
                b.n_tokens = i + 1
            last.append(b.n_tokens - 1)
        if llama_cpp.llama_decode(ctx.ctx, b) != 0:
            raise RuntimeError("llama_decode failed")
        for i in last:
            row = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx.ctx, i), shape=(n_vocab,))
            out.append(log_softmax(row))
        for seq, _ in group:
            llama_cpp.llama_memory_seq_rm(memory, seq, -1, -1)
    seconds = time.perf_counter() - started
    batch.close()
    ctx.close()
    return out, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import llama_cpp
    from llama_cpp import _internals as internals

    path = str(default_model_path()[0])
    from workbench.engines.llama_cpu import plain_layout_on_amx

    plain_layout_on_amx()  # llama.cpp's AMX kernels crash on some machines
    llm = llama_cpp.Llama(model_path=path, n_ctx=512, verbose=False)
    texts = [SENTENCES[i % len(SENTENCES)].format(COUNTRIES[i % len(COUNTRIES)]) for i in range(args.prompts)]
    prompts = [
        llm.tokenize(f"Classify the urgency of this message: {t}\nUrgency:".encode(), add_bos=True) for t in texts
    ]
    plain = llama_cpp.llama_model_default_params()
    plain.use_extra_bufts = False
    with quiet_llama():
        unpacked = internals.LlamaModel(path_model=path, params=plain, verbose=False)
    for name, model, invariant in (("fast", llm._model, False), ("invariant", unpacked, True)):
        alone, t_alone = last_token_logprobs(model, prompts, False, invariant, args.threads)
        together, t_together = last_token_logprobs(model, prompts, True, invariant, args.threads)
        drift = max(float(np.abs(a - b).max()) for a, b in zip(alone, together))
        # What a label score reads: the likely tokens, not the far tail of the vocabulary.
        top = max(float(np.abs(a - b)[np.argsort(a)[-20:]].max()) for a, b in zip(alone, together))
        print(
            f"{name:9}: {len(prompts)} prompts alone {t_alone:.3f} s, in one batch {t_together:.3f} s "
            f"(x{t_alone / t_together:.2f}); largest log-prob difference {drift:.2e} nats "
            f"({top:.2e} among the 20 likeliest tokens)"
        )
    unpacked.close()
    llm.close()


if __name__ == "__main__":
    main()
