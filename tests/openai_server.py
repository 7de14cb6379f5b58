"""A real OpenAI-compatible HTTP server on 127.0.0.1 that can misbehave on purpose.

Used by the tests and by `bench/`: it speaks `/v1/chat/completions`,
`/v1/completions` and `/v1/models`, answers deterministically from the prompt,
and injects faults either by a seeded rate or always:

    429 with Retry-After, 500, a reply slower than the client's timeout, a dropped
    connection, and malformed JSON.

It can also refuse the model on every request (`refuse`): 404 "model does not exist",
400 "model not found", 401 "invalid API key" or 403 "forbidden", as a misconfigured
replica does.

It is a real peer over TCP, not an object standing in for the engine.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import threading
from collections import Counter
from dataclasses import dataclass, field

from aiohttp import web

FAULTS = ("429", "500", "slow", "drop", "garbage")
# Replies a broken or hostile server sends (chat completions): each must end in a
# stored answer or a failed request with its reason, and the run must go on.
HOSTILE = (
    "surrogate",
    "finish_object",
    "usage_junk",
    "usage_huge",
    "retry_after_hour",
    "retry_after_inf",
    "retry_after_9999",
    "huge_body",
    "gzip_bomb",
    "echo_auth",
    "echo_key_answer",
    "no_choices",
    "content_list",
)


# What a server that does not serve the model (or not to this caller) answers, as vLLM and
# OpenAI word it; {model} is the model the request named.
REFUSALS = {
    404: "The model `{model}` does not exist.",
    400: "model '{model}' not found, try pulling it first",
    401: "Invalid API key provided",
    403: "You do not have access to the model `{model}`",
}


@dataclass
class ServerConfig:
    fault_rate: float = 0.0  # share of requests that get a fault
    faults: tuple[str, ...] = FAULTS  # which faults to draw from
    always_fail: str | None = None  # a fault every request gets
    retry_after: float = 0.05
    slow_s: float = 2.0
    latency_s: float = 0.0  # added to every good reply
    seed: int = 0
    reply_text: str | None = None  # fixed text instead of the derived one
    require_key: str | None = None  # expected bearer token
    echo_logprobs: bool = True  # /completions with echo returns prompt log-probs (as vLLM does)
    echo_refused_for: str | None = None  # echo refused (400) only for prompts containing this text
    echo_ignored: bool = False  # `echo` ignored: only the generated token's log-probs come back
    hostile: str | None = None  # one of HOSTILE: a reply that lies or attacks, on every chat request
    refuse: int | None = None  # one of REFUSALS: every request refused with this status (the model is not here)
    served_model: str | None = None  # the model name replies carry (default: the one asked for)


@dataclass
class ServerStats:
    requests: int = 0
    faults: Counter = field(default_factory=Counter)
    ok: int = 0
    auth_headers: list = field(default_factory=list)


def answer_for(prompt: str) -> str:
    """A deterministic, list-shaped answer derived from the prompt."""
    digest = hashlib.sha256(prompt.encode()).hexdigest()
    brands = ["Nike", "Adidas", "Asics", "Brooks", "Hoka", "New Balance", "Saucony", "Puma"]
    picks = [brands[int(digest[i : i + 2], 16) % len(brands)] for i in range(0, 10, 2)]
    return "Here are my picks:\n" + "\n".join(f"{i}. {b}" for i, b in enumerate(dict.fromkeys(picks), 1))


def instance_for(schema: dict, seed: str, name: str = "value"):
    """A JSON value that satisfies the (simple) schema, derived from `seed`: what a
    server with structured outputs returns for `response_format: json_schema`."""
    digest = hashlib.sha256(seed.encode()).hexdigest()
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][int(digest[:8], 16) % len(schema["enum"])]
    if kind == "object":
        return {prop: instance_for(sub, seed + prop, prop) for prop, sub in schema.get("properties", {}).items()}
    if kind == "array":
        count = schema.get("minItems", 3)
        count = min(max(count, 1), schema.get("maxItems", count))
        if name == "recommended":  # brand names, as an extraction expert would list them
            return [line.split(". ", 1)[1] for line in answer_for(seed).splitlines()[1:]][:count]
        items = [instance_for(schema.get("items", {}), f"{seed}{i}", name) for i in range(count)]
        return [item + f" #{i + 1}" if isinstance(item, str) else item for i, item in enumerate(items, 0)]
    if name == "questions":
        return f"Which option would you recommend for need {digest[:6]}?"
    return f"{name.title()} {digest[:6]}"


def token_logprob(context: str, token: str) -> float:
    """A deterministic log-prob for `token` after `context` (words are the tokens here)."""
    digest = hashlib.sha256((context + "\x00" + token).encode()).hexdigest()
    return -0.05 - int(digest[:6], 16) / 0xFFFFFF * 6.0


def token_logprobs(prompt: str, echo: bool, top: int) -> dict:
    """The completions API's logprobs block: with echo, one entry per prompt token
    (whitespace-led words, the first without a log-prob); without, the next token's top-N."""
    import re

    words = re.findall(r"\s*\S+", prompt)
    if echo:
        offsets, position = [], 0
        for word in words:
            offsets.append(position)
            position += len(word)
        return {
            "tokens": words,
            "text_offset": offsets,
            "token_logprobs": [None] + [token_logprob(prompt[:o], w) for o, w in zip(offsets[1:], words[1:])],
            "top_logprobs": None,
        }
    candidates = [" Low", " Moderate", " High", " Critical", " No", " 1", " 2", " 3", " 4", " The"]
    ranked = sorted(((c, token_logprob(prompt, c)) for c in candidates), key=lambda x: -x[1])[:top]
    return {
        "tokens": [ranked[0][0]],
        "text_offset": [len(prompt)],
        "token_logprobs": [ranked[0][1]],
        "top_logprobs": [dict(ranked)],
    }


