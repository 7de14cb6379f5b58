"""The `llama` engine: llama.cpp in-process, through llama-cpp-python.

A `Llama` object is not thread-safe, so each model instance lives on its own
single-thread executor and every call to it runs there; `concurrency` is the
number of instances. Generation uses chat mode when the GGUF carries a chat
template and completion mode otherwise (the bundled Gemma 3 270M is a base
model without one). `score` evaluates a prompt once and every continuation
on top of the cached prompt, reading only the logits it needs.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from workbench.engines.base import (
    Completion,
    EngineError,
    GenerationRequest,
    completion_from_choice,
)
from workbench.engines.llama_batch import CONTEXT_HINT, BatchLoop, GreedyAnswers, Prepared, wait
from workbench.engines.llama_logprobs import InstanceLogprobs
from workbench.engines.prompting import COMPLETION_STOPS, render_completion_prompt
from workbench.engines.specs import ModelSpec
from workbench.host.cores import usable_cores

DEFAULT_N_CTX = 2048


class _Instance(InstanceLogprobs):
    """One Llama object and the one thread allowed to touch it."""

    def __init__(self, file_path: str, options: dict[str, Any], index: int):
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"llama-{index}")
        self.file_path = file_path
        self.options = options
        self.llm = None
        self.cancel = threading.Event()
        self.chat_template: str | None = None
        self.scorer = None  # a scoring context of its own, made at the first label-probability request
        self.parallel = int(options.get("parallel", 1))
        self.batch = None  # the continuous-batching loop, when parallel > 1 (it owns this thread)
        self._formatter = None  # the chat template for the batch, compiled on first use
        self._greedy = GreedyAnswers()

    def load(self) -> None:
        import llama_cpp

        from workbench.engines.llama_cpu import plain_layout_on_amx
        from workbench.engines.llama_pieces import read_long_pieces

        read_long_pieces()  # llama-cpp-python loses the text of tokens longer than 32 bytes
        plain_layout_on_amx()  # llama.cpp's AMX kernels crash on some machines (llama_cpu.py)

        opts = self.options
        threads = opts.get("threads") or max(1, usable_cores() // max(1, opts.get("concurrency", 1)))
        from workbench.engines.llama_scoring import quiet_llama

        try:
            with quiet_llama():
                self.llm = llama_cpp.Llama(
                    model_path=self.file_path,
                    n_ctx=opts.get("n_ctx", DEFAULT_N_CTX),
                    n_gpu_layers=opts.get("n_gpu_layers", 0),
                    n_threads=threads,
                    n_threads_batch=threads,
                    n_batch=opts.get("n_batch", 512),
                    seed=opts.get("seed", 0) if opts.get("seed") is not None else 0,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise EngineError("load", f"cannot load {self.file_path}: {exc}", retryable=False) from None
        self.chat_template = self.llm.metadata.get("tokenizer.chat_template")
        if self.parallel > 1:
            self.batch = BatchLoop(
                self.llm,
                self.parallel,
                opts.get("n_ctx", DEFAULT_N_CTX),
                opts.get("n_batch", 512),
                threads,
                prepare=self.prepare,
                alone=self.generate,
                gpu=opts.get("n_gpu_layers", 0) != 0 and bool(llama_cpp.llama_supports_gpu_offload()),
            )

    # -- generation ---------------------------------------------------------

    @property
    def n_ctx(self) -> int:
        """The context asked for: llama.cpp may allocate more (it rounds up small ones), but
        llama-cpp-python's own buffers hold only this many tokens."""
        return int(self.options.get("n_ctx", DEFAULT_N_CTX))

    def use_chat(self) -> bool:
        mode = self.options.get("mode", "auto")
        return mode == "chat" or (mode == "auto" and bool(self.chat_template))

    def generate(self, request: GenerationRequest) -> Completion:
        """One request decoded alone; a greedy one asked before is answered from memory."""
        return self._greedy.answer(request, self._generate)

    def _generate(self, request: GenerationRequest) -> Completion:
        import llama_cpp

        assert self.llm is not None
        self.cancel.clear()
        started = time.perf_counter()
        self._forget_cache()
        stop_check = llama_cpp.StoppingCriteriaList([lambda _ids, _logits: self.cancel.is_set()])
        common: dict[str, Any] = dict(
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            seed=request.seed,
            stop=request.stop or None,
            stopping_criteria=stop_check,
        )
        if request.top_p is not None:
            common["top_p"] = request.top_p
        if request.grammar:
            common["grammar"] = llama_cpp.LlamaGrammar.from_string(request.grammar, verbose=False)
        try:
            if self.use_chat():
                if request.json_schema is not None and "grammar" not in common:
                    common["response_format"] = {"type": "json_object", "schema": request.json_schema}
                # create_chat_completion takes no stopping criteria: a cancel waits for the reply's end.
                chat_args = {k: v for k, v in common.items() if k != "stopping_criteria"}
                reply = self.llm.create_chat_completion(messages=request.messages, **chat_args)
                choice = reply["choices"][0]
                text = choice["message"]["content"] or ""
                prompt_text = None
            else:
                if request.json_schema is not None and "grammar" not in common:
                    common["grammar"] = llama_cpp.LlamaGrammar.from_json_schema(
                        json.dumps(request.json_schema), verbose=False
                    )
                prompt_text = render_completion_prompt(request.messages) + (request.prefill or "")
                n_prompt = len(self.llm.tokenize(prompt_text.encode("utf-8"), add_bos=True, special=True))
                if n_prompt >= self.n_ctx:  # said plainly, before llama-cpp-python fails obscurely
                    raise ValueError(f"prompt of {n_prompt} tokens does not fit n_ctx={self.n_ctx}")
                # A base model happily writes the next "Question:" itself; the
                # answer ends where the rendered conversation would go on.
                common["stop"] = list(request.stop) + list(COMPLETION_STOPS)
                reply = self.llm.create_completion(prompt=prompt_text, **common)
                choice = reply["choices"][0]
                text = (request.prefill or "").lstrip() + choice["text"]
        except ValueError as exc:
            # llama-cpp-python raises ValueError for a prompt longer than n_ctx.
            raise EngineError(
                "context_overflow",
                f"the prompt does not fit n_ctx={self.n_ctx}: {exc}; {CONTEXT_HINT}",
                retryable=False,
            ) from None
        if self.cancel.is_set():
            raise EngineError("cancelled", "generation cancelled", retryable=False)
        usage = reply.get("usage", {})
        logprobs = None
        if request.logprobs is not None and prompt_text is not None:
            logprobs = self.token_logprobs(prompt_text, text, request.logprobs)
        return completion_from_choice(text, choice, usage, time.perf_counter() - started, logprobs)

    def prepare(self, request: GenerationRequest):
        """The request as the batch decodes it: the prompt tokens, stops and grammar a lone
        `generate` would use; None for a request the batch leaves to `generate`
        (token log-probs need the lone context's logits)."""
        import llama_cpp

        if request.logprobs is not None or (self.use_chat() and not self.chat_template):
            return None  # log-probs, or chat without a template of the model's (llama-cpp-python's default format)
        if request.temperature == 0:
            # Greedy: decoded alone, so the answer is the one parallel=1 gives whatever the batch
            # holds (batched kernels round by layout, which can tip an argmax: bench/bench_greedy.py).
            return None
        grammar = None
        if request.grammar:
            grammar = llama_cpp.LlamaGrammar.from_string(request.grammar, verbose=False)
        elif request.json_schema is not None:
            grammar = llama_cpp.LlamaGrammar.from_json_schema(json.dumps(request.json_schema), verbose=False)
        assert self.llm is not None
        if self.use_chat():
            formatted = self._chat_formatter()(messages=request.messages)
            prompt, add_bos = formatted.prompt, not formatted.added_special
            extra = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop] if formatted.stop else []
            stop, prefix = list(request.stop) + extra, ""
        else:
            prompt = render_completion_prompt(request.messages) + (request.prefill or "")
            add_bos, stop = True, list(request.stop) + list(COMPLETION_STOPS)
            prefix = (request.prefill or "").lstrip()
        return Prepared(
            tokens=self.llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True),
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            top_p=request.top_p if request.top_p is not None else 0.95,  # llama-cpp-python's default
            seed=request.seed if request.seed is not None else 0,
            stop=stop,
            grammar=grammar,
            text_prefix=prefix,
        )

    def _chat_formatter(self):
        """The GGUF's chat template, compiled once (the lone engine's handler does the same)."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            model = self.llm._model
            eos, bos = model.token_eos(), model.token_bos()
            self._formatter = Jinja2ChatFormatter(
                template=self.chat_template,
                eos_token=model.token_get_text(eos) if eos != -1 else "",
                bos_token=model.token_get_text(bos) if bos != -1 else "",
                stop_token_ids=[eos],
            )
        return self._formatter

    def _forget_cache(self) -> None:
        """Start from an empty context: a fresh session per request.

        Reusing a cached prompt prefix changes the logits in the last bits
        (batched vs incremental evaluation), which is enough to change what a
        seeded sampler draws. An audit needs the same seed to give the same
        answer, so each generation evaluates its whole prompt.
        """
        assert self.llm is not None
        self.llm.reset()
        self.llm._ctx.kv_cache_seq_rm(-1, 0, -1)

    def close(self) -> None:
        self.cancel.set()
        if self.batch is not None:
            self.batch.stop()  # its thread is this instance's: the loop ends, then the rest runs
            self.batch = None
        if self.scorer is not None:
            self.executor.submit(self.scorer.close).result()
            self.scorer = None
        llm, self.llm = self.llm, None
        if llm is not None:
            self.executor.submit(llm.close).result()
        self.executor.shutdown(wait=True)


# `parallel` when a spec offloads layers to a GPU and leaves it out, from bench/bench_gpu.py
# on an H200 (docs/engines.md, "Many sequences in one batch"): 16 sequences gave 1.4x the tokens/s of
# one on a 7B model (64 gave 2.1x), and their cache at the default n_ctx (16 x 2048 tokens,
# 16 GB for a 7B model without grouped-query attention) still fits beside the weights on a
# 24 GB card. On a CPU the default stays 1, reproducible to the bit.
GPU_DEFAULT_PARALLEL = 16


def default_parallel(options: dict[str, Any]) -> int:
    if options.get("n_gpu_layers", 0) == 0:
        return 1
    import llama_cpp

    return GPU_DEFAULT_PARALLEL if llama_cpp.llama_supports_gpu_offload() else 1


class LlamaEngine:
    def __init__(self, spec: ModelSpec, identity: str, file_path: str | None):
        """The registry's factory: `identity` and `file_path` as `llama_model.locate` found them."""
        if file_path is None:
            raise EngineError("load", f"model spec {spec}: no GGUF file located", retryable=False)
        options = dict(spec.options)
        if "parallel" not in options:
            options = {**options, "parallel": default_parallel(options)}
        self.file_path = file_path
        self.options = options
        self.identity = identity
        self.instances = int(options.get("concurrency", 1))
        self.parallel = int(options.get("parallel", 1))
        # What the runner keeps in flight: every sequence of every instance.
        self.concurrency = self.instances * self.parallel
        self._instances = [_Instance(file_path, options, i) for i in range(self.instances)]
        self._free: asyncio.Queue[_Instance] | None = None
        self._turn = 0
        self._started = False

    @property
    def chat_mode(self) -> bool:
        return self._instances[0].use_chat()

    async def start(self) -> None:
        if self._started:
            return
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(i.executor, i.load) for i in self._instances))
        self._free = asyncio.Queue()
        for instance in self._instances:
            if instance.batch is not None:
                instance.executor.submit(instance.batch.run)  # the loop owns the thread from now on
            self._free.put_nowait(instance)
        self._started = True

    def _next(self) -> _Instance:
        self._turn = (self._turn + 1) % len(self._instances)
        return self._instances[self._turn]

    async def _call(self, method: str, *args: Any) -> Any:
        await self.start()
        if self.parallel > 1:
            # Scoring runs on the loop's thread between two decode steps.
            instance = self._next()
            assert instance.batch is not None
            return await wait(instance.batch.run_inline(lambda: getattr(instance, method)(*args)))
        assert self._free is not None
        free = self._free
        loop = asyncio.get_running_loop()
        instance = await free.get()
        future = instance.executor.submit(getattr(instance, method), *args)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            # Ask the generation loop to stop at its next token.
            instance.cancel.set()
            raise
        finally:
            if future.done():
                free.put_nowait(instance)
            else:
                # Hand the instance back only once its thread is free again.
                future.add_done_callback(lambda _f: loop.call_soon_threadsafe(free.put_nowait, instance))

    async def generate(self, request: GenerationRequest) -> Completion:
        if self.parallel > 1:
            await self.start()
            batch = self._next().batch
            assert batch is not None
            ask, future = batch.submit(request)
            return await wait(future, ask)
        return await self._call("generate", request)

    async def score(self, prompt: str, continuations: list[str]) -> list[float]:
        return await self._call("score", prompt, continuations)

    async def score_labels(self, prefix: str, suffix: str, continuations: list[str], method: str) -> Completion:
        return await self._call("score_labels", prefix, suffix, continuations, method)

    async def aclose(self) -> None:
        for instance in self._instances:
            await asyncio.get_running_loop().run_in_executor(None, instance.close)
        self._started = False
