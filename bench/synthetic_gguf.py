"""Write a Llama-shaped GGUF with random Q4_0 weights, for throughput measurements.

How fast llama.cpp decodes depends on the tensors' shapes and types, not on
their values, so a model of Llama-2-7B's shape with random 4-bit weights gives
the tokens/s of a real 7B Q4_0 model where no real one can be fetched (an
offline GPU machine, say). Its text is noise: use it for `bench/bench_gpu.py`,
never for an audit.

    python bench/synthetic_gguf.py /tmp/llama7b-random-q4_0.gguf            # 7B shape, 3.6 GiB
    python bench/synthetic_gguf.py /tmp/tiny.gguf --embd 256 --layers 2 --ff 512 --vocab 1000

Needs the `gguf` package (pip install gguf, or llama.cpp's gguf-py on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import string
import time

import numpy as np

Q4_0_BLOCK = 32  # weights per block
Q4_0_BYTES = 18  # an fp16 scale, then 16 bytes of 4-bit values


def vocabulary(size: int) -> tuple[list[str], list[float], list[int]]:
    """A SentencePiece-style vocabulary: unk/bos/eos, the 256 byte tokens, then pieces."""
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL] + [TokenType.BYTE] * 256
    pieces = dict.fromkeys(["▁", *string.ascii_letters, *string.digits, *string.punctuation])
    n = 0
    while len(tokens) + len(pieces) < size:
        word, k = "", n
        while True:  # base-26 spelling of n: a, b, ..., z, aa, ab, ...
            word = string.ascii_lowercase[k % 26] + word
            k = k // 26 - 1
            if k < 0:
                break
        pieces.setdefault("▁" + word)
        pieces.setdefault(word)
        n += 1
    tokens += list(pieces)[: size - len(tokens)]
    types += [TokenType.NORMAL] * (size - len(types))
    scores = [0.0] * 3 + [0.0] * 256 + [-float(i) for i in range(size - 259)]
    return tokens, scores, [int(t) for t in types]


def q4_0_pool(max_bytes: int, seed: int) -> np.ndarray:
    """Random 4-bit blocks whose scales keep the weights near +-0.04 (no overflow)."""
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 256, size=max_bytes, dtype=np.uint8)
    blocks = pool.reshape(-1, Q4_0_BYTES)
    blocks[:, :2] = np.frombuffer(np.float16(0.005).tobytes(), dtype=np.uint8)
    return pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--embd", type=int, default=4096)
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--ff", type=int, default=11008)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--kv-heads", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from gguf import GGMLQuantizationType, GGUFWriter

    started = time.perf_counter()
    head_dim = args.embd // args.heads
    kv = head_dim * args.kv_heads
    writer = GGUFWriter(args.path, "llama")
    writer.add_name(f"random-llama-{args.layers}x{args.embd}")
    writer.add_context_length(args.context)
    writer.add_embedding_length(args.embd)
    writer.add_block_count(args.layers)
    writer.add_feed_forward_length(args.ff)
    writer.add_head_count(args.heads)
    writer.add_head_count_kv(args.kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(2)  # mostly Q4_0
    writer.add_vocab_size(args.vocab)
    tokens, scores, types = vocabulary(args.vocab)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)

    largest = max(args.vocab * args.embd, args.ff * args.embd)
    pool = q4_0_pool(largest // Q4_0_BLOCK * Q4_0_BYTES, args.seed)
    ones = np.ones(args.embd, dtype=np.float32)

    def q4(name: str, rows: int, cols: int) -> None:
        # every matrix is a view of one random pool: values do not matter, shapes do
        row_bytes = cols // Q4_0_BLOCK * Q4_0_BYTES
        writer.add_tensor(name, pool[: rows * row_bytes].reshape(rows, row_bytes), raw_dtype=GGMLQuantizationType.Q4_0)

    q4("token_embd.weight", args.vocab, args.embd)
    writer.add_tensor("output_norm.weight", ones)
    q4("output.weight", args.vocab, args.embd)
    for i in range(args.layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", ones)
        q4(f"blk.{i}.attn_q.weight", args.embd, args.embd)
        q4(f"blk.{i}.attn_k.weight", kv, args.embd)
        q4(f"blk.{i}.attn_v.weight", kv, args.embd)
        q4(f"blk.{i}.attn_output.weight", args.embd, args.embd)
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", ones)
        q4(f"blk.{i}.ffn_gate.weight", args.ff, args.embd)
        q4(f"blk.{i}.ffn_up.weight", args.ff, args.embd)
        q4(f"blk.{i}.ffn_down.weight", args.embd, args.ff)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"wrote {args.path} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
