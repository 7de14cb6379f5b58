"""Drains the persistent request queue with anyio.

For each model, `concurrency` workers take claimed requests, call the engine,
and commit each response together with its status change. Retryable errors are
recorded (so `status` can show what a run survived) and retried with exponential
backoff and jitter, honouring the server's Retry-After; failures a pool sent on
to another replica are recorded with the attempt. When no server will answer a
model (every replica refused it) the model stops and its requests stay pending,
none failed. A prompt no server can score as the study asks (`NotExact`) stays
pending too, never scored another way; the model's run ends with one line naming
such prompts. On cancellation
(Ctrl-C, a TUI cancel) unfinished claims go back to pending, so the next run
picks up exactly where this one stopped.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections import deque
from collections.abc import Callable

import anyio

from workbench.engines.base import EngineError, GenerationRequest, routed_failures
from workbench.engines.exact import NotExact, closing_line
from workbench.pipeline.run_types import ModelJob, Progress, RunOptions, RunSummary
from workbench.store.db import utc_now
from workbench.store.reads import shared as reads
from workbench.store.requests import endpoints as endpoint_store
from workbench.store.requests import queue
from workbench.text.words import plural


class Budget:
    """The --limit shared by all models and stages of a run: requests it may still send."""

    def __init__(self, limit: int | None):
        self.left = limit

    def take(self, wanted: int) -> int:
        if self.left is None:
            return wanted
        granted = min(wanted, self.left)
        self.left -= granted
        return granted


def backoff_delay(attempt: int, options: RunOptions) -> float:
    """Exponential backoff with 'equal jitter': half fixed, half random."""
    ceiling = min(options.backoff_cap_s, options.backoff_base_s * 2 ** (attempt - 1))
    return ceiling / 2 + random.uniform(0, ceiling / 2)


def _one_error(group: BaseExceptionGroup) -> BaseException:
    """The error a user should see when the models' tasks end in a group: an interrupt, else
    an engine that cannot start (one line: "cannot load ..."), else a store that cannot be
    written (a full disk: one line naming the file), else the group itself."""
    leaves = list(_leaves(group))
    for kind in (KeyboardInterrupt, EngineError, sqlite3.Error):  # a store that cannot be written: one line
        found = next((e for e in leaves if isinstance(e, kind)), None)
        if found is not None:
            return found
    return group


def _leaves(error: BaseException):
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


async def run_jobs(
    conn: sqlite3.Connection,
    study_id: int,
    jobs: list[ModelJob],
    options: RunOptions | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    budget: Budget | None = None,
) -> RunSummary:
    """Drain one stage of the jobs' models. `budget` is what --limit leaves to the run (a run
    of several stages passes the one it started with), else `options.limit` for this stage."""
    options = options or RunOptions()
    owner = queue.claim_owner()
    queue.release_stale_claims(conn)
    budget = budget if budget is not None else Budget(options.limit)
    summary = RunSummary()
    runners = [_ModelRun(conn, study_id, job, options, owner, budget, on_progress) for job in jobs]
    try:
        async with anyio.create_task_group() as group:
            for runner in runners:
                group.start_soon(runner.run)
    except BaseExceptionGroup as group:
        summary.cancelled = True
        raise _one_error(group) from None
    except BaseException:
        summary.cancelled = True
        raise
    finally:
        for runner in runners:
            runner.release_unfinished()
            runner.record_endpoints(force=True)
            summary.progress.append(runner.snapshot(finished=True))
    return summary


ENDPOINTS_EVERY_S = 1.0


class _ModelRun:
    def __init__(self, conn, study_id, job: ModelJob, options: RunOptions, owner: str, budget: Budget, on_progress):
        self.conn, self.study_id, self.job, self.options = conn, study_id, job, options
        self.owner, self.budget, self.on_progress = owner, budget, on_progress
        self.retries = job.retries if job.retries is not None else options.retries
        self.local: deque[sqlite3.Row] = deque()
        self.in_flight: set[str] = set()
        self.tokens = 0
        self.answered = 0
        self.redacted = 0  # answers the engine took the API key out of: reported, never silent
        self.consecutive_failures = 0
        self.last_error: str | None = None
        self.stopped_reason: str | None = None
        self.waiting: str | None = None
        self.started = time.perf_counter()
        self.counts = self._count()
        self.exhausted = False
        self.endpoints_recorded = 0.0  # when the pool's health was last written to the store
        # Prompts that could not be scored exactly: held (claimed) until the run ends, so this
        # run does not take them again, then left pending and named in one closing line.
        self.not_exact: list[tuple[str, str]] = []  # (key, prompt)
        self.not_exact_reason = ""
        self.not_exact_streak = 0  # in a row, with no prompt scored in between
        self.not_exact_stop: str | None = None  # "everywhere" (no endpoint scores exactly) or "in_a_row"

    def _count(self) -> dict[str, int]:
        counted = reads.stage_counts(self.conn, self.study_id, self.job.model_id, self.options.stage)
        found = {status: 0 for status in queue.STATUSES}
        found.update(counted)
        return found

    def snapshot(self, finished: bool = False) -> Progress:
        c = self.counts
        return Progress(
            model=self.job.label,
            stage=self.options.stage,
            done=c["done"],
            failed=c["failed"],
            pending=c["pending"],
            running=c["running"],
            tokens=self.tokens,
            elapsed_s=time.perf_counter() - self.started,
            answered_this_run=self.answered,
            last_error=self.last_error,
            finished=finished,
            stopped_reason=self.stopped_reason,
            waiting=None if finished else (self.waiting or self._health()),
            endpoints=self._replicas(),
            budget_left=self.budget.left,
            redacted=self.redacted,
        )

    def _replicas(self) -> tuple[dict, ...]:
        status = getattr(self.job.engine, "endpoint_status", None)
        replicas = status() if status is not None else []
        return tuple(replicas) if len(replicas) > 1 else ()

    def _health(self) -> str | None:
        """Endpoints out of a pool ("http://b/v1 down (2 up)"), for the progress line."""
        note = getattr(self.job.engine, "health_note", None)
        return note() if note else None

    def _emit(self) -> None:
        self.record_endpoints()
        if self.on_progress is not None:
            self.on_progress(self.snapshot())

    def record_endpoints(self, force: bool = False) -> None:
        """A pool's per-replica health, into the store about once a second, so `workbench
        status` and the Run screen (in any process) show each replica's state."""
        status = getattr(self.job.engine, "endpoint_status", None)
        if status is None or (not force and time.monotonic() - self.endpoints_recorded < ENDPOINTS_EVERY_S):
            return
        replicas = status()
        if len(replicas) < 2:
            return
        self.endpoints_recorded = time.monotonic()
        try:
            endpoint_store.record_health(self.conn, self.job.model_id, replicas)
        except sqlite3.Error:  # a busy store costs this view a beat, never the run
            pass

    def _next(self) -> sqlite3.Row | None:
        if self.stopped_reason or self.not_exact_stop:
            return None
        if not self.local and not self.exhausted:
            # Claim no more than can be in flight: after a crash only what was being
            # answered at that moment is asked again (at most `concurrency` calls per model).
            wanted = self.budget.take(max(1, self.job.engine.concurrency - len(self.in_flight)))
            rows = (
                queue.claim(self.conn, self.study_id, self.job.model_id, self.options.stage, self.owner, wanted)
                if wanted
                else []
            )
            if len(rows) < wanted:
                # Give back what the budget granted but the queue could not fill.
                if self.budget.left is not None:
                    self.budget.left += wanted - len(rows)
                self.exhausted = True
            self.local.extend(rows)
            self.counts["pending"] -= len(rows)
            self.counts["running"] += len(rows)
        return self.local.popleft() if self.local else None

    async def run(self) -> None:
        if not self.counts["pending"] and not self.counts["running"] or self.budget.left == 0:
            # The stage shows as done, or as left to a later run (--limit is spent), with no
            # model loaded and no connection opened.
            self._emit()
            return
        # Loading a local model takes seconds with nothing to show: say so, instead of a
        # silent "0/54 · 0 tok/s" that looks stuck.
        self.waiting = "loading the model"
        self._emit()
        await self.job.engine.start()
        self.waiting = None
        self._emit()
        async with anyio.create_task_group() as group:
            for _ in range(max(1, self.job.engine.concurrency)):
                group.start_soon(self._worker)
        self._close_not_exact()
        self._emit()

    async def _worker(self) -> None:
        while (row := self._next()) is not None:
            self.in_flight.add(row["key"])
            await self._process(row)
            self.in_flight.discard(row["key"])

    async def _process(self, row: sqlite3.Row) -> None:
        key = row["key"]
        payload = json.loads(row["payload_json"])
        score = payload.get("score")  # label-probability requests are scored, not generated
        request = None if score else GenerationRequest.from_payload(payload)
        attempt = 0
        while True:
            attempt += 1
            started_at = utc_now()
            try:
                completion = await self._ask(key, attempt, score, request)
            except EngineError as exc:
                self.last_error = str(exc)
                if isinstance(exc, NotExact):
                    self._hold_not_exact(key, exc)
                    return
                if exc.stops_model:
                    self._stop(key, str(exc.args[0]))
                    return
                if exc.retryable and attempt <= self.retries:
                    queue.record_error(self.conn, key, attempt, exc.code, str(exc.args[0]))
                    delay = exc.retry_after if exc.retry_after is not None else backoff_delay(attempt, self.options)
                    # Say that (and how long) it waits: a silent wait looks like a hang.
                    self.last_error = f"{exc} — retry {attempt} of {self.retries} in {delay:.0f} s"
                    self.waiting = f"waiting {delay:.0f} s ({exc.code})" if delay >= 1 else None
                    self._emit()
                    try:
                        await anyio.sleep(delay)
                    finally:
                        self.waiting = None
                    continue
                self._fail(key, attempt, exc.code, str(exc.args[0]))
                return
            except Exception as exc:  # a bug or an unexpected library error: keep the reason
                self.last_error = f"internal: {exc.__class__.__name__}: {exc}"
                self._fail(key, attempt, "internal", f"{exc.__class__.__name__}: {exc}")
                return
            try:
                self._complete(row, completion, started_at, attempt)
            except (ValueError, TypeError, OverflowError, sqlite3.InterfaceError, sqlite3.IntegrityError) as exc:
                # The reply could not be stored as it is (a bug in cleaning it): keep the
                # reason on the request and go on; never let one reply stop the study.
                self.last_error = f"unstorable: {exc.__class__.__name__}: {exc}"
                self._fail(key, attempt, "unstorable", f"{exc.__class__.__name__}: {exc}")
                return
            self.tokens += completion.completion_tokens or 0
            self.answered += 1
            self.redacted += getattr(completion, "redacted", 0) > 0
            self.consecutive_failures = self.not_exact_streak = 0
            self.counts["running"] -= 1
            self.counts["done"] += 1
            self._emit()
            return

    async def _ask(self, key: str, attempt: int, score: dict | None, request: GenerationRequest | None):
        """One attempt at a request; what failed on one replica of a pool before another
        took it (or refused too) is recorded with the attempt, as errors it survived."""
        routed: list[tuple[str, str]] = []
        token = routed_failures.set(routed)
        try:
            if score:
                return await self.job.engine.score_labels(
                    score["prefix"], score["suffix"], score["continuations"], score["method"]
                )
            return await self.job.engine.generate(request)
        finally:
            routed_failures.reset(token)
            for code, message in routed:
                queue.record_error(self.conn, key, attempt, code, message)

    def _complete(self, row: sqlite3.Row, completion, started_at: str, attempt: int) -> None:
        queue.complete(
            self.conn,
            row["key"],
            self.owner,
            text=completion.text,
            finish_reason=completion.finish_reason,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            logprobs=completion.logprobs,
            latency_s=completion.latency_s,
            model_identity=self.job.engine.identity,
            seed=row["seed"],
            started_at=started_at,
            attempts=attempt,
            parallel=completion.parallel,
            endpoint=completion.endpoint,
            served_model=completion.served_model,
        )

    def _fail(self, key: str, attempts: int, code: str, message: str) -> None:
        queue.fail(self.conn, key, attempts, code, message)
        self.counts["running"] -= 1
        self.counts["failed"] += 1
        self.consecutive_failures += 1
        if self.consecutive_failures >= self.options.max_consecutive_failures and not self.stopped_reason:
            self.stopped_reason = (
                f"stopped after {plural(self.consecutive_failures, 'failure')} in a row (last: {code}: {message})"
            )
        self._emit()

    def _stop(self, key: str, message: str) -> None:
        """No server will answer this model (every replica refused it): stop it, its
        requests left pending for a run once one serves it, none counted as failed."""
        if not self.stopped_reason:
            self.stopped_reason = f"stopped, its requests left pending: {message}"
        released = queue.release(self.conn, [key], self.owner)
        self.counts["running"] -= released
        self.counts["pending"] += released
        self._emit()

    def _hold_not_exact(self, key: str, exc: NotExact) -> None:
        """A prompt no server can score exactly: held until the run ends, never approximated.
        When none can be (no server echoes log-probs), or many in a row could not, the model
        takes no more requests."""
        self.not_exact.append((key, exc.prompt))
        self.not_exact_reason = str(exc.args[0])
        self.not_exact_streak += 1
        if exc.stops_model:
            self.not_exact_stop = "everywhere"
        elif self.not_exact_streak >= self.options.max_consecutive_failures and not self.not_exact_stop:
            self.not_exact_stop = "in_a_row"
        self._emit()

    def _close_not_exact(self) -> None:
        """The held prompts back to pending, and the model's closing line naming them."""
        if not self.not_exact:
            return
        keys = [key for key, _ in self.not_exact]
        released = queue.release(self.conn, keys, self.owner)
        self.counts["running"] -= released
        self.counts["pending"] += released
        if not self.stopped_reason:
            prompts = [prompt for _, prompt in self.not_exact]
            left = self.counts["pending"] + self.counts["running"]
            self.stopped_reason = closing_line(
                prompts,
                self.not_exact_reason,
                left=left,
                everywhere=self.not_exact_stop == "everywhere",
                in_a_row=self.options.max_consecutive_failures if self.not_exact_stop == "in_a_row" else None,
            )
        self.not_exact = []

    def release_unfinished(self) -> None:
        keys = [row["key"] for row in self.local] + [key for key, _ in self.not_exact] + list(self.in_flight)
        self.local.clear()
        self.in_flight.clear()
        released = queue.release(self.conn, keys, self.owner)
        self.counts["running"] -= released
        self.counts["pending"] += released
