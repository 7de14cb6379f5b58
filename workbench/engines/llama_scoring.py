"""Exact label log-probabilities with llama.cpp, computed once per shared part.

A label-probability audit asks, for many prompts that share a long prefix
(instruction, label set, few-shot examples), the log-probability of every label's
full token sequence. The ways to get it, all on one llama.cpp model:

- `naive`: evaluate prompt + label from an empty cache, once per label (what a
  harness that re-sends the whole text per label does). The reference.
- `first_token`: the log-probability of each label's first token only, from one
  evaluation of the prompt — the approximation that reads one next-token
  distribution per prompt (as clients limited to top-k log-probs do).
- `exact`: the shared prefix is evaluated once and stays in the KV cache; each
  prompt's own tokens are evaluated once on top of it, and each label's tokens
  after the first on top of that (the first label token is predicted by the
  prompt's last position). Logits are requested only at the positions that predict
  a label token, so the vocabulary is never computed at other prompt positions.

Numbers: on a 4-bit GGUF llama.cpp's CPU kernels quantize activations to 8 bits and are
not batch-invariant (repacked 4-bit matrix kernels and the batch size change the
rounding), so the same text evaluated in one batch or in two differs slightly, and both
differ from the weights' own numbers by tenths of a nat. By default the scorer therefore
loads a dequantized copy of the weights (`weights`, F32 or F16, see llama_precision) and
batches normally: within 0.01 nats of an F32 evaluation whatever the layout. On the
native weights, `invariant=True` takes a model without weight repacking and one token per
micro-batch; then `exact` equals `naive` bit for bit.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax

# Labels decoded together on a copy, a sequence each; a task with more is scored label by label.
LABEL_SEQUENCES = 32


@dataclass
class Item:
    """One prompt to score: its text after the shared prefix, and the label continuations."""

    suffix: str
    continuations: list[str]


def _logprob(row: np.ndarray, token: int) -> float:
    return float(log_softmax(row)[token])


class Scorer:
    """Scoring on a llama-cpp-python model, in a context of its own (so generation and
    scoring never disturb each other's cache). Used from one thread only."""

    def __init__(
        self,
        llm,
        n_ctx: int,
        n_batch: int = 512,
        invariant: bool = False,
        weights: str | None = None,
        precision: str = "native",
        n_gpu_layers: int = 0,
    ):
        """`weights`: a dequantized copy of the model's GGUF at `precision` (f32 or f16) to
        score on; None scores on the native weights, batch-invariant with `invariant`."""
        import llama_cpp
        from llama_cpp import _internals

        self.llm = llm
        self.llama_cpp = llama_cpp
        self.precision = precision if weights else "native"
        model = llm._model
        self._own_model = None
        if invariant or weights:
            # Invariant: the weights in plain layout, as repacked kernels round differently
            # depending on how many rows a batch has. A copy: F16/F32 weights, kept in plain
            # layout too, so no CPU's repacking can bring batch-dependent rounding back.
            model_params = llama_cpp.llama_model_default_params()
            model_params.use_extra_bufts = False
            model_params.n_gpu_layers = n_gpu_layers
            with quiet_llama():
                self._own_model = model = _internals.LlamaModel(
                    path_model=str(weights or llm.model_path), params=model_params, verbose=False
                )
        params = llama_cpp.llama_context_params.from_buffer_copy(llm.context_params)  # same threads, rope
        params.n_ctx = n_ctx
        params.n_batch = n_batch
        params.n_ubatch = 1 if invariant and not weights else min(n_batch, params.n_ubatch)
        if self.precision == "f32":  # keys and values in float32 too: the activations stay F32 throughout
            params.type_k = params.type_v = llama_cpp.GGML_TYPE_F32
        # On a copy, a prompt's labels are decoded in one batch, a sequence each (`_score_at_once`).
        # (llama.cpp wants a batch to hold a token of every sequence: a smaller one scores label by label.)
        self.label_seqs = LABEL_SEQUENCES if weights and n_batch > LABEL_SEQUENCES else 0
        if self.label_seqs:
            params.n_seq_max = 1 + self.label_seqs
            params.kv_unified = True  # one pool of cells: a prompt's cells serve every label's sequence
        with quiet_llama():
            self.ctx = _internals.LlamaContext(model=model, params=params, verbose=False)
        self.n_ctx, self.n_batch = n_ctx, n_batch
        self.n_vocab = llm.n_vocab()
        self.cached: list[int] = []  # tokens whose keys and values are in the cache now
        self._prefix: tuple[str | None, list[int]] = (None, [])
        self.batch = _internals.LlamaBatch(n_tokens=n_batch, embd=0, n_seq_max=1 + self.label_seqs, verbose=False)

    def close(self) -> None:
        self.batch.close()
        self.ctx.close()
        if self._own_model is not None:
            self._own_model.close()

    # -- tokens ---------------------------------------------------------------

    def tokenize(self, text: str, bos: bool) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=True)

    def split(self, head: list[int], head_text: str, tail_text: str) -> list[int]:
        """Tokens of `tail_text` as the model sees them after `head_text`: tokenised
        together and split where the head's tokens end; when a token straddles the
        boundary, the tail is tokenised on its own (the same rule for every method)."""
        full = self.tokenize(head_text + tail_text, bos=True)
        if full[: len(head)] == head:
            return full[len(head) :]
        return self.tokenize(tail_text, bos=False)

    # -- decoding ----------------------------------------------------------------

    def _row(self, index: int) -> np.ndarray:
        pointer = self.llama_cpp.llama_get_logits_ith(self.ctx.ctx, index)
        return np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

    def _extend(self, tokens: list[int], want: set[int]) -> dict[int, np.ndarray]:
        """Decode `tokens` after the cached ones; the logits rows at the
        positions in `want` (indices into `tokens`), copied out."""
        rows: dict[int, np.ndarray] = {}
        for start in range(0, len(tokens), self.n_batch):
            chunk = tokens[start : start + self.n_batch]
            b = self.batch.batch
            base = len(self.cached)
            for i, token in enumerate(chunk):
                b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, base + i, 1, (start + i) in want
                b.seq_id[i][0] = 0
            b.n_tokens = len(chunk)
            self.ctx.decode(self.batch)
            self.cached.extend(chunk)
            for i in range(len(chunk)):
                if start + i in want:
                    rows[start + i] = self._row(i).copy()
        return rows

    def _truncate(self, length: int) -> None:
        """Forget cached tokens after the first `length`."""
        if length < len(self.cached):
            self.llama_cpp.llama_memory_seq_rm(self.ctx.memory, 0, length, -1)
            del self.cached[length:]

    def _reuse(self, tokens: list[int]) -> None:
        """Keep the longest cached prefix of `tokens` (at least one token is left to decode)."""
        keep = 0
        limit = min(len(self.cached), len(tokens) - 1)
        while keep < limit and self.cached[keep] == tokens[keep]:
            keep += 1
        self._truncate(keep)

    def _check(self, n_tokens: int) -> None:
        if n_tokens > self.n_ctx:
            from workbench.engines.base import EngineError

            raise EngineError(
                "context_overflow",
                f"{n_tokens} tokens exceed n_ctx={self.n_ctx}; raise n_ctx in the "
                "model spec, e.g. llama:default,n_ctx=8192",
                retryable=False,
            )

    def score(self, prefix: str, items: list[Item], first_token_only: bool = False) -> list[list[float]]:
        """Log-probability of every continuation of every item (sum over its tokens;
        with `first_token_only`, of its first token: the approximation)."""
        from workbench.engines.base import EngineError

        if self._prefix[0] != prefix:  # one study's requests share it: tokenise it once
            self._prefix = (prefix, self.tokenize(prefix, bos=True))
        prefix_tokens = self._prefix[1]
        results = []
        for item in items:
            suffix = self.split(prefix_tokens, prefix, item.suffix)
            if not suffix:
                raise EngineError(
                    "bad_request", "a prompt must add at least one token to the shared prefix", retryable=False
                )
            prompt = prefix_tokens + suffix
            labels = [self.split(prompt, prefix + item.suffix, c) for c in item.continuations]
            if any(not label for label in labels):
                raise EngineError("bad_request", "an empty label cannot be scored", retryable=False)
            self._check(len(prompt) + max(len(label) for label in labels))
            self._reuse(prompt)  # the prefix, and the start this prompt shares with the last one, stay cached
            at_once = None if first_token_only else self._score_at_once(prompt, labels)
            if at_once is not None:
                results.append(at_once)
                continue
            new = prompt[len(self.cached) :]
            # The first label's tokens ride along with the prompt's own: they sit right
            # after it, exactly where a lone evaluation of prompt + label puts them.
            ride = [] if first_token_only else labels[0][:-1]
            wanted = {len(new) - 1} | {len(new) + i for i in range(len(ride))}
            rows = self._extend(new + ride, wanted)
            first = log_softmax(rows[len(new) - 1])
            # Rows after each label start already evaluated: labels that begin alike
            # (" 1", " 2" are " " + digit) share them instead of evaluating them again.
            after = {tuple(ride[: i + 1]): rows[len(new) + i] for i in range(len(ride))}
            scores = []
            for label in labels:
                total = float(first[label[0]])
                if not first_token_only and len(label) > 1:
                    body = label[:-1]
                    keep = 0
                    while keep < len(body) and tuple(body[: keep + 1]) in after:
                        keep += 1
                    if keep < len(body):
                        # Right after the prompt (and the start it shares), as a lone evaluation
                        # places it. (All labels in one batch, a sequence each, measured no
                        # faster here and moves numbers by up to 0.04 nats even with invariant
                        # kernels.)
                        tail, common = self.cached[len(prompt) :], 0
                        while common < min(keep, len(tail)) and tail[common] == body[common]:
                            common += 1
                        self._truncate(len(prompt) + common)
                        if common < keep:  # the shared start is evaluated, but not cached any more
                            self._extend(body[common:keep], set())
                        extra = self._extend(body[keep:], set(range(len(body) - keep)))
                        for i in range(len(body) - keep):
                            after[tuple(body[: keep + i + 1])] = extra[i]
                    total += sum(_logprob(after[tuple(body[: i + 1])], token) for i, token in enumerate(label[1:]))
                scores.append(total)
            results.append(scores)
            self._truncate(len(prompt))
        return results

    def _score_at_once(self, prompt: list[int], labels: list[list[int]]) -> list[float] | None:
        """On a dequantized copy: the prompt's uncached tokens and every label's tokens but its
        last in ONE decode, label j in sequence j + 1 over the prompt's cells (tagged with every
        sequence). A copy's kernels round the same whatever the layout (to ~0.01 nats, measured),
        and one call reads the weights once instead of once per label. None when it does not
        apply (native weights, too many labels, more tokens than a batch or the cache holds)."""
        new = prompt[len(self.cached) :]
        tails = [label[:-1] for label in labels]
        size = len(new) + sum(len(t) for t in tails)
        if not self.label_seqs or len(labels) > self.label_seqs or size > self.n_batch:
            return None
        if len(prompt) + sum(len(t) for t in tails) > self.n_ctx:
            return None
        memory = self.ctx.memory
        for seq in range(1, len(labels) + 1):  # the cached prompt, seen by every label's sequence
            self.llama_cpp.llama_memory_seq_cp(memory, 0, seq, 0, -1)
        b = self.batch.batch
        b.n_tokens = 0

        def add(token: int, pos: int, seqs: range | list[int], logits: bool) -> None:
            i = b.n_tokens
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, len(seqs), logits
            for k, seq in enumerate(seqs):
                b.seq_id[i][k] = seq
            b.n_tokens = i + 1

        everyone = range(len(labels) + 1)
        for i, token in enumerate(new):
            add(token, len(self.cached) + i, everyone, i == len(new) - 1)
        for j, tail in enumerate(tails):
            for k, token in enumerate(tail):
                add(token, len(prompt) + k, [j + 1], True)
        try:
            self.ctx.decode(self.batch)
        finally:
            for seq in range(1, len(labels) + 1):
                self.llama_cpp.llama_memory_seq_rm(memory, seq, -1, -1)
        self.cached.extend(new)
        first = log_softmax(self._row(len(new) - 1))
        scores, index = [], len(new)
        for label in labels:
            total = float(first[label[0]])
            for token in label[1:]:
                total += _logprob(self._row(index), token)
                index += 1
            scores.append(total)
        return scores

    def score_prompt_first_token(self, prompt: str, continuations: list[str]) -> list[float]:
        """The approximation as a client without prefix reuse gets it: the whole prompt
        evaluated once, the first token of each label read from the last position."""
        tokens = self.tokenize(prompt, bos=True)
        labels = [self.split(tokens, prompt, c) for c in continuations]
        self._check(len(tokens))
        self._truncate(0)
        row = log_softmax(self._extend(tokens, {len(tokens) - 1})[len(tokens) - 1])
        return [float(row[label[0]]) for label in labels]

    def score_naive(self, prompt: str, continuations: list[str]) -> list[float]:
        """The reference: prompt + label evaluated from an empty cache, once per label."""
        prompt_tokens = self.tokenize(prompt, bos=True)
        out = []
        for continuation in continuations:
            label = self.split(prompt_tokens, prompt, continuation)
            tokens = prompt_tokens + label
            self._check(len(tokens))
            self._truncate(0)
            want = set(range(len(prompt_tokens) - 1, len(tokens) - 1))
            rows = self._extend(tokens, want)
            out.append(sum(_logprob(rows[len(prompt_tokens) - 1 + i], token) for i, token in enumerate(label)))
        self._truncate(0)
        return out


