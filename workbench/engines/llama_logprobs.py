"""The scoring half of a llama instance: log-probabilities of continuations (label
scoring, on a scoring context of its own) and of an answer's tokens, computed on the
instance's one thread. `_Instance` in llama_local.py holds the Llama object they read."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from workbench.engines.base import Completion, EngineError
from workbench.engines.llama_batch import CONTEXT_HINT


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """The log-distribution of one logits row, in float64 (scipy, loaded on the first score)."""
    from scipy.special import log_softmax as scipy_log_softmax

    return scipy_log_softmax(logits.astype(np.float64))


class InstanceLogprobs:
    """Mixed into `_Instance`: needs its `llm`, `options`, `file_path`, `n_ctx` and `scorer`."""

    def _split_tokens(self, prompt: str, continuation: str) -> tuple[list[int], list[int]]:
        """Prompt and continuation tokens, split where the prompt's own tokens end.

        Tokenising prompt+continuation together gives the tokens the model would
        really see; when a token straddles the boundary we fall back to separate
        tokenisation of the continuation.
        """
        assert self.llm is not None
        prompt_tokens = self.llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        full = self.llm.tokenize((prompt + continuation).encode("utf-8"), add_bos=True, special=True)
        if full[: len(prompt_tokens)] == prompt_tokens:
            return prompt_tokens, full[len(prompt_tokens) :]
        return prompt_tokens, self.llm.tokenize(continuation.encode("utf-8"), add_bos=False, special=True)

    def _eval_prompt(self, prompt_tokens: list[int]) -> np.ndarray:
        """Evaluate the prompt once (reusing whatever prefix is already cached) and
        return the log-distribution of the next token."""
        import llama_cpp

        llm = self.llm
        assert llm is not None
        if len(prompt_tokens) >= llm.n_ctx():
            raise EngineError(
                "context_overflow",
                f"prompt of {len(prompt_tokens)} tokens exceeds n_ctx={llm.n_ctx()}; {CONTEXT_HINT}",
                retryable=False,
            )
        cached = 0
        limit = min(llm.n_tokens, len(prompt_tokens) - 1)  # always re-decode the last prompt token
        while cached < limit and llm.input_ids[cached] == prompt_tokens[cached]:
            cached += 1
        llm.n_tokens = cached
        llm.eval(prompt_tokens[cached:])
        row = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
        return log_softmax(row)

    def _continuation_logprob_rows(self, n_prompt: int, tokens: list[int]) -> list[np.ndarray]:
        """Decode `tokens` after the cached prompt; the log-distribution after each one."""
        import llama_cpp
        from llama_cpp import _internals

        llm = self.llm
        assert llm is not None
        if not tokens:
            return []
        if n_prompt + len(tokens) > llm.n_ctx():
            raise EngineError(
                "context_overflow", f"prompt + continuation exceed n_ctx; {CONTEXT_HINT}", retryable=False
            )
        llm._ctx.kv_cache_seq_rm(0, n_prompt, -1)
        llm.n_tokens = n_prompt
        rows: list[np.ndarray] = []
        step = llm.n_batch
        for start in range(0, len(tokens), step):
            chunk = tokens[start : start + step]
            batch = _internals.LlamaBatch(n_tokens=len(chunk), embd=0, n_seq_max=1, verbose=False)
            batch.set_batch(chunk, n_past=n_prompt + start, logits_all=True)
            llm._ctx.decode(batch)
            for i in range(len(chunk)):
                logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i), shape=(llm.n_vocab(),))
                rows.append(log_softmax(logits))
            batch.close()
        # The cache now holds continuation tokens past the prompt; forget them so
        # llama-cpp-python's own prefix matching never trusts stale entries.
        llm._ctx.kv_cache_seq_rm(0, n_prompt, -1)
        llm.n_tokens = n_prompt
        return rows

    def _scorer(self):
        """The scoring context (its own KV cache), made at the first scoring request: on the
        dequantized copy of the weights the precision names (made once per GGUF, then cached)."""
        from pathlib import Path

        from workbench.engines.gguf_files import file_sha256
        from workbench.engines.llama_precision import chosen_precision, dequantized_copy
        from workbench.engines.llama_scoring import Scorer

        assert self.llm is not None
        if self.scorer is None:
            precision = chosen_precision(self.options, self.file_path)
            weights = None
            if precision != "native":
                try:
                    digest = file_sha256(Path(self.file_path))  # cached: the copy is named by it
                    weights = str(dequantized_copy(self.file_path, digest, precision))
                except OSError as exc:  # the model's copy cannot be had: no request of it can be scored
                    raise EngineError("load", str(exc), retryable=False, stops_model=True) from None
            try:
                self.scorer = Scorer(
                    self.llm,
                    self.n_ctx,
                    self.options.get("n_batch", 512),
                    invariant=bool(self.options.get("invariant", True)),
                    weights=weights,
                    precision=precision,
                    n_gpu_layers=self.options.get("n_gpu_layers", 0),
                )
            except ValueError as exc:  # llama.cpp's "Failed to load model": say which file
                where = f"the {precision} copy {weights}" if weights else self.file_path
                raise EngineError(
                    "load", f"cannot score on {where}: {exc}", retryable=False, stops_model=True
                ) from None
        return self.scorer

    def score(self, prompt: str, continuations: list[str]) -> list[float]:
        from workbench.engines.llama_scoring import Item

        return self._scorer().score("", [Item(prompt, continuations)])[0]

    def score_labels(self, prefix: str, suffix: str, continuations: list[str], method: str) -> Completion:
        from workbench.engines.base import scores_completion
        from workbench.engines.llama_scoring import Item

        started = time.perf_counter()
        scorer = self._scorer()
        if method == "naive":
            values = scorer.score_naive(prefix + suffix, continuations)
        else:
            values = scorer.score(prefix, [Item(suffix, continuations)], first_token_only=method == "first_token")[0]
        return scores_completion(values, method, time.perf_counter() - started)

    def token_logprobs(self, prompt: str, text: str, top_n: int) -> list[dict[str, Any]]:
        """Log-prob of each generated token and the top-N alternatives, computed
        exactly by one batched pass over the completion after the cached prompt."""
        assert self.llm is not None
        p_tokens, c_tokens = self._split_tokens(prompt, text)
        if not c_tokens:
            return []
        rows = [self._eval_prompt(p_tokens)] + self._continuation_logprob_rows(len(p_tokens), c_tokens[:-1])
        out = []
        for row, token in zip(rows, c_tokens):
            top = np.argpartition(row, -top_n)[-top_n:] if top_n > 0 else []
            out.append(
                {
                    "token": self._piece(token),
                    "logprob": float(row[token]),
                    "top_logprobs": {self._piece(int(t)): float(row[t]) for t in sorted(top, key=lambda t: -row[t])},
                }
            )
        return out

    def _piece(self, token: int) -> str:
        assert self.llm is not None
        return self.llm.detokenize([token]).decode("utf-8", "replace")
