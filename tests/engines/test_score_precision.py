"""Label scores at the model's own precision: the default against an F32 evaluation of the
same weights, on the real bundled Gemma 3 270M GGUF."""

import asyncio
from pathlib import Path

import numpy as np
import pytest

from workbench.engines.resolve import make_engine, resolve
from workbench.engines.specs import SpecError, parse_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "assets" / "studies" / "entity"


def _prompts():
    """A handful of the bundled study's prompts: zero-shot text labels (several tokens each) and
    zero-shot numeric ones, two countries each."""
    from workbench.methods.entity.study import load_task, prompt_parts
    from workbench.studies.spec import Where

    task = load_task(Where("t"), EXAMPLE / "urgency.task.json")
    sentence = (EXAMPLE / "urgency_templates.csv").read_text().splitlines()[1].split(",")[0].strip('"')
    return [
        prompt_parts(task, "english", variant, sentence, entity)
        for variant in ("zero_shot_text", "zero_shot_numeric")
        for entity in ("France", "Chad")
    ]


def _truth(f32_path: str, prompts) -> list[list[float]]:
    """The weights' own numbers: prompt + label evaluated from scratch in one batch on the F32
    copy, with an F32 cache, log-softmax in float64."""
    import llama_cpp
    from llama_cpp import _internals

    llm = llama_cpp.Llama(
        model_path=f32_path, n_ctx=1024, n_batch=1024, n_ubatch=1024, type_k=0, type_v=0, verbose=False
    )  # type 0: GGML_TYPE_F32
    out = []
    try:
        for prefix, suffix, labels in prompts:
            head = llm.tokenize((prefix + suffix).encode(), add_bos=True, special=True)
            row = []
            for label in labels:
                full = llm.tokenize((prefix + suffix + label).encode(), add_bos=True, special=True)
                assert full[: len(head)] == head
                llm._ctx.kv_cache_seq_rm(-1, 0, -1)
                batch = _internals.LlamaBatch(n_tokens=len(full), embd=0, n_seq_max=1, verbose=False)
                batch.set_batch(full, n_past=0, logits_all=True)
                llm._ctx.decode(batch)
                total = 0.0
                for i in range(len(head) - 1, len(full) - 1):
                    logits = np.ctypeslib.as_array(
                        llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i), shape=(llm.n_vocab(),)
                    ).astype(np.float64)
                    logits -= logits.max()
                    total += logits[full[i + 1]] - np.log(np.exp(logits).sum())
                batch.close()
                row.append(total)
            out.append(row)
    finally:
        llm.close()
    return out


@pytest.fixture(scope="module")
def scored():
    """Default scores through the engine (the shared prefix cached, each prompt's labels in one
    batch), the copy's naive evaluation in chunks of 16 tokens (another layout; text-label
    prompts), and the truth."""
    from workbench.engines.llama_precision import copy_path
    from workbench.engines.llama_scoring import Scorer

    prompts = _prompts()
    resolved = resolve(parse_spec("llama:default,n_ctx=1024"))
    engine = make_engine(resolved)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(engine.start())
        replies = [
            loop.run_until_complete(engine.score_labels(prefix, suffix, labels, "exact"))
            for prefix, suffix, labels in prompts
        ]
        instance = engine._instances[0]

        def chunked():
            scorer = Scorer(
                instance.llm, 1024, n_batch=16, weights=copy_path(resolved.file_hash, "f32"), precision="f32"
            )
            try:
                return [scorer.score_naive(p + s, labels) for p, s, labels in prompts[:2]]
            finally:
                scorer.close()

        precision = instance.scorer.precision
        in_chunks = instance.executor.submit(chunked).result()
    finally:
        loop.run_until_complete(engine.aclose())
        loop.close()
    import json

    exact = [json.loads(r.text)["logprobs"] for r in replies]
    truth = _truth(str(copy_path(resolved.file_hash, "f32")), prompts)
    return precision, exact, in_chunks, truth


def _gaps(xs, ys):
    return [abs(a - b) for x, y in zip(xs, ys) for a, b in zip(x, y)]


