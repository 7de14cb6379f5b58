"""Continuous batching for the `llama` engine: many sequences in one llama.cpp batch.

With `parallel=N` one context holds up to N sequences, each with its own sequence
id in a shared (unified) KV cache and its own sampler chain seeded like a lone
request. Every step decodes the next token of every live sequence, plus prompt
tokens of newly admitted ones, in one `llama_decode`; a finished sequence frees
its id at once and the next waiting request takes it (new requests join while
others are still generating).

Why it is faster: one sequence at a time multiplies a weight matrix by a vector
per token, which leaves most of the CPU's (and far more of a GPU's) arithmetic
idle; N sequences make it a matrix-matrix product at about the same memory
traffic.

What it changes: the numbers of a sequence decoded beside others may differ in
the last bits from a lone decode (the kernels sum in batch-dependent order), so
a seeded answer at `parallel > 1` can differ from the same seed at
`parallel = 1`. Each response records the `parallel` it was made with.

Everything runs on one thread (the instance's): llama.cpp objects are not
thread-safe. Work that is not a batched generation (label scoring, a request
that asks for token log-probs) runs on that thread between two steps.
"""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import json
import queue
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from workbench.engines.base import Completion, EngineError
from workbench.engines.llama_pieces import piece

# A prompt longer than the context is permanent (retrying cannot help): the message says the fix.
CONTEXT_HINT = "raise n_ctx in the model spec, e.g. llama:default,n_ctx=8192"


@dataclass
class Prepared:
    """A generation ready to decode: what `_Instance.prepare` makes of a request."""

    tokens: list[int]  # the prompt, tokenised as a lone request would be
    max_tokens: int
    temperature: float
    top_p: float
    seed: int
    stop: list[str]
    grammar: Any = None  # a llama_cpp.LlamaGrammar
    text_prefix: str = ""  # the prefill, which is part of the answer


class _Ask:
    """A request handed to the loop; `cancelled` is set by the awaiting side."""

    def __init__(self, request: Any):
        self.request = request
        self.cancelled = False


@dataclass
class _Slot:
    seq: int
    ask: _Ask
    job: Prepared
    future: Future
    sampler: Any
    started: float
    pending: list[int]  # prompt tokens not decoded yet
    pos: int = 0  # next position in this sequence
    out: list[int] = field(default_factory=list)
    text_bytes: bytearray = field(default_factory=bytearray)  # the pieces of `out`, as they came
    next_token: int | None = None  # sampled, to be decoded in the next step
    index: int = -1  # this step's batch index holding its logits, or -1


STOP = object()