@contextmanager
def quiet_llama():
    """llama.cpp prints some notices at 'no level', which verbose=False lets through;
    silence its log callback while a context is made (terminal output stays ours), then
    leave only its errors on stderr (`errors_only_logs`)."""
    import ctypes

    import llama_cpp

    silent = llama_cpp.llama_log_callback(lambda level, text, data: None)
    llama_cpp.llama_log_set(silent, ctypes.c_void_p(0))
    try:
        yield
    finally:
        errors_only_logs()


GGML_LOG_LEVEL_ERROR, GGML_LOG_LEVEL_CONT = 4, 5  # ggml.h: NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5
_errors_only = None  # the installed callback (ctypes must keep it alive as long as llama.cpp may call it)
_last_level = 0


def errors_only_logs() -> None:
    """Route llama.cpp's log to stderr for errors only. llama-cpp-python's own callback reads
    the levels of an older ggml (there WARN was 2 and ERROR 3), so with verbose=False every
    warning of today's llama.cpp (a cache layout note, a slot not found) printed over the
    progress line; this one reads the levels as ggml.h numbers them now."""
    import ctypes
    import sys

    import llama_cpp

    global _errors_only
    if _errors_only is None:

        def only_errors(level: int, text: bytes, data) -> None:
            global _last_level
            if level != GGML_LOG_LEVEL_CONT:
                _last_level = level
            if _last_level == GGML_LOG_LEVEL_ERROR:
                print(text.decode("utf-8", errors="replace"), end="", flush=True, file=sys.stderr)

        _errors_only = llama_cpp.llama_log_callback(only_errors)
    llama_cpp.llama_log_set(_errors_only, ctypes.c_void_p(0))
