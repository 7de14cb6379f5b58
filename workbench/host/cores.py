"""How many cores this process may run on.

`os.cpu_count()` counts the machine's cores; a process pinned to some of them (taskset, a
container's cpuset, a test worker given one core) runs on fewer. llama.cpp's threads wait
for each other at every step by spinning: one more thread than the cores there are makes a
decode several times slower (a 90 s run took 334 s beside one other busy process), so every
thread count here starts from the cores this process has."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform (macOS, Windows)
        return max(1, os.cpu_count() or 1)