@pytest.mark.slow
def test_default_scores_are_the_f32_evaluation_of_the_same_weights(scored):
    """Within 0.01 nats on average and 0.03 at most of the weights' F32 evaluation (the
    native 4-bit kernels were 0.12-0.28 off on average, up to 0.55)."""
    precision, exact, _chunks, truth = scored
    assert precision == "f32"  # the bundled model is small: its copy is F32
    gaps = _gaps(exact, truth)
    assert len(gaps) == 16
    assert np.mean(gaps) <= 0.01 and max(gaps) <= 0.03, (exact, truth)
    assert all(s < 0 for row in exact for s in row)


@pytest.mark.slow
def test_two_batch_layouts_agree(scored):
    """The engine's exact scores (prefix cached, a prompt's labels in one batch, a sequence
    each) against a lone evaluation of prompt + label in 16-token chunks: the layout moves
    nothing that matters."""
    _precision, exact, in_chunks, _truth = scored
    assert max(_gaps(exact[:2], in_chunks)) <= 0.01


@pytest.mark.slow
def test_each_precision_is_its_own_request():
    """f32 (the bundled model's default), f16 and native score other numbers: each request
    records which, so they never mix; native requests keep the keys they had (`kernels` only)."""
    from importlib.resources import files

    from workbench import methods
    from workbench.methods.entity.study import plan_requests
    from workbench.methods.study_files import load_study

    study = load_study(str(files("workbench.assets").joinpath("studies", "entity", "countries_urgency.toml")))
    entity = methods.get("entity")

    def first(spec_text):
        spec = parse_spec(spec_text)
        request = next(iter(entity.plan(study, "id", entity.plan_params(study, spec), None)))
        score = request.payload["score"]
        return score.get("precision"), score.get("kernels"), request.key

    default, f32, f16 = (
        first("llama:default"),
        first("llama:default,precision=f32"),
        first("llama:default,precision=f16"),
    )
    native, invariant, fast = (
        first("llama:default,precision=native"),
        first("llama:default,invariant=true"),
        first("llama:default,invariant=false"),
    )
    assert default == f32 and default[:2] == ("f32", None) and f16[:2] == ("f16", None)
    assert native == invariant and native[:2] == (None, "invariant") and fast[:2] == (None, "fast")
    assert len({default[2], f16[2], native[2], fast[2]}) == 4
    assert first("openai:m@http://127.0.0.1:9/v1")[:2] == (None, None)  # a served model: nothing to choose
    # a native request's key is what it was before precisions existed
    assert native[2] == next(iter(plan_requests(study, "id", {"kernels": "invariant"}))).key


def test_precision_is_checked_with_a_clear_message():
    with pytest.raises(SpecError, match="precision='bf8'.*must be f32, f16 or native"):
        parse_spec("llama:default,precision=bf8")
    with pytest.raises(SpecError, match="llama models only"):
        parse_spec("openai:m@http://127.0.0.1:9/v1,precision=f32")
    with pytest.raises(SpecError, match="invariant applies to precision=native only"):
        resolve(parse_spec("llama:default,precision=f16,invariant=true"))


def test_default_precision_follows_size_and_memory(tmp_path):
    """f32 for a small model, f16 where the machine has the memory for it, native otherwise;
    the copy is named by the source's hash, in the model cache."""
    from workbench.engines.llama_precision import copy_path, default_precision, parameter_count
    from workbench.engines.resolve import default_model_path

    path, digest = default_model_path()
    weights = parameter_count(path)
    assert 260e6 < weights < 280e6  # Gemma 3 270M
    assert default_precision(path, memory=64 * 1024**3) == "f32"
    assert default_precision(path, memory=weights * 5) == "f16"  # half of it holds an F16 copy, not an F32 one
    assert default_precision(path, memory=weights * 3) == "native"
    assert copy_path(digest, "f16").name == f"{digest}.f16.gguf"
    (tmp_path / "x.gguf").write_bytes(b"GGML")
    with pytest.raises(ValueError, match="not a GGUF"):
        parameter_count(tmp_path / "x.gguf")
