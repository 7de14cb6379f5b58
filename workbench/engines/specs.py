"""Model specs: the one-line way to name a model on the command line or in a study.

    llama:default                          the bundled Gemma 3 270M GGUF
    llama:/models/x.gguf,n_ctx=4096        any GGUF file, with options
    openai:MODEL@http://host:port/v1       any OpenAI-compatible server
    openai:gpt-4o-mini@https://api.openai.com/v1,api_key_env=OPENAI_API_KEY,concurrency=32
    openai:MODEL@http://gpu1:8000/v1|http://gpu2:8000/v1   one model served by two replicas

Options split into two kinds. *Answer options* (temperature, seed, max tokens, ...)
change what the model says, so they enter the model's identity and every request
key. *Transport options* (timeout, concurrency, threads, the name of the API key
variable, ...) only change how we get the answer, so re-running with a different
timeout never re-asks what is already answered.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workbench.engines import registry
from workbench.errors import SpecError  # noqa: F401  (raised here; the family is workbench.errors)

# Seeds: from 0 (llama.cpp reads -1 as "a random seed", which would make answers unrepeatable)
# to 2^32 - 1, llama.cpp's range: it keeps a seed's low 32 bits, so seeds 0 and 2^32 gave the
# same answer while the store recorded two.
MAX_SEED = 2**32 - 1


def _number(value: str, kind: type = float) -> float:
    try:
        number = kind(value)
    except ValueError:
        raise ValueError(f"must be {'a whole number' if kind is int else 'a number'}") from None
    if kind is float and not math.isfinite(number):
        raise ValueError("must be a finite number")
    return number


def _ranged(kind: type, low: float | None, high: float | None, low_open: bool = False) -> Callable[[str], Any]:
    """A parser for a number in [low, high] (or (low, high] when `low_open`)."""

    def parse(value: str) -> Any:
        number = _number(value, kind)
        if low is not None and (number <= low if low_open else number < low):
            raise ValueError(f"must be {'greater than' if low_open else 'at least'} {low:g}")
        if high is not None and number > high:
            raise ValueError(f"must be at most {high:g}")
        return number

    return parse


INT64 = 2**63 - 1
_positive_int = _ranged(int, 1, None)
_int = _ranged(int, -INT64 - 1, INT64)
_float = _ranged(float, None, None)
_nonneg_float = _ranged(float, 0, None)


def _text(value: str) -> str:
    if not value:
        raise ValueError("must not be empty")
    return value


def _bool(value: str) -> bool:
    if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError("must be true or false")
    return value.lower() in ("true", "1", "yes")


def _mode(value: str) -> str:
    if value not in ("auto", "chat", "completion"):
        raise ValueError("must be auto, chat or completion")
    return value


def _precision(value: str) -> str:
    if value not in ("f32", "f16", "native"):
        raise ValueError("must be f32, f16 or native")
    return value


# name -> (parser, help). Answer options first.
ANSWER_OPTIONS: dict[str, tuple[Any, str]] = {
    "temperature": (_ranged(float, 0, 10), "sampling temperature (0 to 10)"),
    "top_p": (_ranged(float, 0, 1, low_open=True), "nucleus sampling mass (above 0, at most 1)"),
    "max_tokens": (_ranged(int, 1, 1_000_000), "most tokens to generate"),
    "seed": (_ranged(int, 0, MAX_SEED), "base seed, 0 to 2^32 - 1; repetition r uses seed + r - 1"),
    "mode": (_mode, "auto (chat if the model has a chat template), chat or completion"),
    "n_ctx": (_ranged(int, 1, 10_000_000), "llama: context length in tokens"),
    "invariant": (
        _bool,
        "llama: with precision=native (which naming it implies), label scores with batch-invariant "
        "kernels (true: equal to a lone evaluation) or the fast ones (false: they round by batch layout)",
    ),
    "precision": (
        _precision,
        "llama: label scores on a dequantized copy of the weights, f32 or f16 (made once per GGUF, "
        "cached), or on the GGUF as it is (native); default f32 for a small model, else f16 where "
        "this machine has the memory, else native",
    ),
}
MAX_CONCURRENCY = 1024
# The KV cache holds parallel x n_ctx tokens (2048 x 64 is ~2.4 GB for the bundled model, far
# more for a large one); measured gains level off well before this.
MAX_PARALLEL = 64
MAX_REPLICAS = 64  # concurrency applies per replica: 64 x 1024 requests in flight is plenty
TRANSPORT_OPTIONS: dict[str, tuple[Any, str]] = {
    "timeout": (_ranged(float, 0, 86_400, low_open=True), "seconds per request before it is retried"),
    "concurrency": (_ranged(int, 1, MAX_CONCURRENCY), "requests in flight (openai) or model instances (llama)"),
    "retries": (_ranged(int, 0, 100), "attempts after the first before a request is marked failed"),
    "api_key_env": (_text, "openai: environment variable holding the API key"),
    "identity": (
        _text,
        "openai: a name for the model behind the URLs (default: the URL, or the model name for a "
        "pool URL1|URL2); set it, and keep it, when the replicas serving one model change",
    ),
    "max_retry_after": (
        _ranged(float, 0, 86_400),
        "openai: longest Retry-After honoured, in seconds (default 120); a longer one counts as a failed attempt",
    ),
    "max_body_mb": (
        _ranged(float, 0, 4096, low_open=True),
        "openai: largest reply accepted, in MB after decompression (default 8); a larger one fails the request",
    ),
    "threads": (_ranged(int, 1, 1024), "llama: CPU threads per model instance"),
    "n_gpu_layers": (_ranged(int, -1, 100_000), "llama: layers offloaded to the GPU (-1 = all)"),
    "n_batch": (_ranged(int, 1, 1_048_576), "llama: prompt evaluation batch size"),
    "parallel": (
        _ranged(int, 1, MAX_PARALLEL),
        "llama: sequences decoded together per instance, 1 to 64 (continuous batching; n_ctx is per "
        "sequence and the cache holds parallel x n_ctx tokens). 1, the default on a CPU, is reproducible "
        "to the bit; above 1 a seeded answer may differ in the last bits. With n_gpu_layers on a GPU "
        "build the default is 16",
    ),
}
ALL_OPTIONS = {**ANSWER_OPTIONS, **TRANSPORT_OPTIONS}


@dataclass(frozen=True)
class ModelSpec:
    engine: str  # a registered engine's name (workbench.engines.registry)
    name: str  # llama: "default" or a path; openai: the served model name
    base_url: str | None = None  # a served model's URL (or URLs, `URL1|URL2`); None for a local file
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def answer_options(self) -> dict[str, Any]:
        return {k: v for k, v in self.options.items() if k in ANSWER_OPTIONS}

    def canonical(self) -> str:
        """The spec without transport options: two specs with the same canonical
        form ask the same model the same way."""
        opts = "".join(f",{k}={v}" for k, v in sorted(self.answer_options.items()))
        return f"{self.engine}:{self._target()}{opts}"

    def identity_options(self) -> str:
        """The part of the model's identity its options make. Sampling options travel in
        each request's payload; what remains here changes the model's behaviour as a whole."""
        keep = {k: v for k, v in self.answer_options.items() if k in ("mode", "n_ctx")}
        return "".join(f",{k}={v}" for k, v in sorted(keep.items()))

    def _target(self) -> str:
        return self.name if self.base_url is None else f"{self.name}@{self.base_url}"

    def __str__(self) -> str:
        opts = "".join(f",{k}={v}" for k, v in self.options.items())
        return f"{self.engine}:{self._target()}{opts}"

    def with_options(self, **extra: Any) -> ModelSpec:
        return ModelSpec(self.engine, self.name, self.base_url, {**self.options, **extra})

    def model_key(self) -> tuple[Any, ...]:
        """What names the model itself, read from the spec alone: two specs with the same
        key are one model in the store (its identity), whatever their sampling options."""
        return (self.engine, self.name, self.base_url, self.options.get("identity"), self.identity_options())


def same_model_twice(specs: list[ModelSpec], written: list[str], keys: list[Any] | None = None) -> str | None:
    """Why a list of models cannot be audited together, or None: two entries that are one
    model (by `keys`, default their model_key) would be stored as one, asked with the later
    entry's sampling options only. `written`: each entry as the user wrote it."""
    keys = keys if keys is not None else [s.model_key() for s in specs]
    first: dict[Any, int] = {}
    for n, key in enumerate(keys):
        if key not in first:
            first[key] = n
            continue
        m = first[key]
        plugin = registry.get(specs[n].engine)
        remedy = (
            "give one identity=NAME to audit it twice with other settings"
            if plugin is not None and "identity" in plugin.options
            else "to audit it with other settings, give them in a study of their own"
        )
        return (
            f"entries {m + 1} ({written[m]!r}) and {n + 1} ({written[n]!r}) are the same model twice "
            "(sampling options such as temperature are not part of a model's identity, so one would "
            f"replace the other); {remedy}"
        )
    return None


