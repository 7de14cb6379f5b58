"""Several replicas serving one model, used as one: a pool of endpoints.

Each endpoint has its own adaptive limiter (`concurrency` requests in flight at
most, halved on a 429) and its own health. Three broken replies in a row (no
connection, a timeout, a 5xx, a body that is not JSON) take an endpoint out for a cool-down (5 s, doubling to 60 s);
after it, one request probes it, and a success brings it back. A request goes
to the healthy endpoint with the most room; one that fails on an endpoint for a
transient reason is tried on another before the runner counts an attempt.

A replica that refuses the model (404 "model not found", 401/403, a 400 saying the
model is unknown) is down for that model with the reply as its reason: requests go
to the others, and it is asked again (one probe) only after REFUSED_RECHECK_S. When
every replica has refused, `acquire` raises AllRefused: nothing is left to ask.

Whether an endpoint returns echoed prompt log-probs (`echo`) is learnt per endpoint, not
per pool: a request that needs them avoids the endpoints known to lack them (`avoid`),
and `acquire` raises NoneLeft when every endpoint still serving the model is avoided.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field

from workbench.engines.limiter import AdaptiveLimiter
from workbench.errors import AllRefused, NoneLeft  # noqa: F401  (raised here; the family is workbench.errors)

FAILURES_TO_TRIP = 3
COOLDOWN_S, MAX_COOLDOWN_S = 5.0, 60.0
REFUSED_RECHECK_S = 300.0  # a replica that refused the model is asked again after this long


@dataclass
class Endpoint:
    url: str
    limiter: AdaptiveLimiter
    done: int = 0
    failed: int = 0
    streak: int = 0  # connection failures or timeouts in a row
    down_until: float = 0.0
    cooldown: float = COOLDOWN_S
    refused: str | None = None  # the reply with which it refused the model ("404: model not found")
    echo: bool | None = None  # whether it returns echoed prompt log-probs (None: not known yet)
    no_echo: str | None = None  # the reply that showed it does not ("400: echo is not supported")
    latencies: deque[float] = field(default_factory=lambda: deque(maxlen=50))  # the recent ones

    @property
    def state(self) -> str:
        if self.down_until == 0.0:
            return "up"
        state = "down" if time.monotonic() < self.down_until else "probing"
        return f"{state}: {self.refused}" if self.refused else state

    def status(self) -> dict:
        recent = self.latencies
        return {
            "url": self.url,
            "state": self.state,
            "done": self.done,
            "failed": self.failed,
            "in_flight": self.limiter.in_flight,
            "latency_s": round(sum(recent) / len(recent), 3) if recent else None,
        }


class EndpointPool:
    def __init__(self, urls: list[str], concurrency: int):
        self.endpoints = [Endpoint(url, AdaptiveLimiter(concurrency)) for url in urls]
        self._changed = asyncio.Condition()

    def _usable(self, exclude: set[str]) -> list[Endpoint]:
        now = time.monotonic()
        usable = []
        for endpoint in self.endpoints:
            if endpoint.url in exclude:
                continue
            if endpoint.down_until and now < endpoint.down_until:
                continue
            if endpoint.down_until and endpoint.limiter.in_flight:  # probing: one request at a time
                continue
            usable.append(endpoint)
        return sorted(usable, key=lambda e: e.limiter.in_flight - e.limiter.limit)

    def find(self, url: str) -> Endpoint:
        return next(e for e in self.endpoints if e.url == url)

    def serving(self, avoid: set[str] | frozenset[str] = frozenset()) -> list[Endpoint]:
        """The endpoints that have not refused the model, less those to avoid."""
        return [e for e in self.endpoints if not e.refused and e.url not in avoid]

    async def acquire(
        self, exclude: set[str] = frozenset(), avoid: set[str] | frozenset[str] = frozenset()
    ) -> Endpoint:
        """The healthy endpoint with the most room (waiting for room, or for a cool-down
        to end when every endpoint is out). `exclude`: endpoints already tried, taken
        again when no other is left; `avoid`: endpoints never to take (NoneLeft when
        every endpoint still serving is one)."""
        while True:
            async with self._changed:
                for endpoint in self._usable(set(exclude) | set(avoid)):
                    if endpoint.limiter.try_acquire():
                        return endpoint
                if not self.serving():
                    raise AllRefused()
                serving = self.serving(avoid)
                if not serving:
                    raise NoneLeft()
                candidates = [e for e in serving if e.url not in exclude] or serving
                if all(e.down_until for e in candidates):
                    # Every endpoint is out: probe the one back soonest now, so the failures
                    # reach the runner (which stops a run that only fails) instead of waiting.
                    for endpoint in sorted(candidates, key=lambda e: e.down_until):
                        if endpoint.limiter.try_acquire():
                            return endpoint
                try:
                    await asyncio.wait_for(self._changed.wait(), timeout=1.0)
                except TimeoutError:
                    pass

    def all_refused(self) -> bool:
        return all(e.refused for e in self.endpoints)

    def refusals(self) -> list[str]:
        """One line per endpoint: its URL and the reply with which it refused."""
        return [f"{e.url} answered {e.refused}" for e in self.endpoints if e.refused]

    def can_try_elsewhere(self, tried: set[str]) -> bool:
        now = time.monotonic()
        return any(e.url not in tried and not (e.down_until and now < e.down_until) for e in self.endpoints)

    async def release(
        self,
        endpoint: Endpoint,
        *,
        ok: bool,
        broken: bool = False,
        throttled: bool = False,
        retry_after: float | None = None,
        latency: float | None = None,
        refused: str | None = None,
    ) -> None:
        """`broken`: the endpoint could not be reached, did not answer in time, failed
        (5xx) or answered garbage (counts towards taking it out); `refused`: it refused
        the model, with this reply (takes it out at once); `ok`: it answered."""
        await endpoint.limiter.release(throttled=throttled, retry_after=retry_after)
        if ok:
            endpoint.done += 1
            endpoint.streak, endpoint.refused = 0, None
            endpoint.down_until, endpoint.cooldown = 0.0, COOLDOWN_S
            if latency is not None:
                endpoint.latencies.append(latency)
        elif refused:
            endpoint.failed += 1
            endpoint.refused = refused
            endpoint.down_until = time.monotonic() + REFUSED_RECHECK_S
        else:
            endpoint.failed += 1
            if broken and len(self.endpoints) > 1:  # alone, it has nowhere to send work instead
                endpoint.streak += 1
                if endpoint.streak >= FAILURES_TO_TRIP or endpoint.down_until:
                    endpoint.down_until = time.monotonic() + endpoint.cooldown
                    endpoint.cooldown = min(MAX_COOLDOWN_S, endpoint.cooldown * 2)
        async with self._changed:
            self._changed.notify_all()

    def note(self) -> str | None:
        """A line for the progress display when an endpoint is out, else None."""
        out = [e for e in self.endpoints if e.state != "up"]
        if not out:
            return None
        return "; ".join(f"{e.url} {e.state}" for e in out) + f" ({len(self.endpoints) - len(out)} up)"
