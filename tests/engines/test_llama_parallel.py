"""`parallel=N`: many sequences in one llama.cpp batch, with the real bundled model."""

import asyncio
import dataclasses
import json

import pytest
from conftest import rows
from helpers import run_cli, write_study

from workbench.engines.base import EngineError, GenerationRequest
from workbench.engines.prompting import COMPLETION_STOPS
from workbench.engines.resolve import make_engine, resolve
from workbench.engines.specs import SpecError, parse_spec

pytestmark = pytest.mark.slow


def _requests(n, max_tokens=24, temperature=0.8):
    return [
        GenerationRequest(
            messages=[{"role": "user", "content": f"Name three brands of running shoes for runner {i}."}],
            temperature=temperature,
            max_tokens=max_tokens,
            seed=100 + i,
        )
        for i in range(n)
    ]


async def _with_engine(spec, body):
    engine = make_engine(resolve(parse_spec(spec)))
    await engine.start()
    try:
        return await body(engine)
    finally:
        await engine.aclose()


def test_one_sequence_at_a_time_through_the_batch_equals_the_lone_engine():
    """The batch builds the sampler chain, prompt and stops a lone request gets: one sequence
    at a time it gives the very same text for the same seed (several at once may differ in
    the last bits of the logits, which is why parallel=1 stays the default)."""

    async def serially(engine):
        return [await engine.generate(r) for r in _requests(6)]

    lone = asyncio.run(_with_engine("llama:default,n_ctx=512", serially))
    batched = asyncio.run(_with_engine("llama:default,n_ctx=512,parallel=4", serially))
    assert [c.text for c in batched] == [c.text for c in lone]
    assert [c.prompt_tokens for c in batched] == [c.prompt_tokens for c in lone]
    assert [c.completion_tokens for c in batched] == [c.completion_tokens for c in lone]
    assert {c.parallel for c in batched} == {4} and {c.parallel for c in lone} == {None}


def test_a_full_batch_answers_every_request_completely():
    async def together(engine):
        replies = await asyncio.gather(*(engine.generate(r) for r in _requests(10)))
        return replies, engine._instances[0].batch.most_live

    replies, most_live = asyncio.run(_with_engine("llama:default,n_ctx=512,parallel=4", together))
    assert most_live == 4  # they were decoded together, not one by one
    assert len(replies) == 10
    for reply in replies:
        assert reply.finish_reason in ("stop", "length")
        # An answer may end at its first token (the model's end of turn): how often depends on
        # the CPU's kernels, so only its bounds are checked; one cut by the limit holds all 24.
        assert 0 <= reply.completion_tokens <= 24 and reply.prompt_tokens > 5
        assert reply.finish_reason == "stop" or reply.completion_tokens == 24
        assert not any(stop in reply.text for stop in COMPLETION_STOPS)  # cut where a stop begins
        assert reply.parallel == 4 and reply.latency_s > 0
    assert sum(reply.completion_tokens for reply in replies) > 0


QUESTIONS = [
    "Which running shoe brand would you recommend to a beginner?",
    "Name the best smartphone brand and say why.",
    "Which country has the best food?",
    "Recommend a laptop for a student.",
    "Which car brand is the most reliable?",
]


def test_greedy_answers_at_parallel_4_are_the_answers_at_parallel_1():
    """Batched kernels round by layout, which tipped greedy answers (4 of 6 differed at
    parallel=6): a greedy request is decoded alone, whatever its neighbours, and a
    repetition of one already answered is answered from memory, not decoded again."""
    greedy = [
        GenerationRequest(messages=[{"role": "user", "content": q}], temperature=0, max_tokens=32, seed=i)
        for i, q in enumerate(QUESTIONS)
    ]

    async def one_by_one(engine):
        return [await engine.generate(r) for r in greedy]

    async def with_neighbours(engine):
        sampled = [engine.generate(r) for r in _requests(4, max_tokens=32)]
        return (await asyncio.gather(*(engine.generate(r) for r in greedy), *sampled))[: len(greedy)]

    async def repeated(engine):
        first = await engine.generate(greedy[0])
        again = [await engine.generate(dataclasses.replace(greedy[0], seed=seed)) for seed in (7, 8)]
        return first, again, len(engine._instances[0]._greedy.known)

    lone = asyncio.run(_with_engine("llama:default,n_ctx=512", one_by_one))
    batched = asyncio.run(_with_engine("llama:default,n_ctx=512,parallel=4", with_neighbours))
    assert [c.text for c in batched] == [c.text for c in lone]
    assert [c.completion_tokens for c in batched] == [c.completion_tokens for c in lone]
    first, again, decoded = asyncio.run(_with_engine("llama:default,n_ctx=512,parallel=4", repeated))
    assert first.text == lone[0].text and [c.text for c in again] == [first.text] * 2
    assert decoded == 1  # the repetitions (other seeds) were not decoded again
    assert all(c.latency_s < first.latency_s for c in again)