def parse_spec(text: str, extra_options: dict[str, Any] | None = None) -> ModelSpec:
    """Parse `engine:target[,key=value...]`; `extra_options` (from a study file) are
    overridden by options written in the spec itself. The engine reads its target."""
    text = text.strip()
    engine, sep, body = text.partition(":")
    plugin = registry.get(engine) if sep else None
    if plugin is None:
        examples = [k.example for k in registry.plugins()]
        raise SpecError(
            f"model spec {text!r}: expected {', '.join(examples[:-1])} or {examples[-1]} "
            f"(engine must be one of {', '.join(registry.names())})"
        )
    target, *option_parts = body.split(",")
    options: dict[str, Any] = {}
    for key, value in (extra_options or {}).items():
        options[key] = _parse_option(text, key, str(value))
    for part in option_parts:
        key, eq, value = part.partition("=")
        if not eq:
            raise SpecError(f"model spec {text!r}: option {part!r} must look like key=value")
        options[key.strip()] = _parse_option(text, key.strip(), value.strip())
    name, base_url = plugin.parse_target(text, target)
    for other in registry.plugins():
        for key in sorted((other.options - plugin.options) & options.keys()):
            raise SpecError(f"model spec {text!r}: {key} applies to {other.name} models only")
    return ModelSpec(engine, name, base_url, options)


def _parse_option(spec: str, key: str, value: str) -> Any:
    if key not in ALL_OPTIONS:
        known = ", ".join(sorted(ALL_OPTIONS))
        raise SpecError(f"model spec {spec!r}: unknown option {key!r} (known: {known})")
    parser = ALL_OPTIONS[key][0]
    try:
        return parser(value)
    except ValueError as exc:
        raise SpecError(f"model spec {spec!r}: option {key}={value!r}: {exc}") from None
