"""Label-probability scoring: every precision against the F32 truth (error) and against naive
evaluation at the same precision (speed).

Over the same (entity, template) pairs of the bundled example study (4 labels), on the bundled
model, in one process, for each way the engine can score:

- f32 / f16: a dequantized copy of the GGUF's weights (made once, cached), normal batching;
- native, invariant: the 4-bit weights, no repacking, one token per micro-batch;
- native, fast: the 4-bit weights with llama.cpp's fast (repacked, batched) kernels.

Each is timed three ways: exact (the engine's method: the shared prefix evaluated once, each
prompt once on top of it, each label's remaining tokens on top of the prompt), naive (prompt +
label evaluated from an empty cache once per label) and first token (one evaluation of the
whole prompt per pair, the approximation); naive is timed on the first `--naive-pairs` pairs
(one token per micro-batch makes the invariant set-up's naive run long). Error: |exact - truth| in nats over every
(pair, label), the truth being naive evaluation of the F32 copy with F32 activations and cache
(the f32 row's naive run). Usage:

    .venv/bin/python bench/bench_entity.py [--entities 10] [--templates 6] [--variant few_shot_text]
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.engines.llama_precision import default_precision, dequantized_copy
from workbench.engines.llama_scoring import Item, Scorer
from workbench.engines.resolve import default_model_path
from workbench.methods.entity.study import VARIANTS, prompt_parts
from workbench.methods.study_files import load_study

# name, precision, invariant (native only)
SETUPS = (
    ("f32", "f32", False),
    ("f16", "f16", False),
    ("native, invariant", "native", True),
    ("native, fast kernels", "native", False),
)


def timed(run):
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def run_all(scorer: Scorer, prefix: str, items: list[Item], naive_items: list[Item]) -> list[tuple[float, list]]:
    """exact, first token (whole prompt per pair), naive (over `naive_items`): (seconds per
    pair, scores) each. The weights are read in once before any clock starts."""
    scorer.score_naive(prefix + items[0].suffix, items[0].continuations[:1])
    runs = [
        (items, lambda: scorer.score(prefix, items)),
        (items, lambda: [scorer.score_prompt_first_token(prefix + i.suffix, i.continuations) for i in items]),
        (naive_items, lambda: [scorer.score_naive(prefix + i.suffix, i.continuations) for i in naive_items]),
    ]
    out = []
    for measured, run in runs:
        seconds, scores = timed(run)
        out.append((seconds / len(measured), scores))
    return out


def errors(scores: list[list[float]], truth: list[list[float]]) -> tuple[float, float]:
    gaps = [abs(a - b) for xs, ys in zip(scores, truth) for a, b in zip(xs, ys)]
    return sum(gaps) / len(gaps), max(gaps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, default=10)
    parser.add_argument("--templates", type=int, default=6)
    parser.add_argument("--variant", choices=VARIANTS, default="few_shot_text")
    parser.add_argument("--naive-pairs", type=int, default=12, help="pairs timed naive (f32: all, the truth)")
    args = parser.parse_args()

    import llama_cpp

    study = load_study(Path(str(files("workbench.assets").joinpath("studies", "entity", "countries_urgency.toml"))))
    entities = [e["name"].strip() for e in study.entities[: args.entities]]
    templates = [t["sentence"] for t in study.templates[: args.templates]]
    parts = [prompt_parts(study.task, "english", args.variant, t, e) for t in templates for e in entities]
    prefix = parts[0][0]
    items = [Item(suffix, labels) for _p, suffix, labels in parts]
    path, digest = default_model_path()
    from workbench.engines.llama_cpu import plain_layout_on_amx

    plain_layout_on_amx()  # llama.cpp's AMX kernels crash on some machines
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=2048, verbose=False)
    default = default_precision(path)
    copies = {p: str(dequantized_copy(path, digest, p)) for p in ("f32", "f16")}  # made before any timing
    print(
        f"{len(items)} (entity, template) pairs x {len(items[0].continuations)} labels, variant {args.variant}; "
        f"shared prefix {len(llm.tokenize(prefix.encode(), add_bos=True, special=True))} tokens; "
        f"default precision here: {default}"
    )
    results = {}
    truth = None
    for name, precision, invariant in SETUPS:
        scorer = Scorer(llm, 2048, invariant=invariant, weights=copies.get(precision), precision=precision)
        try:
            # The truth is naive F32 over every pair; the others' naive speed over the first few.
            naive_items = items if truth is None else items[: args.naive_pairs]
            (exact_s, exact), (first_s, _), (naive_s, naive) = run_all(scorer, prefix, items, naive_items)
        finally:
            scorer.close()
        if truth is None:  # the f32 row comes first: its naive run is the truth
            truth = naive
        results[name] = (exact_s, first_s, naive_s, *errors(exact, truth))
        mean, worst = results[name][3:]
        print(
            f"  {name:<22} s/pair: exact {exact_s:6.3f}  first token {first_s:6.3f}  naive {naive_s:6.3f}  "
            f"exact/naive {naive_s / exact_s:5.2f}x  exact/first {first_s / exact_s:5.2f}x  "
            f"|exact - truth| mean {mean:.4f} max {worst:.4f} nats",
            flush=True,
        )
    label = {"f32": "f32", "f16": "f16", "native": "native, invariant"}[default]
    exact_s, _first, naive_s, mean, worst = results[label]
    fast_s = results["native, fast kernels"][0]
    print(f"default ({label}): exact/naive = {naive_s / exact_s:.2f}x (target >= 8)")
    print(f"default ({label}) / fast kernels, exact = {exact_s / fast_s:.2f}x the time (target <= 1.5)")
    print(f"default ({label}) vs the F32 truth: mean {mean:.4f}, max {worst:.4f} nats (target <= 0.01 / 0.03)")


if __name__ == "__main__":
    main()
