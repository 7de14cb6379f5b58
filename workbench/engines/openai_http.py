"""The `openai` engine: any OpenAI-compatible HTTP server, through aiohttp.

Speaks `/chat/completions` (default) and `/completions` (mode=completion, and
for scoring). Each call passes through an adaptive limiter; failures become
`EngineError`s that say whether a retry could help, and the runner retries.
The API key is read from the environment variable the spec names and lives
only in the request header: never in the store, a log or an export.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import aiohttp

from workbench.engines.base import (
    Completion,
    EngineError,
    GenerationRequest,
    completion_from_choice,
    note_routed,
    scores_completion,
)
from workbench.engines.endpoints import AllRefused, EndpointPool
from workbench.engines.exact import prompt_name
from workbench.engines.openai_model import identity as model_identity
from workbench.engines.openai_replies import (
    RETRYABLE_STATUS,
    Refusal,
    duration,
    refusal,
    retry_after_seconds,
    server_message,
    short,
)
from workbench.engines.openai_scoring import ExactScorer, first_token
from workbench.engines.prompting import COMPLETION_STOPS, render_completion_prompt
from workbench.engines.specs import ModelSpec
from workbench.store.values import redact, secret_pattern, without_secret

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_CONCURRENCY = 8
# A server may ask for any wait (Retry-After: 86400) or send any size (a gzip bomb):
# both are bounded, and what exceeds the bound is a failed attempt that says why.
DEFAULT_MAX_RETRY_AFTER_S = 120.0
DEFAULT_MAX_BODY_MB = 8.0


class OpenAIEngine:
    def __init__(self, spec: ModelSpec, identity: str | None = None, file_path: str | None = None):
        """`identity`: the model's, as resolved (made from the spec when left out);
        `file_path` is the registry's third argument to every engine, and a server has none."""
        self.spec = spec
        self.identity = identity if identity is not None else model_identity(spec)
        # `URL1|URL2|...`: replicas of one model, each with `concurrency` requests in flight.
        self.urls = [url.rstrip("/") for url in (spec.base_url or "").split("|")]
        per_endpoint = int(spec.options.get("concurrency", DEFAULT_CONCURRENCY))
        self.pool = EndpointPool(self.urls, per_endpoint)
        self.concurrency = per_endpoint * len(self.urls)
        self.timeout_s = float(spec.options.get("timeout", DEFAULT_TIMEOUT_S))
        self.mode = spec.options.get("mode", "auto")
        self.max_retry_after = float(spec.options.get("max_retry_after", DEFAULT_MAX_RETRY_AFTER_S))
        self.max_body_bytes = int(float(spec.options.get("max_body_mb", DEFAULT_MAX_BODY_MB)) * 1_000_000)
        self._exact = ExactScorer(self)  # learns, per endpoint, whether it echoes prompt log-probs
        self._session: aiohttp.ClientSession | None = None
        self._headers = {"Content-Type": "application/json"}
        key_env = spec.options.get("api_key_env")
        if key_env:
            key = os.environ.get(key_env)
            if not key:
                raise EngineError(
                    "config",
                    f"{spec.canonical()}: environment variable {key_env} (api_key_env) is not set",
                    retryable=False,
                )
            self._headers["Authorization"] = f"Bearer {key}"
        self._secret = self._headers.get("Authorization", "")[len("Bearer ") :]
        self._secret_pattern = secret_pattern(self._secret)  # None: too short to be secret

    def redact(self, text: str) -> str:
        """The text without this engine's API key (a proxy may echo the header in an error body)."""
        return redact(text, self._secret)

    def _without_secret(self, reply: Any) -> int:
        """The parsed reply with this engine's API key, as a whole token, out of every string:
        a server that echoes it into an answer would otherwise have it stored, exported and
        shown. Only the key itself, and only a key long enough to be secret (`secret_pattern`):
        an answer's words ("New Balance" for the key `Bala`) are kept as they are. The number
        of strings changed (the run reports the answers it changed)."""
        secret, pattern = self._secret, self._secret_pattern
        if pattern is None or not isinstance(reply, (dict, list)):
            return 0
        changed = 0
        stack = [reply]  # by hand, not recursion: a hostile reply may nest deeply
        while stack:
            node = stack.pop()
            for key, value in list(node.items() if isinstance(node, dict) else enumerate(node)):
                if isinstance(value, str) and secret in value:
                    node[key], found = without_secret(value, pattern)
                    changed += found > 0
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        return changed

    async def start(self) -> None:
        if self._session is None:
            per_endpoint = self.pool.endpoints[0].limiter.maximum
            connector = aiohttp.TCPConnector(limit=self.concurrency, limit_per_host=per_endpoint)
            self._session = aiohttp.ClientSession(connector=connector, headers=self._headers)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return (await self._post_answered(path, body))[0]

    async def _post_answered(
        self, path: str, body: dict[str, Any], avoid: frozenset[str] = frozenset(), removed: list[int] | None = None
    ) -> tuple[dict[str, Any], str]:
        """POST one JSON body to an endpoint with room (never one in `avoid`: NoneLeft when
        only those are left); the parsed reply and the endpoint that gave it, or an
        EngineError (its `endpoint` the one that failed) whose message never holds the API key.

        A transient failure on one endpoint of a pool is tried on another before it counts
        as the request's failed attempt. An endpoint that refuses the model is down for it
        and the request goes to another; when every endpoint has refused, the EngineError
        stops the model (`stops_model`), one line per endpoint. Each failure routed to
        another endpoint is noted for the runner (`note_routed`). `removed` gets the number of
        the reply's strings the API key was taken out of."""
        tried: set[str] = set()
        while True:
            try:
                reply, url = await self._post_once(path, body, tried, avoid)
                found = self._without_secret(reply)
                if removed is not None:
                    removed.append(found)
                return reply, url
            except AllRefused:
                raise self._refused_everywhere() from None
            except Refusal as exc:
                if self.pool.all_refused():
                    raise self._refused_everywhere() from None
                note_routed(exc.code, f"{self.redact(exc.args[0])} (down for this model; sent to another replica)")
            except EngineError as exc:
                exc.args = (self.redact(str(exc.args[0])),)
                if exc.retryable and len(self.urls) > 1 and self.pool.can_try_elsewhere(tried | avoid):
                    note_routed(exc.code, f"{exc.args[0]} (tried on another replica)")
                    continue
                raise

    def _refused_everywhere(self) -> EngineError:
        lines = self.pool.refusals()
        if len(self.urls) == 1:
            status = (self.pool.endpoints[0].refused or "").split(":", 1)[0]
            return EngineError(f"http_{status}", lines[0], retryable=False, stops_model=True)
        message = "every replica refused the model:\n" + "\n".join(f"  {line}" for line in lines)
        return EngineError("refused", message, retryable=False, stops_model=True)

    def health_note(self) -> str | None:
        """Endpoints out of a pool, for the progress line (None when all are up)."""
        return self.pool.note() if len(self.urls) > 1 else None

    def endpoint_status(self) -> list[dict[str, Any]]:
        return [e.status() for e in self.pool.endpoints]

    async def _post_once(
        self, path: str, body: dict[str, Any], tried: set[str], avoid: frozenset[str]
    ) -> tuple[dict[str, Any], str]:
        await self.start()
        assert self._session is not None
        endpoint = await self.pool.acquire(exclude=tried, avoid=avoid)
        tried.add(endpoint.url)
        url = f"{endpoint.url}/{path}"
        throttled, retry_after, ok, broken, refused = False, None, False, False, None
        started = time.perf_counter()
        try:
            timeout = aiohttp.ClientTimeout(total=self.timeout_s or None)
            async with self._session.post(url, json=body, timeout=timeout) as reply:
                raw = await self._read_capped(reply, url)
                if reply.status != 200:
                    retry_after = retry_after_seconds(reply.headers.get("Retry-After"))
                    throttled = reply.status == 429
                    broken = reply.status >= 500  # a replica that errors is as out as one that is down
                    text = self.redact(raw.decode("utf-8", "replace"))
                    detail = short(text) or reply.reason or ""
                    message = f"{url} answered {reply.status}: {detail}"
                    said = short(server_message(text), 120) or reply.reason or ""
                    if refusal(reply.status, said, self.spec.name):
                        # Markup-free: the reason is shown in tables that read brackets as style.
                        refused = f"{reply.status}: {said.replace('[', '(').replace(']', ')')}"
                    if retry_after is not None and retry_after > self.max_retry_after:
                        # Honouring it would stall the model for hours: count the attempt as
                        # failed and let the runner's own backoff decide when to try again.
                        message += (
                            f" (it asked to wait {duration(retry_after)}, more than the "
                            f"{self.max_retry_after:g} s cap; raise it with max_retry_after=SECONDS)"
                        )
                        retry_after = None
                    raise (Refusal if refused else EngineError)(
                        f"http_{reply.status}",
                        message,
                        retryable=reply.status in RETRYABLE_STATUS,
                        retry_after=retry_after,
                    )
            try:
                parsed = json.loads(raw)
            except (ValueError, RecursionError):  # RecursionError: nested past what Python follows
                broken = True  # a replica that answers garbage is out too
                raise EngineError(
                    "bad_response",
                    f"{url} answered 200 with malformed JSON: {short(raw.decode('utf-8', 'replace'), 80)!r}",
                    retryable=True,
                ) from None
            ok = True
            return parsed, endpoint.url
        except TimeoutError:
            broken = True
            raise EngineError("timeout", f"{url}: no answer within {self.timeout_s:g} s", retryable=True) from None
        except aiohttp.ClientConnectionError as exc:
            broken = True
            raise EngineError("connection", f"{url}: {exc.__class__.__name__}: {exc}", retryable=True) from None
        except aiohttp.ClientPayloadError as exc:
            raise EngineError("connection", f"{url}: truncated reply: {exc}", retryable=True) from None
        except EngineError as exc:
            exc.endpoint = endpoint.url  # which replica failed: echo support is learnt per replica
            raise
        finally:
            await self.pool.release(
                endpoint,
                ok=ok,
                broken=broken,
                throttled=throttled,
                retry_after=retry_after,
                latency=time.perf_counter() - started,
                refused=refused,
            )

    async def _read_capped(self, reply: aiohttp.ClientResponse, url: str) -> bytes:
        """The body, decompressed, refused once it grows past max_body_mb."""
        declared = reply.content_length
        if declared is not None and declared > self.max_body_bytes and not reply.headers.get("Content-Encoding"):
            raise EngineError(
                "too_large",
                f"{url} sent a reply of {declared:,} bytes, more than the "
                f"{self.max_body_bytes:,}-byte cap (max_body_mb)",
                retryable=False,
            )
        chunks, size = [], 0
        async for chunk in reply.content.iter_chunked(1 << 16):
            size += len(chunk)
            if size > self.max_body_bytes:
                raise EngineError(
                    "too_large",
                    f"{url} sent a reply of more than {self.max_body_bytes:,} bytes "
                    "(after decompression; the cap is max_body_mb)",
                    retryable=False,
                )
            chunks.append(chunk)
        return b"".join(chunks)

    def _common(self, request: GenerationRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.spec.name,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.top_p is not None:
            body["top_p"] = request.top_p
        if request.seed is not None:
            body["seed"] = request.seed
        if request.stop:
            body["stop"] = request.stop
        return body

    async def generate(self, request: GenerationRequest) -> Completion:
        started = time.perf_counter()
        body = self._common(request)
        removed: list[int] = []  # strings of the reply the API key was taken out of
        if self.mode == "completion":
            body["prompt"] = render_completion_prompt(request.messages) + (request.prefill or "")
            body["stop"] = list(request.stop) + list(COMPLETION_STOPS)
            if request.logprobs is not None:
                body["logprobs"] = request.logprobs
            reply, url = await self._post_answered("completions", body, removed=removed)
            completion = self._completion(reply, started)
            completion.redacted = sum(removed)
            completion.text = (request.prefill or "").lstrip() + completion.text
            completion.endpoint = url
            return completion
        else:
            body["messages"] = request.messages
            if request.logprobs is not None:
                body["logprobs"] = True
                body["top_logprobs"] = request.logprobs
            if request.json_schema is not None:
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": request.json_schema},
                }
            reply, url = await self._post_answered("chat/completions", body, removed=removed)
        completion = self._completion(reply, started)
        completion.redacted = sum(removed)
        completion.endpoint = url
        return completion

    def _completion(self, reply: Any, started: float) -> Completion:
        try:
            choice = reply["choices"][0]
            if "message" in choice:
                text = choice["message"].get("content")
                logprobs = (choice.get("logprobs") or {}).get("content")
            else:
                text = choice["text"]
                logprobs = _completion_logprobs(choice.get("logprobs"))
            if not isinstance(text, str):
                raise TypeError("content is not a string")
            usage = reply.get("usage") or {}
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise EngineError(
                "bad_response",
                f"reply without a completion ({exc.__class__.__name__}: {exc}): {short(json.dumps(reply), 80)}",
                retryable=True,
            ) from None
        completion = completion_from_choice(text, choice, usage, time.perf_counter() - started, logprobs)
        served = reply.get("model") if isinstance(reply, dict) else None
        completion.served_model = served[:256] if isinstance(served, str) else None
        return completion

    @property
    def echo_supported(self) -> bool | None:
        """Whether the endpoints return echoed prompt log-probs: True when one does, False
        when none does, None while unknown."""
        known = {e.echo for e in self.pool.endpoints}
        return True if True in known else (False if known == {False} else None)

    async def score(self, prompt: str, continuations: list[str]) -> list[float]:
        """Log-probability of each continuation, from `/completions` with echo.

        Needs a server that echoes prompt log-probs (vLLM, llama-server); the sum
        runs over the tokens whose text offset lies past the prompt."""
        return (await self._exact.score(prompt, continuations, prompt_name(prompt)))[0]

    async def score_labels(self, prefix: str, suffix: str, continuations: list[str], method: str) -> Completion:
        """Exact log-probs through echoed prompt log-probs, from any endpoint that gives them
        for this prompt; none gives them: NotExact, never an approximation in their place.
        The first-token approximation only when the study chose it (`first_token`)."""
        started = time.perf_counter()
        prompt = prefix + suffix
        if method == "first_token":
            values, url = await first_token(self, prompt, continuations)
        else:
            # Echo re-sends prompt + label whole for each label: the naive computation, whose
            # numbers are the exact ones; it is labelled as the study asked.
            values, url = await self._exact.score(prompt, continuations, prompt_name(suffix))
            method = "naive" if method == "naive" else "exact"
        completion = scores_completion(values, method, time.perf_counter() - started)
        completion.endpoint = url
        return completion


def _completion_logprobs(block: Any) -> list[dict[str, Any]] | None:
    if not block or "tokens" not in block:
        return None
    return [
        {"token": token, "logprob": lp} for token, lp in zip(block.get("tokens", []), block.get("token_logprobs", []))
    ]
