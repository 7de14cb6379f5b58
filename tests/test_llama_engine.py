"""The llama engine with the real bundled Gemma 3 270M GGUF."""

import asyncio
import json

import numpy as np
import pytest
from conftest import rows
from helpers import run_cli, write_study

from workbench.engines.base import GenerationRequest
from workbench.models import make_engine, resolve
from workbench.specs import parse_spec

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
    other = [_ask(engine, GenerationRequest(messages=messages, temperature=0.9, max_tokens=20, seed=s)).text
             for s in (6, 7, 8)]
    assert first.text == again.text
    assert any(text != first.text for text in other)
    assert first.completion_tokens and 0 < first.completion_tokens <= 20
    assert first.prompt_tokens > 5 and first.latency_s > 0


def test_json_schema_constrains_the_output(engine):
    schema = {"type": "object", "properties": {"brands": {"type": "array", "items": {"type": "string"},
                                                           "maxItems": 3}},
              "required": ["brands"]}
    reply = _ask(engine, GenerationRequest(
        messages=[{"role": "user", "content": "List running shoe brands as JSON."}],
        temperature=0.5, max_tokens=60, seed=1, json_schema=schema))
    if reply.finish_reason == "stop":
        data = json.loads(reply.text)
        assert isinstance(data["brands"], list)
    else:  # cut by max_tokens: still a prefix of the grammar
        assert reply.text.lstrip().startswith("{")


def _naive_logprob(llm, prompt, continuation):
    """Evaluate prompt+continuation from scratch, in one batch, with logits for
    every position: the obvious (and slow: once per label) way."""
    import llama_cpp
    from llama_cpp import _internals

    p = llm.tokenize(prompt.encode(), add_bos=True, special=True)
    full = llm.tokenize((prompt + continuation).encode(), add_bos=True, special=True)
    assert full[: len(p)] == p
    llm.reset()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    batch = _internals.LlamaBatch(n_tokens=len(full), embd=0, n_seq_max=1, verbose=False)
    batch.set_batch(full, n_past=0, logits_all=True)
    llm._ctx.decode(batch)
    total = 0.0
    for i in range(len(p) - 1, len(full) - 1):
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i),
                                       shape=(llm.n_vocab(),)).astype(np.float64)
        logits -= logits.max()
        total += logits[full[i + 1]] - np.log(np.exp(logits).sum())
    batch.close()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    llm.reset()
    return total


def test_score_equals_naive_full_evaluation(engine):
    eng, loop = engine
    prompt = "Question: Which country has the best food?\nAnswer:"
    continuations = [" France", " Italy", " The United States of America", " Japan, without a doubt"]
    scores = loop.run_until_complete(eng.score(prompt, continuations))
    instance = eng._instances[0]
    naive = instance.executor.submit(
        lambda: [_naive_logprob(instance.llm, prompt, c) for c in continuations]).result()
    # Continuations of one token read the very logits the naive pass reads.
    assert scores[0] == pytest.approx(naive[0], abs=1e-6)
    assert scores[1] == pytest.approx(naive[1], abs=1e-6)
    # Longer ones are decoded in a second batch on top of the cached prompt.
    # llama.cpp's CPU kernels round differently for different batch shapes; on
    # this Q4_K_M model even two naive evaluations (one batch vs one token at a
    # time) differ by up to ~0.1 nats, so that is the honest bound here.
    assert np.allclose(scores, naive, atol=0.1), (scores, naive)
    assert all(s < 0 for s in scores)
    # A longer continuation that extends a likely one is less likely than its prefix.
    assert scores[2] < scores[1] or scores[2] < scores[0]


def test_score_reuses_the_prompt(engine):
    """Scoring after generation still works: the prompt cache is kept consistent."""
    eng, loop = engine
    prompt = "The best smartphone brand is"
    first = loop.run_until_complete(eng.score(prompt, [" Apple", " Samsung"]))
    _ask(engine, GenerationRequest(messages=[{"role": "user", "content": "Hi"}], max_tokens=5, seed=1))
    second = loop.run_until_complete(eng.score(prompt, [" Apple", " Samsung"]))
    assert np.allclose(first, second, atol=1e-4)


def test_token_logprobs_when_asked(engine):
    reply = _ask(engine, GenerationRequest(messages=[{"role": "user", "content": "Name a shoe brand."}],
                                           temperature=0, max_tokens=6, seed=1, logprobs=3))
    assert reply.logprobs and len(reply.logprobs) >= 1
    first = reply.logprobs[0]
    assert first["logprob"] <= 0 and len(first["top_logprobs"]) == 3
    # Greedy decoding picks the most likely token.
    assert abs(first["logprob"] - max(first["top_logprobs"].values())) < 1e-6


def test_study_run_on_the_local_model_stores_identity_seed_and_timing(tmp_path, db_path):
    study = write_study(tmp_path / "s.toml", models=["llama:default,n_ctx=512"], questions=3,
                        repetitions=2, max_tokens=12)
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    stored = rows(db_path, "SELECT r.seed, r.repetition, p.seed, p.model_identity, p.latency_s, "
                           "p.completion_tokens, p.text FROM requests r JOIN responses p ON p.request_key = r.key")
    assert len(stored) == 6
    assert sorted({s[0] for s in stored}) == [3, 4]  # seed + repetition - 1
    for seed, _rep, stored_seed, identity, latency, tokens, text in stored:
        assert seed == stored_seed and identity.startswith("llama:sha256:")
        assert latency > 0 and tokens >= 1 and isinstance(text, str)
    # Running again asks nothing.
    again = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert "0 newly planned" in again.stdout and "All 6 requests answered" in again.stdout
    assert rows(db_path, "SELECT COUNT(*) FROM responses") == [(6,)]