class BatchLoop:
    """The decode loop of one instance with `parallel` sequences (see the module doc)."""

    def __init__(
        self,
        llm: Any,
        parallel: int,
        n_ctx_seq: int,
        n_batch: int,
        threads: int,
        prepare: Callable[[Any], Prepared | None],
        alone: Callable[[Any], Completion],
        gpu: bool = False,
    ):
        import llama_cpp
        from llama_cpp import _internals as internals

        self.llm = llm
        self.prepare = prepare  # request -> Prepared, or None for one the batch cannot decode
        self.alone = alone  # request -> Completion, decoded on its own (token log-probs)
        self.parallel = parallel
        self.n_ctx_seq = n_ctx_seq
        self.n_batch = max(n_batch, parallel)
        params = type(llm.context_params).from_buffer_copy(llm.context_params)
        params.n_ctx = parallel * n_ctx_seq
        params.n_seq_max = parallel
        params.n_batch = self.n_batch
        params.n_ubatch = min(params.n_ubatch, self.n_batch)
        params.n_threads = params.n_threads_batch = threads
        if gpu:
            # Measured on an H200 (docs/engines.md, "Many sequences in one batch"): llama.cpp's attention
            # without flash attention aborts there from 32 sequences in one unified cache ("illegal
            # instruction" in its CUDA graph), and flash attention over one cache per sequence was
            # the fastest set-up (2,030 against 1,753 tok/s unified, 64 sequences of a 7B model).
            # auto: on wherever the device runs it (llama.cpp's own default; on the H200 it
            # resolved to on, 1,856 tok/s at 32 sequences), off for a model whose attention the
            # GPU cannot run, instead of handing that attention to the CPU
            params.flash_attn_type = -1
            params.kv_unified = False  # each sequence attends over its own n_ctx cells only
        else:
            params.kv_unified = True  # one pool of cells: a long answer may use what a short one leaves
        from workbench.engines.llama_scoring import quiet_llama

        with quiet_llama():  # llama.cpp notes its cache layout on stderr, over the progress line
            self.ctx = internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self.batch = internals.LlamaBatch(n_tokens=self.n_batch, embd=0, n_seq_max=1, verbose=False)
        self.memory = llama_cpp.llama_get_memory(self.ctx.ctx)
        self.vocab = llm._model.vocab
        self._piece = ctypes.create_string_buffer(64)  # one token's text, reused
        self._llama_cpp = llama_cpp
        self._internals = internals
        self.inbox: queue.Queue = queue.Queue()
        self.waiting: deque = deque()
        self.slots: list[_Slot | None] = [None] * parallel
        self.steps = 0  # decode calls, for tests and benchmarks
        self.most_live = 0  # the most sequences decoded in one step

    # -- called from any thread ---------------------------------------------------

    def submit(self, request: Any) -> tuple[_Ask, Future]:
        ask, future = _Ask(request), Future()
        self.inbox.put((ask, future))
        return ask, future

    def run_inline(self, fn: Callable[[], Any]) -> Future:
        """Run `fn` on the loop's thread between two steps (scoring, a lone generation)."""
        future: Future = Future()
        self.inbox.put((fn, future))
        return future

    def stop(self) -> None:
        self.inbox.put((STOP, None))

    # -- the loop's thread --------------------------------------------------------

    def run(self) -> None:
        try:
            while self._take_work():
                self._admit()
                if any(self.slots):
                    self._step()
        finally:
            for slot in self.slots:
                if slot is not None:
                    self._finish(slot, error=EngineError("cancelled", "engine closed", retryable=False))
            for _ask, future in self.waiting:
                if future.set_running_or_notify_cancel():
                    future.set_exception(EngineError("cancelled", "engine closed", retryable=False))
            self.batch.close()
            self.ctx.close()

    def _take_work(self) -> bool:
        """Move new work in; block only when nothing is decoding. False once stopped."""
        block = not any(self.slots) and not self.waiting
        while True:
            try:
                item, future = self.inbox.get(block=block)
            except queue.Empty:
                return True
            block = False
            if item is STOP:
                return False
            if isinstance(item, _Ask):
                self.waiting.append((item, future))
            elif future.set_running_or_notify_cancel():
                _settle(future, item)

    def _admit(self) -> None:
        for seq, slot in enumerate(self.slots):
            if slot is not None:
                continue
            while self.waiting:
                ask, future = self.waiting.popleft()
                if ask.cancelled or not future.set_running_or_notify_cancel():
                    continue  # cancelled while it waited
                try:
                    job = self.prepare(ask.request)
                except BaseException as exc:  # a bad grammar, a prompt it cannot tokenise
                    future.set_exception(exc)
                    continue
                if job is None:
                    _settle(future, lambda request=ask.request: self.alone(request))
                    continue
                if len(job.tokens) >= self.n_ctx_seq:
                    future.set_exception(
                        EngineError(
                            "context_overflow",
                            f"prompt of {len(job.tokens)} tokens does not fit n_ctx={self.n_ctx_seq} "
                            f"(per sequence); {CONTEXT_HINT}",
                            retryable=False,
                        )
                    )
                    continue
                self.slots[seq] = _Slot(
                    seq, ask, job, future, self._sampler(job), time.perf_counter(), list(job.tokens)
                )
                break

    def _sampler(self, job: Prepared) -> Any:
        """The chain a lone `create_completion` builds (llama-cpp-python's defaults:
        top-k 40, typical 1.0, top-p, min-p 0.05, temperature, seeded draw)."""
        sampler = self._internals.LlamaSampler()
        if job.grammar is not None:
            sampler.add_grammar(self.llm._model, job.grammar)
        if job.temperature == 0:
            sampler.add_greedy()
        else:
            sampler.add_top_k(40)
            sampler.add_typical(1.0, 1)
            sampler.add_top_p(job.top_p, 1)
            sampler.add_min_p(0.05, 1)
            sampler.add_temp(job.temperature)
            sampler.add_dist(job.seed)
        return sampler

    def _step(self) -> None:
        """One llama_decode: every generating sequence's last token, then prompt chunks."""
        self.batch.reset()
        b = self.batch.batch
        live = [s for s in self.slots if s is not None]
        room = self.n_batch

        def add(slot: _Slot, token: int, logits: bool) -> None:
            i = b.n_tokens
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, slot.pos, 1, logits
            b.seq_id[i][0] = slot.seq
            b.n_tokens = i + 1
            slot.pos += 1
            if logits:
                slot.index = i

        for slot in live:
            slot.index = -1
            if slot.next_token is not None:
                add(slot, slot.next_token, True)
                slot.next_token = None
                room -= 1
        for slot in live:
            if slot.pending and room > 0:
                chunk, slot.pending = slot.pending[:room], slot.pending[room:]
                for j, token in enumerate(chunk):
                    add(slot, token, not slot.pending and j == len(chunk) - 1)
                room -= len(chunk)
        self.most_live = max(self.most_live, sum(1 for s in live if s.index >= 0 or not s.pending))
        code = self._llama_cpp.llama_decode(self.ctx.ctx, b)
        self.steps += 1
        if code != 0:  # no room in the cache (or a failed compute): the step's sequences fail, retryably
            for slot in live:
                self._finish(slot, error=EngineError("decode", f"llama_decode returned {code}", retryable=True))
            return
        for slot in live:
            if slot.index >= 0:
                self._sample(slot)

    def _sample(self, slot: _Slot) -> None:
        if slot.ask.cancelled:
            self._finish(slot)
            return
        token = slot.sampler.sample(self.ctx, slot.index)  # the chain also accepts it (grammar, penalties)
        if self._llama_cpp.llama_vocab_is_eog(self.vocab, token):
            self._finish(slot, "stop")
            return
        slot.out.append(token)
        slot.text_bytes += self._piece_of(token)
        text = self._text(slot)
        cut = min((i for i in (text.find(s) for s in slot.job.stop if s) if i >= 0), default=-1)
        if cut >= 0:
            self._finish(slot, "stop", text[:cut])
        elif len(slot.out) >= slot.job.max_tokens or slot.pos >= self.n_ctx_seq:
            self._finish(slot, "length", text)
        else:
            slot.next_token = token

    def _piece_of(self, token: int) -> bytes:
        text, self._piece = piece(self._llama_cpp, self.vocab, token, self._piece)
        return text

    def _text(self, slot: _Slot) -> str:
        """The answer so far, from its pieces kept as they came: detokenizing the whole answer
        at every step cost more the longer it grew (Python-bound work on a GPU)."""
        raw = bytes(slot.text_bytes)
        if slot.out and slot.out[0] == self.llm.token_bos() and raw[:1] == b" ":
            raw = raw[1:]  # as detokenize does after a leading BOS
        return raw.decode("utf-8", "ignore")

    def _finish(self, slot: _Slot, reason: str | None = None, text: str | None = None, error: Exception | None = None):
        self.slots[slot.seq] = None
        self._llama_cpp.llama_memory_seq_rm(self.memory, slot.seq, -1, -1)
        slot.sampler.close()
        if slot.ask.cancelled:
            slot.future.set_exception(EngineError("cancelled", "generation cancelled", retryable=False))
            return
        if error is not None:
            slot.future.set_exception(error)
            return
        if text is None:
            text = self._text(slot)
        slot.future.set_result(
            Completion(
                text=slot.job.text_prefix + text,
                finish_reason=reason,
                prompt_tokens=len(slot.job.tokens),
                completion_tokens=len(slot.out),
                latency_s=time.perf_counter() - slot.started,
                parallel=self.parallel,
            )
        )


