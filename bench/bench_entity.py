"""Label-probability scoring speed: exact vs naive vs the first-token approximation.

Over the same (entity, template) pairs of the bundled example study (4 labels), on the
bundled model, in one process:

- naive: prompt + label evaluated from an empty cache once per label (what a harness
  that re-sends the whole text per label does) — exact, slow;
- first token: one evaluation of the whole prompt per pair, reading the next-token
  distribution (what a client limited to top-k log-probs does) — approximate;
- exact (the engine's method): the shared prefix evaluated once, each prompt once on
  top of it, each label's remaining tokens on top of the prompt.

Also printed, for transparency: the first-token approximation with the same prefix
cache as `exact`. Prints pairs/s and the ratios. Usage:

    .venv/bin/python bench/bench_entity.py [--entities 20] [--templates 10] [--variant few_shot_text]
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.engines.llama_scoring import Item, Scorer
from workbench.methods.entity.study import VARIANTS, prompt_parts
from workbench.models import default_model_path
from workbench.studies.spec import load_study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, default=20)
    parser.add_argument("--templates", type=int, default=10)
    parser.add_argument("--variant", choices=VARIANTS, default="few_shot_text")
    args = parser.parse_args()

    import llama_cpp

    study = load_study(Path(str(files("workbench.assets").joinpath("studies", "entity", "countries_urgency.toml"))))
    entities = [e["name"].strip() for e in study.entities[: args.entities]]
    templates = [t["sentence"] for t in study.templates[: args.templates]]
    parts = [prompt_parts(study.task, "english", args.variant, t, e) for t in templates for e in entities]
    prefix = parts[0][0]
    items = [Item(suffix, labels) for _p, suffix, labels in parts]
    llm = llama_cpp.Llama(model_path=str(default_model_path()[0]), n_ctx=2048, verbose=False)
    scorer = Scorer(llm, 2048)
    tokens = len(scorer.tokenize(prefix, bos=True))
    print(
        f"{len(items)} (entity, template) pairs x {len(items[0].continuations)} labels, variant {args.variant}; "
        f"shared prefix {tokens} tokens; label tokens: "
        f"{[len(scorer.tokenize(c, bos=False)) for c in items[0].continuations]}"
    )

    def timed(name: str, run) -> tuple[float, list]:
        started = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - started
        print(f"  {name:<34} {seconds:8.1f} s  {len(items) / seconds:7.2f} pairs/s", flush=True)
        return len(items) / seconds, result

    exact_rate, exact = timed("exact (engine)", lambda: scorer.score(prefix, items))
    first_rate, _ = timed(
        "first token, whole prompt per pair",
        lambda: [scorer.score_prompt_first_token(prefix + i.suffix, i.continuations) for i in items],
    )
    cached_rate, _ = timed("first token, with the prefix cache", lambda: scorer.score(prefix, items, True))
    naive_rate, naive = timed(
        "naive, whole prompt per label", lambda: [scorer.score_naive(prefix + i.suffix, i.continuations) for i in items]
    )
    worst = max(abs(a - b) for xs, ys in zip(exact, naive) for a, b in zip(xs, ys))
    print(f"exact / naive = {exact_rate / naive_rate:.2f}x (target >= 6)")
    print(f"exact / first token (whole prompt) = {exact_rate / first_rate:.2f}x (target >= 0.8)")
    print(f"exact / first token (prefix cached) = {exact_rate / cached_rate:.2f}x")
    print(f"largest |exact - naive| with the fast kernels: {worst:.4f} nats (batch layout; see the engine's notes)")
    scorer.close()


if __name__ == "__main__":
    main()