class FaultyOpenAIServer:
    def __init__(self, config: ServerConfig | None = None):
        self.config = config or ServerConfig()
        self.stats = ServerStats()
        self._rng = random.Random(self.config.seed)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        return app

    async def start(self) -> None:
        self._runner = web.AppRunner(self._app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._runner:
            await self._runner.cleanup()

    def _pick_fault(self) -> str | None:
        if self.config.always_fail:
            return self.config.always_fail
        if self._rng.random() < self.config.fault_rate:
            return self._rng.choice(self.config.faults)
        return None

    async def _fault(self, request: web.Request, fault: str) -> web.StreamResponse:
        self.stats.faults[fault] += 1
        if fault == "429":
            return web.json_response(
                {"error": {"message": "rate limited"}},
                status=429,
                headers={"Retry-After": str(self.config.retry_after)},
            )
        if fault == "500":
            return web.json_response({"error": {"message": "internal error"}}, status=500)
        if fault == "slow":
            await asyncio.sleep(self.config.slow_s)
            return web.json_response({"error": "too late"}, status=200)
        if fault == "drop":
            request.transport.close()  # the connection dies mid-request
            return web.Response(status=500)
        # garbage: a 200 whose body is not JSON
        return web.Response(status=200, text='{"choices": [ {"message": oops', content_type="application/json")

    async def _common(self, request: web.Request):
        self.stats.requests += 1
        self.stats.auth_headers.append(request.headers.get("Authorization"))
        if self.config.require_key and request.headers.get("Authorization") != f"Bearer {self.config.require_key}":
            return None, web.json_response({"error": {"message": "bad key"}}, status=401)
        body = await request.json()
        if self.config.refuse:
            status = self.config.refuse
            self.stats.faults[f"refuse_{status}"] += 1
            said = REFUSALS[status].format(model=body.get("model"))
            return None, web.json_response({"error": {"message": said, "code": status}}, status=status)
        fault = self._pick_fault()
        if fault:
            return None, await self._fault(request, fault)
        if self.config.latency_s:
            await asyncio.sleep(self.config.latency_s)
        return body, None

    async def _hostile(self, request: web.Request, mode: str, text: str) -> web.StreamResponse | None:
        """The reply of a server that lies (see HOSTILE); None: answer normally."""
        self.stats.faults[mode] += 1
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        usage: object = {"prompt_tokens": 3, "completion_tokens": 5}
        if mode == "surrogate":  # a lone surrogate, legal in JSON text, not encodable as UTF-8
            choice["message"]["content"] = text + " \ud800 and \udfff"
        elif mode == "finish_object":
            choice["finish_reason"] = {"type": "stop", "why": ["nested", {"deep": True}]}
        elif mode == "usage_junk":
            usage = {"prompt_tokens": [1, 2], "completion_tokens": "many"}
        elif mode == "usage_huge":
            usage = {"prompt_tokens": 2**70, "completion_tokens": 1e300}
        elif mode.startswith("retry_after"):
            after = {
                "retry_after_hour": "3600",
                "retry_after_inf": "inf",
                "retry_after_9999": "Fri, 31 Dec 9999 23:59:59 GMT",
            }[mode]
            return web.json_response({"error": {"message": "slow down"}}, status=429, headers={"Retry-After": after})
        elif mode == "huge_body":
            choice["message"]["content"] = "x" * 9_000_000
        elif mode == "gzip_bomb":
            import gzip

            payload = json.dumps({"choices": [choice], "pad": " " * 50_000_000}).encode()
            return web.Response(
                body=gzip.compress(payload, 1),
                status=200,
                content_type="application/json",
                headers={"Content-Encoding": "gzip"},
            )
        elif mode == "echo_auth":  # a proxy that shows the request's headers in its error page
            return web.Response(
                status=500, text=f"upstream failed; headers: Authorization: {request.headers.get('Authorization')}"
            )
        elif mode == "echo_key_answer":  # a 200 answer quoting the request's API key (a proxy's debug echo)
            key = (request.headers.get("Authorization") or "").removeprefix("Bearer ")
            choice["message"]["content"] = f"{text}\n(answered for key {key})"
            choice["logprobs"] = {"content": [{"token": key, "logprob": -0.5, "top_logprobs": []}]}
            return web.json_response({"choices": [choice], "usage": usage, "model": f"m-{key}"})
        elif mode == "no_choices":
            return web.json_response({"choices": [], "usage": usage})
        elif mode == "content_list":
            choice["message"]["content"] = [{"type": "text", "text": text}]
        return web.json_response({"choices": [choice], "usage": usage})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body, early = await self._common(request)
        if early is not None:
            return early
        if self.config.hostile:
            prompt = "\n".join(m["content"] for m in body["messages"])
            return await self._hostile(request, self.config.hostile, answer_for(prompt))
        prompt = "\n".join(m["content"] for m in body["messages"])
        text = self.config.reply_text if self.config.reply_text is not None else answer_for(prompt)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        if schema and self.config.reply_text is None:
            text = json.dumps(instance_for(schema, prompt))
        self.stats.ok += 1
        return web.json_response(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": self.config.served_model or body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": len(prompt.split()),
                    "completion_tokens": len(text.split()),
                    "total_tokens": len(prompt.split()) + len(text.split()),
                },
            }
        )

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body, early = await self._common(request)
        if early is not None:
            return early
        text = self.config.reply_text if self.config.reply_text is not None else answer_for(body["prompt"])
        self.stats.ok += 1
        logprobs = None
        if body.get("logprobs") is not None:
            if body.get("echo") and not self.config.echo_logprobs:
                return web.json_response({"error": {"message": "echo with logprobs is not supported"}}, status=400)
            refused_for = self.config.echo_refused_for
            if body.get("echo") and refused_for and refused_for in body["prompt"]:
                # A server that cannot echo some prompts (a tokenizer or length limit hit by their text).
                self.stats.faults["echo_refused"] += 1
                return web.json_response(
                    {"error": {"message": "prompt logprobs unavailable for this input"}}, status=400
                )
            echo = body.get("echo", False) and not self.config.echo_ignored
            logprobs = token_logprobs(body["prompt"], echo, int(body["logprobs"]))
        return web.json_response(
            {
                "id": "cmpl-test",
                "object": "text_completion",
                "model": self.config.served_model or body.get("model"),
                "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": logprobs}],
                "usage": {"prompt_tokens": len(body["prompt"].split()), "completion_tokens": len(text.split())},
            }
        )

    async def _models(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"object": "list", "data": [{"id": "test-model", "object": "model"}]})


class ServerThread:
    """Runs a FaultyOpenAIServer on its own event loop in a background thread, so
    a test (or a separate `workbench run` process) can talk to it over TCP."""

    def __init__(self, config: ServerConfig | None = None):
        self.server = FaultyOpenAIServer(config)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FaultyOpenAIServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(10)
        return self.server

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def main() -> None:
    """`python tests/openai_server.py --port 8000 --fault-rate 0.3`: serve until Ctrl-C."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--always-fail", choices=FAULTS)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = FaultyOpenAIServer(
        ServerConfig(fault_rate=args.fault_rate, always_fail=args.always_fail, latency_s=args.latency)
    )
    web.run_app(server._app(), host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