class GreedyAnswers:
    """Greedy answers by request, seed aside (greedy decoding draws nothing): decoding the same
    greedy request alone again gives the same answer, so a repetition is answered from here
    instead of being decoded again. Used from the instance's thread only."""

    def __init__(self, size: int = 4096):  # a few MB of answers at most
        self.size = size
        self.known: dict[str, Completion] = {}

    def answer(self, request: Any, decode: Callable[[Any], Completion]) -> Completion:
        if request.temperature != 0:
            return decode(request)
        key = json.dumps({**dataclasses.asdict(request), "seed": None}, sort_keys=True, default=str)
        started = time.perf_counter()
        known = self.known.pop(key, None)
        if known is None:
            known = decode(request)
        self.known[key] = known  # the latest at the end: the oldest is dropped first
        while len(self.known) > self.size:
            del self.known[next(iter(self.known))]
        return dataclasses.replace(known, latency_s=time.perf_counter() - started)


def _settle(future: Future, fn: Callable[[], Any]) -> None:
    try:
        future.set_result(fn())
    except BaseException as exc:  # handed to the caller, as an executor would
        future.set_exception(exc)


async def wait(future: Future, ask: _Ask | None = None) -> Any:
    """Await a loop future; cancelling the awaiting task stops its sequence at the next step."""
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        future.cancel()
        if ask is not None:
            ask.cancelled = True
        raise
