"""An adaptive concurrency limit for HTTP engines (additive increase, multiplicative decrease).

A 429 halves the number of requests allowed in flight and pauses new ones for
the server's Retry-After; every `limit` successes in a row let one more in, up
to the configured maximum. This is how TCP shares a link, and it lets a run
settle just under a server's rate limit instead of hammering it.
"""

from __future__ import annotations

import asyncio
import time


class AdaptiveLimiter:
    def __init__(self, maximum: int):
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self.in_flight = 0
        self.throttles = 0
        self._successes = 0
        self._paused_until = 0.0
        self._cond = asyncio.Condition()

    async def acquire(self) -> None:
        while True:
            pause = self._paused_until - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
                continue
            async with self._cond:
                if self.in_flight < self.limit and self._paused_until <= time.monotonic():
                    self.in_flight += 1
                    return
                await self._cond.wait()

    def try_acquire(self) -> bool:
        """Take a slot now if one is free (for a pool choosing among limiters)."""
        if self.in_flight < self.limit and self._paused_until <= time.monotonic():
            self.in_flight += 1
            return True
        return False

    async def release(self, *, throttled: bool = False, retry_after: float | None = None) -> None:
        async with self._cond:
            self.in_flight -= 1
            if throttled:
                self.throttles += 1
                self.limit = max(1, self.limit // 2)
                self._successes = 0
                if retry_after:
                    self._paused_until = max(self._paused_until, time.monotonic() + retry_after)
            else:
                self._successes += 1
                if self._successes >= self.limit and self.limit < self.maximum:
                    self.limit += 1
                    self._successes = 0
            self._cond.notify_all()
