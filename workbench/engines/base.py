"""The one protocol every engine speaks, and the errors it raises.

An engine turns a `GenerationRequest` into a `Completion` (`generate`) and gives
the exact log-probability of continuations of a prompt (`score`). Retrying is the
runner's business: an engine raises `EngineError` saying whether trying again
could help and, when the server said so, how long to wait first.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from workbench.errors import EngineError  # noqa: F401  (raised here; the family is workbench.errors)


@dataclass(frozen=True)
class GenerationRequest:
    messages: list[dict[str, str]]
    temperature: float = 0.7
    top_p: float | None = None
    max_tokens: int = 256
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    logprobs: int | None = None  # top-N log-probs per generated token, when asked
    json_schema: dict[str, Any] | None = None
    grammar: str | None = None  # GBNF, llama only
    # Text the answer starts with, in completion mode (e.g. "1." to get a
    # numbered list out of a base model); it is part of the returned text.
    # Chat APIs have no portable way to prefill, so there it is ignored.
    prefill: str | None = None

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> GenerationRequest:
        params = payload.get("params", {})
        return cls(
            messages=payload["messages"],
            temperature=params.get("temperature", 0.7),
            top_p=params.get("top_p"),
            max_tokens=params.get("max_tokens", 256),
            seed=params.get("seed"),
            stop=list(params.get("stop", [])),
            logprobs=params.get("logprobs"),
            json_schema=params.get("json_schema"),
            grammar=params.get("grammar"),
            prefill=params.get("prefill"),
        )


@dataclass
class Completion:
    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    logprobs: list[dict[str, Any]] | None = None
    parallel: int | None = None  # llama: sequences the batch could hold when this was decoded
    endpoint: str | None = None  # openai: the base URL (replica) that answered
    served_model: str | None = None  # openai: the model name the reply carried (a replica may serve another)
    redacted: int = 0  # openai: strings of the reply the API key was taken out of (the run says so)


def completion_from_choice(
    text: str, choice: dict[str, Any], usage: Any, latency_s: float, logprobs: list[dict[str, Any]] | None = None
) -> Completion:
    """A Completion from an OpenAI-shaped choice and usage (servers and llama-cpp-python alike).

    Token counts that are not plausible integers (a list, "many", 2**70) become None, so
    nothing downstream does arithmetic on them; the text and the finish reason are made
    storable by the store itself (`queue.complete`), whoever calls it."""
    from workbench.store.values import clean_count

    usage = usage if isinstance(usage, dict) else {}
    return Completion(
        text=text,
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=clean_count(usage.get("prompt_tokens")),
        completion_tokens=clean_count(usage.get("completion_tokens")),
        latency_s=latency_s,
        logprobs=logprobs if isinstance(logprobs, list) else None,
    )


def scores_completion(
    logprobs: list[float | None], method: str, latency_s: float, prompt_tokens: int | None = None
) -> Completion:
    import json

    return Completion(json.dumps({"logprobs": logprobs, "method": method}), "scored", prompt_tokens, 0, latency_s)


# Failures a request met on one replica of a pool before another answered it (or refused
# too): (code, message) pairs, collected per request by the runner, which records them.
routed_failures: ContextVar[list[tuple[str, str]] | None] = ContextVar("routed_failures", default=None)


def note_routed(code: str, message: str) -> None:
    """A failure on one replica that sent the request to another (kept when a runner asks)."""
    found = routed_failures.get()
    if found is not None:
        found.append((code, message))


@runtime_checkable
class Engine(Protocol):
    identity: str  # what makes answers comparable: file hash, or model@url
    concurrency: int  # requests the runner should keep in flight

    async def start(self) -> None: ...

    async def generate(self, request: GenerationRequest) -> Completion: ...

    async def score(self, prompt: str, continuations: list[str]) -> list[float]: ...

    async def score_labels(self, prefix: str, suffix: str, continuations: list[str], method: str) -> Completion:
        """Log-probability of each continuation after prefix + suffix (the prefix is
        shared by many calls). The completion's text is JSON: {"logprobs": [...],
        "method": "exact" | "first_token" | "naive"}, the method actually used."""
        ...

    async def aclose(self) -> None: ...