def test_a_cancelled_sequence_frees_its_place_and_the_others_finish():
    async def body(engine):
        batch = engine._instances[0].batch
        tasks = [asyncio.create_task(engine.generate(r)) for r in _requests(3, max_tokens=40)]  # sampled: batched
        while batch.steps < 1:  # decoding has begun
            await asyncio.sleep(0.01)
        # A sequence still being decoded (which one ends first depends on the CPU's kernels).
        victim = next(i for i, task in enumerate(tasks) if not task.done())
        tasks[victim].cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        after = await engine.generate(_requests(1, max_tokens=8)[0])  # its sequence id is free again
        return victim, done, after, batch

    victim, done, after, batch = asyncio.run(_with_engine("llama:default,n_ctx=512,parallel=2", body))
    assert isinstance(done[victim], asyncio.CancelledError)
    others = [reply for i, reply in enumerate(done) if i != victim]
    assert all(reply.finish_reason in ("stop", "length") for reply in others)
    assert after.finish_reason in ("stop", "length") and all(slot is None for slot in batch.slots)


def test_a_prompt_longer_than_the_context_fails_once_with_the_fix():
    long = GenerationRequest(messages=[{"role": "user", "content": "shoes " * 200}], max_tokens=8, seed=1)

    async def body(engine):
        with pytest.raises(EngineError) as caught:
            await engine.generate(long)
        ok = await engine.generate(_requests(1, max_tokens=4)[0])  # the engine goes on
        return caught.value, ok

    for spec in ("llama:default,n_ctx=64,parallel=2", "llama:default,n_ctx=64"):  # batched and alone alike
        error, ok = asyncio.run(_with_engine(spec, body))
        assert error.code == "context_overflow" and not error.retryable
        assert "does not fit n_ctx=64" in str(error) and "raise n_ctx" in str(error)
        assert ok.completion_tokens >= 1


def test_json_schema_log_probs_and_label_scores_in_a_parallel_engine():
    schema = {
        "type": "object",
        "properties": {"brands": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
        "required": ["brands"],
    }
    messages = [{"role": "user", "content": "List running shoe brands as JSON."}]

    async def body(engine):
        constrained = await asyncio.gather(
            *(
                engine.generate(GenerationRequest(messages=messages, json_schema=schema, max_tokens=60, seed=s))
                for s in range(3)
            )
        )
        with_logprobs = await engine.generate(GenerationRequest(messages=messages, max_tokens=5, seed=1, logprobs=2))
        scores = await engine.score_labels("The sky is", ".", [" blue", " green"], "exact")
        return constrained, with_logprobs, scores

    constrained, with_logprobs, scores = asyncio.run(_with_engine("llama:default,n_ctx=512,parallel=3", body))
    for reply in constrained:
        if reply.finish_reason == "stop":  # a reply cut at max_tokens is cut JSON
            assert isinstance(json.loads(reply.text)["brands"], list)
    assert any(reply.finish_reason == "stop" for reply in constrained)
    assert with_logprobs.logprobs and len(with_logprobs.logprobs) == with_logprobs.completion_tokens

    async def lone(engine):
        return await engine.score_labels("The sky is", ".", [" blue", " green"], "exact")

    assert json.loads(scores.text) == json.loads(asyncio.run(_with_engine("llama:default,n_ctx=512", lone)).text)


def test_a_study_at_parallel_keeps_its_keys_and_records_parallel(tmp_path, db_path):
    assert resolve(parse_spec("llama:default,parallel=8")).identity == resolve(parse_spec("llama:default")).identity
    with pytest.raises(SpecError, match="parallel"):
        parse_spec("llama:default,parallel=0")
    with pytest.raises(SpecError, match="llama models only"):
        parse_spec("openai:m@http://127.0.0.1:1/v1,parallel=2")
    study = write_study(
        tmp_path / "s.toml", models=["llama:default,n_ctx=512,parallel=4"], questions=3, repetitions=2, max_tokens=12
    )
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert rows(db_path, "SELECT COUNT(*), MIN(parallel), MAX(parallel) FROM responses") == [(6, 4, 4)]
    # The same study without `parallel` plans the same requests: nothing is asked again.
    study.write_text(study.read_text().replace(",parallel=4", ""))
    again = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert "0 newly planned" in again.stdout and "All 6 requests answered" in again.stdout


# Gemma's turn format, enough for a chat-mode check (the bundled base model has no template).
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ m['role'] }}\n{{ m['content'] }}<end_of_turn>\n"
    "{% endfor %}<start_of_turn>model\n"
)


