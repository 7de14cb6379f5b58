"""Independent computations spread over a few threads (or, for a command that computes once
and exits, forked processes), in order, in the caller's context.

The bootstrap's draws (numpy's multinomial) release the GIL, so the log-odds intervals of
several model x topics are drawn at once on as many cores; every one of them seeds its own
generator, so the numbers do not depend on which thread drew them or when. The caller's
context (the number of resamples `--boot` set, a ContextVar) goes with each task: a new
thread would otherwise read the default.

Most of a model x topic's numbers are many small numpy calls with Python between them, which
hold the GIL: two threads on two cores took about as long as one. `in_processes()` lets a
command line (`workbench metrics`) hand the model x topics to forked processes instead, which
share the loaded counts without copying them (fork's copy on write) and send back only the
records. The app keeps threads: a forked copy of a running Textual app is not safe."""

from __future__ import annotations

import contextvars
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from workbench.host.cores import usable_cores

T = TypeVar("T")
R = TypeVar("R")

# Past a few threads the Python between the draws (holding the GIL) is what waits.
MAX_THREADS = 4

_PROCESSES: contextvars.ContextVar[bool] = contextvars.ContextVar("metrics_in_processes", default=False)
_SPLIT_LOAD: contextvars.ContextVar[bool] = contextvars.ContextVar("metrics_split_load", default=False)
# Inside a forked worker: one thread (the other cores are its siblings').
_INSIDE_WORKER: contextvars.ContextVar[bool] = contextvars.ContextVar("metrics_inside_worker", default=False)
# What the forked workers run: set before the fork, so each worker has it without pickling
# the work (a closure over the loaded counts) or the items.
_TASK: tuple[Callable[[Any], Any], list, contextvars.Context] | None = None


@contextmanager
def in_processes(split_load: bool = False) -> Iterator[None]:
    """`map_in_threads` inside forks processes where the platform can (Linux, macOS).
    `split_load`: a study's lists may be read by the workers too, each its share
    (`split_load_wanted`): for a command that computes once, not one that reads them again
    (a report asks for the metrics several times, from the lists loaded once)."""
    tokens = _PROCESSES.set(True), _SPLIT_LOAD.set(split_load)
    try:
        yield
    finally:
        _PROCESSES.reset(tokens[0])
        _SPLIT_LOAD.reset(tokens[1])


def workers() -> int:
    """How many threads or processes `map_in_threads` would use at most."""
    return min(usable_cores(), MAX_THREADS)


def split_load_wanted() -> bool:
    """Whether forked workers may read and count a study's lists themselves, each its share."""
    return _SPLIT_LOAD.get() and _PROCESSES.get() and hasattr(os, "fork") and workers() >= 2


def map_in_threads(work: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`[work(item) for item in items]`, on up to MAX_THREADS threads (one per core), or
    processes under `in_processes`."""
    items = list(items)
    count = min(len(items), workers())
    if count < 2 or _INSIDE_WORKER.get():
        return [work(item) for item in items]
    context = contextvars.copy_context()
    if _PROCESSES.get() and hasattr(os, "fork"):
        return _map_in_processes(work, items, count, context)
    pool = ThreadPoolExecutor(count, thread_name_prefix="metrics")
    try:
        # a context cannot be entered by two threads at once: each task runs in a copy
        return list(pool.map(lambda item: context.copy().run(work, item), items))
    finally:
        # Ctrl-C (or a task's error): the tasks not started are dropped, not all run first
        pool.shutdown(wait=True, cancel_futures=True)


def _map_in_processes(work: Callable[[T], R], items: list[T], workers: int, context) -> list[R]:
    global _TASK
    _TASK = (work, items, context)
    try:
        # fork, not spawn: the workers inherit the counts already in memory
        with multiprocessing.get_context("fork").Pool(workers, initializer=_leave_interrupts) as pool:
            # small chunks: model x topics differ in size, and a worker left idle is a core lost
            return pool.map(_run, range(len(items)), chunksize=max(1, len(items) // (workers * 8)))
    finally:
        _TASK = None


def _leave_interrupts() -> None:
    """Ctrl-C reaches every process of the terminal's group: the command stops the workers
    itself (the pool is terminated) and says so once, without a traceback per worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(index: int) -> Any:
    work, items, context = _TASK
    return context.run(_alone, work, items[index])


def _alone(work: Callable[[T], R], item: T) -> R:
    """A worker's task: what it spreads, it runs itself (a pool's worker may not fork, and
    the other cores are its siblings')."""
    _PROCESSES.set(False)
    _SPLIT_LOAD.set(False)
    _INSIDE_WORKER.set(True)
    return work(item)
