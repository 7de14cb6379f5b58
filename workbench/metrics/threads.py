"""Independent computations spread over a few threads, in order, in the caller's context.

The bootstrap's draws (numpy's multinomial) release the GIL, so the log-odds intervals of
several model x topics are drawn at once on as many cores; every one of them seeds its own
generator, so the numbers do not depend on which thread drew them or when. The caller's
context (the number of resamples `--boot` set, a ContextVar) goes with each task: a new
thread would otherwise read the default."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from workbench.cores import usable_cores

T = TypeVar("T")
R = TypeVar("R")

# Past a few threads the Python between the draws (holding the GIL) is what waits.
MAX_THREADS = 4


def map_in_threads(work: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`[work(item) for item in items]`, on up to MAX_THREADS threads (one per core)."""
    items = list(items)
    threads = min(len(items), usable_cores(), MAX_THREADS)
    if threads < 2:
        return [work(item) for item in items]
    context = contextvars.copy_context()
    pool = ThreadPoolExecutor(threads, thread_name_prefix="metrics")
    try:
        # a context cannot be entered by two threads at once: each task runs in a copy
        return list(pool.map(lambda item: context.copy().run(work, item), items))
    finally:
        # Ctrl-C (or a task's error): the tasks not started are dropped, not all run first
        pool.shutdown(wait=True, cancel_futures=True)
