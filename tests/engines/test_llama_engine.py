"""The llama engine with the real bundled Gemma 3 270M GGUF."""

import asyncio
import json

import numpy as np
import pytest
from conftest import rows
from helpers import run_cli, write_study

from workbench.engines.base import GenerationRequest
from workbench.engines.resolve import make_engine, resolve
from workbench.engines.specs import parse_spec

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engine():
    loop = asyncio.new_event_loop()
    eng = make_engine(resolve(parse_spec("llama:default,n_ctx=512")))
    loop.run_until_complete(eng.start())
    yield eng, loop
    loop.run_until_complete(eng.aclose())
    loop.close()


def _ask(engine, request):
    eng, loop = engine
    return loop.run_until_complete(eng.generate(request))


def test_default_model_is_a_base_model_used_in_completion_mode(engine):
    eng, _ = engine
    assert eng.identity.startswith("llama:sha256:a5fd3b62")
    assert eng.chat_mode is False  # the bundled GGUF has no chat template


def test_generation_is_reproducible_per_seed(engine):
    messages = [{"role": "user", "content": "Which running shoes would you recommend?"}]
    first = _ask(engine, GenerationRequest(messages=messages, temperature=0.9, max_tokens=20, seed=5))
    again = _ask(engine, GenerationRequest(messages=messages, temperature=0.9, max_tokens=20, seed=5))
    other = [
        _ask(engine, GenerationRequest(messages=messages, temperature=0.9, max_tokens=20, seed=s)).text
        for s in (6, 7, 8)
    ]
    assert first.text == again.text
    assert any(text != first.text for text in other)
    assert first.completion_tokens and 0 < first.completion_tokens <= 20
    assert first.prompt_tokens > 5 and first.latency_s > 0


def test_json_schema_constrains_the_output(engine):
    schema = {
        "type": "object",
        "properties": {"brands": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
        "required": ["brands"],
    }
    reply = _ask(
        engine,
        GenerationRequest(
            messages=[{"role": "user", "content": "List running shoe brands as JSON."}],
            temperature=0.5,
            max_tokens=60,
            seed=1,
            json_schema=schema,
        ),
    )
    if reply.finish_reason == "stop":
        data = json.loads(reply.text)
        assert isinstance(data["brands"], list)
    else:  # cut by max_tokens: still a prefix of the grammar
        assert reply.text.lstrip().startswith("{")


def _naive_logprob(llm, prompt, continuation, one_batch=True):
    """Evaluate prompt+continuation from scratch with logits for every position: the
    obvious (and slow: once per label) way. `one_batch=False` decodes one token at a
    time, the other extreme of llama.cpp's batch layouts."""
    import llama_cpp
    from llama_cpp import _internals

    p = llm.tokenize(prompt.encode(), add_bos=True, special=True)
    full = llm.tokenize((prompt + continuation).encode(), add_bos=True, special=True)
    assert full[: len(p)] == p
    llm.reset()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    rows = {}

    def row(index):
        return np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(llm._ctx.ctx, index), shape=(llm.n_vocab(),)
        ).astype(np.float64)

    if one_batch:
        batch = _internals.LlamaBatch(n_tokens=len(full), embd=0, n_seq_max=1, verbose=False)
        batch.set_batch(full, n_past=0, logits_all=True)
        llm._ctx.decode(batch)
        rows = {i: row(i) for i in range(len(p) - 1, len(full) - 1)}
    else:
        batch = _internals.LlamaBatch(n_tokens=1, embd=0, n_seq_max=1, verbose=False)
        for i, token in enumerate(full[:-1]):
            batch.set_batch([token], n_past=i, logits_all=True)
            llm._ctx.decode(batch)
            if i >= len(p) - 1:
                rows[i] = row(0)
    total = 0.0
    for i in range(len(p) - 1, len(full) - 1):
        logits = rows[i] - rows[i].max()
        total += logits[full[i + 1]] - np.log(np.exp(logits).sum())
    batch.close()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    llm.reset()
    return total


PROMPT = "Question: Which country has the best food?\nAnswer:"
CONTINUATIONS = [" France", " Italy", " The United States of America", " Japan, without a doubt"]
# Float32 rounding: the same numbers summed in another order (log-sum-exp over the
# vocabulary, then over a label's tokens). Relative, so it means the same at -0.1 and -17.
ROUNDING = dict(rel=1e-5, abs=1e-6)