def test_chat_mode_formats_the_prompt_as_the_lone_engine_does():
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    async def chat(engine):
        for instance in engine._instances:  # as if the GGUF carried this template
            instance.chat_template = CHAT_TEMPLATE
            model = instance.llm._model
            instance.llm.chat_handler = Jinja2ChatFormatter(
                template=CHAT_TEMPLATE,
                eos_token=model.token_get_text(model.token_eos()),
                bos_token=model.token_get_text(model.token_bos()),
                stop_token_ids=[model.token_eos()],
            ).to_chat_handler()
        return [await engine.generate(r) for r in _requests(3, max_tokens=16)]

    lone = asyncio.run(_with_engine("llama:default,n_ctx=512,mode=chat", chat))
    batched = asyncio.run(_with_engine("llama:default,n_ctx=512,mode=chat,parallel=2", chat))
    assert [c.text for c in batched] == [c.text for c in lone]
    assert [c.prompt_tokens for c in batched] == [c.prompt_tokens for c in lone]


def test_token_text_is_read_whole_and_grown_piece_by_piece():
    """llama-cpp-python read at most 32 bytes of a token's text and gave longer pieces back
    empty: 379 tokens of the bundled vocabulary, whole Hindi and Bengali words among them,
    vanished from answers. With the engine's fix its detokenize reads every piece whole, and
    the batch's answer grown piece by piece equals it, over the whole vocabulary."""
    import ctypes
    from types import SimpleNamespace

    import llama_cpp

    from workbench.engines.llama_batch import BatchLoop
    from workbench.engines.llama_pieces import read_long_pieces
    from workbench.engines.resolve import default_model_path

    read_long_pieces()
    llm = llama_cpp.Llama(str(default_model_path(print)[0]), vocab_only=True, verbose=False)
    vocab = llm._model.vocab
    word = "प्रधानमंत्री"  # "prime minister": one token of 37 bytes with its leading space
    [token] = llm.tokenize(f" {word}".encode(), add_bos=False)
    assert llm.detokenize([1596, token, 1596]).decode() == f" ke {word} ke"
    loop = SimpleNamespace(_llama_cpp=llama_cpp, vocab=vocab, _piece=ctypes.create_string_buffer(4))
    whole = ctypes.create_string_buffer(1024)
    longer = 0
    for t in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        n = llama_cpp.llama_token_to_piece(vocab, t, whole, 1024, 0, False)
        longer += n > 32
        assert BatchLoop._piece_of(loop, t) == llm.detokenize([t]) == whole.raw[:n], t
    assert longer == 379
    text = f"Nike, adidas AG · Ünïcödé 東京 🚀 [/x] \x1b[31m {word}\n  the end"
    tokens = llm.tokenize(text.encode(), add_bos=False)
    assert b"".join(BatchLoop._piece_of(loop, t) for t in tokens) == llm.detokenize(tokens) == text.encode()
