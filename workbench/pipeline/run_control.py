"""Running an audit from an interactive front end: in a thread of its own, cancellable.

The TUI calls `AuditRun.run_blocking` from a worker thread. The run gets its own
event loop and database connection; `cancel()` may be called from any thread and
cancels the run's main task, which releases its unfinished claims (nothing is
lost: the next start resumes).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.methods.study_files import load_study
from workbench.pipeline.audit import AuditSummary, prepare, run_prepared
from workbench.pipeline.run_types import Progress, RunOptions
from workbench.store.db import connect


@dataclass
class RunOutcome:
    summary: AuditSummary | None
    cancelled: bool = False
    error: str | None = None


class AuditRun:
    def __init__(
        self,
        db_path: str | Path,
        study_path: str | Path,
        on_progress: Callable[[Progress], None] | None = None,
        notify: Callable[[str], None] | None = None,
    ):
        self.db_path, self.study_path = db_path, study_path
        self.on_progress, self.notify = on_progress, notify
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._cancel_requested = threading.Event()

    def run_blocking(self) -> RunOutcome:
        """Plan and run the study; returns when it is done, cancelled or failed."""
        conn = connect(self.db_path)
        try:
            study = load_study(self.study_path)
            prepared = prepare(conn, study, notify=self.notify)
            if self._cancel_requested.is_set():
                return RunOutcome(None, cancelled=True)
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._task = loop.create_task(run_prepared(conn, prepared, RunOptions(), self.on_progress))
            try:
                summary = loop.run_until_complete(self._task)
            except asyncio.CancelledError:
                return RunOutcome(None, cancelled=True)
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()
            return RunOutcome(summary)
        except Exception as exc:  # shown to the user, never a traceback
            return RunOutcome(None, error=f"{exc.__class__.__name__}: {exc}" if not str(exc) else str(exc))
        finally:
            conn.close()

    def cancel(self) -> None:
        self._cancel_requested.set()
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)