def test_score_equals_naive_full_evaluation():
    """On the native weights with the fast kernels, the score against a lone evaluation of prompt + label.

    llama.cpp's default CPU kernels round differently for different batch shapes
    (repacked 4-bit kernels), by an amount that depends on the CPU. So the bound is
    not a constant: it is the spread between two naive layouts of the same text
    (one batch vs one token at a time), measured here, on this machine. A wrong
    token or position is off by nats, far outside it."""
    eng = make_engine(resolve(parse_spec("llama:default,n_ctx=512,invariant=false")))
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(eng.start())
        scores = loop.run_until_complete(eng.score(PROMPT, CONTINUATIONS))
        instance = eng._instances[0]
        one_batch, token_by_token = instance.executor.submit(
            lambda: (
                [_naive_logprob(instance.llm, PROMPT, c) for c in CONTINUATIONS],
                [_naive_logprob(instance.llm, PROMPT, c, one_batch=False) for c in CONTINUATIONS],
            )
        ).result()
    finally:
        loop.run_until_complete(eng.aclose())
        loop.close()
    spread = max(abs(a - b) for a, b in zip(one_batch, token_by_token))
    bound = 4 * spread + 1e-4
    worst = max(abs(s - n) for s, n in zip(scores, one_batch))
    assert worst <= bound, (scores, one_batch, token_by_token)
    assert all(s < 0 for s in scores)
    # A longer continuation that extends a likely one is less likely than its prefix.
    assert scores[2] < scores[1] or scores[2] < scores[0]


def test_score_is_exact_with_batch_invariant_kernels():
    """With invariant=true the fast path (shared prefix cached, labels after it) and a
    lone evaluation from an empty cache run the same kernels on the same numbers:
    equal up to float32 summation order, on any CPU."""
    loop = asyncio.new_event_loop()
    eng = make_engine(resolve(parse_spec("llama:default,n_ctx=512,invariant=true")))
    try:
        loop.run_until_complete(eng.start())
        scores = loop.run_until_complete(eng.score(PROMPT, CONTINUATIONS))
        instance = eng._instances[0]
        naive = instance.executor.submit(lambda: instance.scorer.score_naive(PROMPT, CONTINUATIONS)).result()
    finally:
        loop.run_until_complete(eng.aclose())
        loop.close()
    for fast, lone in zip(scores, naive):
        assert fast == pytest.approx(lone, **ROUNDING)


def test_score_reuses_the_prompt(engine):
    """Scoring after generation still works: the prompt cache is kept consistent."""
    eng, loop = engine
    prompt = "The best smartphone brand is"
    first = loop.run_until_complete(eng.score(prompt, [" Apple", " Samsung"]))
    _ask(engine, GenerationRequest(messages=[{"role": "user", "content": "Hi"}], max_tokens=5, seed=1))
    second = loop.run_until_complete(eng.score(prompt, [" Apple", " Samsung"]))
    # A cache left inconsistent moves scores by nats; another batch layout by well under 0.01.
    assert np.allclose(first, second, atol=0.01)


def test_token_logprobs_when_asked(engine):
    reply = _ask(
        engine,
        GenerationRequest(
            messages=[{"role": "user", "content": "Name a shoe brand."}],
            temperature=0,
            max_tokens=6,
            seed=1,
            logprobs=3,
        ),
    )
    assert reply.logprobs and len(reply.logprobs) >= 1
    first = reply.logprobs[0]
    assert first["logprob"] <= 0 and len(first["top_logprobs"]) == 3
    # Greedy decoding picks the most likely token.
    assert abs(first["logprob"] - max(first["top_logprobs"].values())) < 1e-6


def test_study_run_on_the_local_model_stores_identity_seed_and_timing(tmp_path, db_path):
    study = write_study(
        tmp_path / "s.toml", models=["llama:default,n_ctx=512"], questions=3, repetitions=2, max_tokens=12
    )
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    stored = rows(
        db_path,
        "SELECT r.seed, r.repetition, p.seed, p.model_identity, p.latency_s, "
        "p.completion_tokens, p.text FROM requests r JOIN responses p ON p.request_key = r.key",
    )
    assert len(stored) == 6
    assert sorted({s[0] for s in stored}) == [3, 4]  # seed + repetition - 1
    for seed, _rep, stored_seed, identity, latency, tokens, text in stored:
        assert seed == stored_seed and identity.startswith("llama:sha256:")
        assert latency > 0 and tokens >= 1 and isinstance(text, str)
    # Running again asks nothing.
    again = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert "0 newly planned" in again.stdout and "All 6 requests answered" in again.stdout
    assert rows(db_path, "SELECT COUNT(*) FROM responses") == [(6,)]
