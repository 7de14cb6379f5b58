"""Label log-probabilities over HTTP, for the `openai` engine.

Exact (the default): `/completions` with `echo`, prompt + label, summing the log-probs
of the tokens past the prompt. Echo support is learnt per endpoint of a pool, never
per engine: the first reply with echoed log-probs shows an endpoint has them; a reply
refusing them (400, 422, 501, or a 200 without them) is checked by a probe, a tiny echo
request of its own, because a server may refuse one prompt (its text, its length) and
echo every other. An endpoint whose probe fails is avoided for exact scoring; a prompt
an endpoint refuses is tried on the others; when none can score it, `NotExact` says so
and the prompt is left unscored, never approximated in its place.

First token (`scoring = "first_token"`, chosen in the study): the top-20 log-probs of
the next token, matched to each label's first characters.
"""

from __future__ import annotations

import asyncio
from typing import Any

from workbench.engines.base import EngineError, note_routed
from workbench.engines.endpoints import AllRefused, NoneLeft
from workbench.engines.exact import NotExact

# How a server says it will not echo prompt log-probs: it refuses the request (400, 422,
# 501) or answers without them ("unsupported"). Anything else (a 500, a timeout) is a
# failed attempt like any other.
ECHO_REFUSALS = frozenset({"unsupported", "http_400", "http_422", "http_501"})
PROBE_PROMPT = "Hello world"


def echoed_sum(reply: Any, url: str, start: int, end: int) -> float:
    """The sum of the echoed log-probs of the tokens whose offset lies in [start, end)
    of the reply `url` gave."""
    try:
        lp = reply["choices"][0]["logprobs"]
        offsets, token_lps = lp["text_offset"], lp["token_logprobs"]
        if not isinstance(offsets, list) or not isinstance(token_lps, list) or len(offsets) != len(token_lps):
            raise TypeError("text_offset and token_logprobs are not lists of one length")
        # A server that ignores `echo` sends the generated token's log-prob alone (at the end of
        # the text): summed as it is, it would be a silent 0.0, not a refusal.
        if not offsets or offsets[0] != 0:
            raise ValueError("the tokens do not start with the prompt")
        found = [float(v) for o, v in zip(offsets, token_lps) if start <= o < end and v is not None]
        if not found:
            raise ValueError("no echoed token lies in the scored text")
        return sum(found)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise EngineError(
            "unsupported", f"{url} answered without echoed prompt log-probs ({exc})", retryable=False
        ) from None


def _said(exc: EngineError) -> str:
    return str(exc.args[0]) if exc.args else exc.code


class ExactScorer:
    """Exact label log-probs from echoed prompt log-probs, over the engine's pool."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.pool = engine.pool
        self._probes: dict[str, asyncio.Lock] = {}

    async def score(self, prompt: str, continuations: list[str], name: str) -> tuple[list[float], str | None]:
        """Each continuation's log-prob and the endpoint that answered (the last one)."""
        refused: dict[str, str] = {}  # endpoint -> its reply refusing to echo this prompt
        values, url = [], None
        for continuation in continuations:
            value, url = await self._one(prompt, continuation, refused, name)
            values.append(value)
        return values, url

    async def _one(self, prompt: str, continuation: str, refused: dict[str, str], name: str) -> tuple[float, str]:
        body = {
            "model": self.engine.spec.name,
            "prompt": prompt + continuation,
            "max_tokens": 1,
            "temperature": 0,
            "echo": True,
            "logprobs": 1,
        }
        while True:
            avoid = set(refused) | {e.url for e in self.pool.endpoints if e.echo is False}
            self._check_left(avoid, refused, name)
            try:
                reply, url = await self.engine._post_answered("completions", body, avoid=frozenset(avoid))
                try:
                    value = echoed_sum(reply, url, len(prompt), len(prompt) + len(continuation))
                except EngineError as exc:
                    exc.endpoint = url  # answered, without them: as telling as a refusal
                    raise
                self.pool.find(url).echo = True
                return value, url
            except AllRefused:
                raise
            except NoneLeft:
                continue  # the endpoints changed while it waited: _check_left says what is left
            except EngineError as exc:
                where = getattr(exc, "endpoint", None)
                if exc.stops_model or exc.code not in ECHO_REFUSALS or where is None:
                    raise
                said = self.engine.redact(_said(exc))
                if await self._has_echo(where):
                    refused[where] = said  # this prompt, not the endpoint: the others are still asked there
                    why = "refused to echo this prompt"
                else:
                    why = "returns no echoed prompt log-probs"
                if self.pool.serving(set(refused) | {e.url for e in self.pool.endpoints if e.echo is False}):
                    note_routed(exc.code, f"{said} ({why}; tried on another replica)")

    def _check_left(self, avoid: set[str], refused: dict[str, str], name: str) -> None:
        """Raise NotExact when no endpoint still serving the model can score this prompt."""
        serving = self.pool.serving()
        if not serving or self.pool.serving(avoid):
            return  # none serving: the request itself says every replica refused the model
        if not refused:
            who = "the server returns no" if len(self.pool.endpoints) == 1 else "no replica returns"
            said = "; ".join(e.no_echo or e.url for e in serving)
            raise NotExact(f"{who} echoed prompt log-probs ({said})", name, stops_model=True)
        who = "the server refused" if len(self.pool.endpoints) == 1 else "every replica with echo refused"
        raise NotExact(f"{who} to echo their log-probs: {'; '.join(refused.values())}", name)

    async def _has_echo(self, url: str) -> bool:
        """Whether an endpoint returns echoed prompt log-probs, probed once (a tiny echo
        request) when no reply has shown it yet."""
        endpoint = self.pool.find(url)
        lock = self._probes.setdefault(url, asyncio.Lock())
        async with lock:
            if endpoint.echo is None:
                await self._probe(url)
        return bool(endpoint.echo)

    async def _probe(self, url: str) -> None:
        endpoint = self.pool.find(url)
        body = {
            "model": self.engine.spec.name,
            "prompt": PROBE_PROMPT,
            "max_tokens": 1,
            "temperature": 0,
            "echo": True,
            "logprobs": 1,
        }
        others = frozenset(e.url for e in self.pool.endpoints if e.url != url)
        try:
            reply, _ = await self.engine._post_answered("completions", body, avoid=others)
            echoed_sum(reply, url, 0, len(PROBE_PROMPT))
            endpoint.echo = True
        except NoneLeft:
            return  # it refused the model meanwhile: it is out of the pool anyway
        except EngineError as exc:
            if exc.stops_model or exc.code not in ECHO_REFUSALS:
                raise
            endpoint.echo = False
            endpoint.no_echo = self.engine.redact(_said(exc))


async def first_token(engine: Any, prompt: str, continuations: list[str]) -> tuple[list[float | None], str]:
    """The approximation: the top-20 log-probs of the next token, matched to each
    label's first characters (None when the label's start is not among them)."""
    body = {"model": engine.spec.name, "prompt": prompt, "max_tokens": 1, "temperature": 0, "logprobs": 20}
    reply, url = await engine._post_answered("completions", body)
    try:
        top = reply["choices"][0]["logprobs"]["top_logprobs"][0] or {}
        items = list(top.items())
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise EngineError(
            "unsupported", f"{engine.identity} returns no top log-probs ({exc})", retryable=False
        ) from None
    out: list[float | None] = []
    for continuation in continuations:
        # The longest top token that starts the label (" Low" for " Low Urgency").
        matches = [(len(t), lp) for t, lp in items if t.strip() and continuation.startswith(t)]
        out.append(max(matches)[1] if matches else None)
    return out, url
