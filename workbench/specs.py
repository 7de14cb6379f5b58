"""Model specs: the one-line way to name a model on the command line or in a study.

    llama:default                          the bundled Gemma 3 270M GGUF
    llama:/models/x.gguf,n_ctx=4096        any GGUF file, with options
    openai:MODEL@http://host:port/v1       any OpenAI-compatible server
    openai:gpt-4o-mini@https://api.openai.com/v1,api_key_env=OPENAI_API_KEY,concurrency=32

Options split into two kinds. *Answer options* (temperature, seed, max tokens, ...)
change what the model says, so they enter the model's identity and every request
key. *Transport options* (timeout, concurrency, threads, the name of the API key
variable, ...) only change how we get the answer, so re-running with a different
timeout never re-asks what is already answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ENGINES = ("llama", "openai")


class SpecError(ValueError):
    """A model spec that cannot be understood; the message says which part and why."""


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError("must be at least 1")
    return number


def _int(value: str) -> int:
    return int(value)


def _float(value: str) -> float:
    return float(value)


def _nonneg_float(value: str) -> float:
    number = float(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


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


# name -> (parser, help). Answer options first.
ANSWER_OPTIONS: dict[str, tuple[Any, str]] = {
    "temperature": (_nonneg_float, "sampling temperature"),
    "top_p": (_float, "nucleus sampling mass"),
    "max_tokens": (_positive_int, "most tokens to generate"),
    "seed": (_int, "base seed; repetition r uses seed + r - 1"),
    "mode": (_mode, "auto (chat if the model has a chat template), chat or completion"),
    "n_ctx": (_positive_int, "llama: context length in tokens"),
    "invariant": (_bool, "llama: label scores with batch-invariant kernels (slower; equal to a lone "
                         "evaluation bit for bit)"),
}
TRANSPORT_OPTIONS: dict[str, tuple[Any, str]] = {
    "timeout": (_nonneg_float, "seconds per request before it is retried"),
    "concurrency": (_positive_int, "requests in flight (openai) or model instances (llama)"),
    "retries": (_int, "attempts after the first before a request is marked failed"),
    "api_key_env": (_text, "openai: environment variable holding the API key"),
    "threads": (_positive_int, "llama: CPU threads per model instance"),
    "n_gpu_layers": (_int, "llama: layers offloaded to the GPU (-1 = all)"),
    "n_batch": (_positive_int, "llama: prompt evaluation batch size"),
}
ALL_OPTIONS = {**ANSWER_OPTIONS, **TRANSPORT_OPTIONS}


@dataclass(frozen=True)
class ModelSpec:
    engine: str
    name: str  # llama: "default" or a path; openai: the served model name
    base_url: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def answer_options(self) -> dict[str, Any]:
        return {k: v for k, v in self.options.items() if k in ANSWER_OPTIONS}

    def canonical(self) -> str:
        """The spec without transport options: two specs with the same canonical
        form ask the same model the same way."""
        target = self.name if self.engine == "llama" else f"{self.name}@{self.base_url}"
        opts = "".join(f",{k}={v}" for k, v in sorted(self.answer_options.items()))
        return f"{self.engine}:{target}{opts}"

    def __str__(self) -> str:
        target = self.name if self.engine == "llama" else f"{self.name}@{self.base_url}"
        opts = "".join(f",{k}={v}" for k, v in self.options.items())
        return f"{self.engine}:{target}{opts}"

    def with_options(self, **extra: Any) -> ModelSpec:
        return ModelSpec(self.engine, self.name, self.base_url, {**self.options, **extra})


def parse_spec(text: str, extra_options: dict[str, Any] | None = None) -> ModelSpec:
    """Parse `engine:target[,key=value...]`; `extra_options` (from a study file) are
    overridden by options written in the spec itself."""
    text = text.strip()
    engine, sep, body = text.partition(":")
    if not sep or engine not in ENGINES:
        raise SpecError(
            f"model spec {text!r}: expected 'llama:default', 'llama:/path/model.gguf' or "
            f"'openai:MODEL@http://host:port/v1' (engine must be one of {', '.join(ENGINES)})"
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
    if engine == "llama":
        if not target:
            raise SpecError(f"model spec {text!r}: give 'default' or a path to a .gguf file")
        if "api_key_env" in options:
            raise SpecError(f"model spec {text!r}: api_key_env applies to openai models only")
        return ModelSpec("llama", target, None, options)
    name, at, base_url = target.rpartition("@")
    if not at or not name or not base_url:
        raise SpecError(
            f"model spec {text!r}: an openai model is written MODEL@BASE_URL, "
            "e.g. openai:gpt-4o-mini@https://api.openai.com/v1"
        )
    if not base_url.startswith(("http://", "https://")):
        raise SpecError(f"model spec {text!r}: base URL {base_url!r} must start with http:// or https://")
    for llama_only in ("n_ctx", "threads", "n_gpu_layers", "n_batch", "invariant"):
        if llama_only in options:
            raise SpecError(f"model spec {text!r}: {llama_only} applies to llama models only")
    return ModelSpec("openai", name, base_url.rstrip("/"), options)


def _parse_option(spec: str, key: str, value: str) -> Any:
    if key not in ALL_OPTIONS:
        known = ", ".join(sorted(ALL_OPTIONS))
        raise SpecError(f"model spec {spec!r}: unknown option {key!r} (known: {known})")
    parser = ALL_OPTIONS[key][0]
    try:
        return parser(value)
    except ValueError as exc:
        raise SpecError(f"model spec {spec!r}: option {key}={value!r}: {exc}") from None
