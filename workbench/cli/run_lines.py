"""Progress as plain lines where the console is no terminal (a pipe, a CI log, `| tee`).

There rich's bars draw nothing until the run ends: a run of a minute or more on a local model
showed nothing at all until its last line. Every INTERVAL_S seconds a stage that moved says
where it is in one line; a run shorter than that prints no line more than before.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console

from workbench.text.literal import literal_text

INTERVAL_S = 10.0


class ProgressLines:
    def __init__(self, console: Console, clock=time.monotonic) -> None:
        self.console, self.clock = console, clock
        self.started = clock()
        self.said: dict[Any, tuple[float, int]] = {}  # (model, stage) -> (when, how many done) last said

    def __call__(self, p) -> None:
        now, done = self.clock(), p.done + p.failed
        when, said = self.said.get((p.model, p.stage), (self.started, 0))
        if now - when < INTERVAL_S or done == said:
            return
        self.said[p.model, p.stage] = (now, done)
        failed = f" · {p.failed} failed" if p.failed else ""
        self.console.print(
            literal_text(f"{p.stage} · {p.model}: {done}/{p.total} done{failed} · {p.rate_text} · {p.eta_text}"),
            soft_wrap=True,
        )
