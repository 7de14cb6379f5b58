"""The Run screen: start, follow, cancel and retry a study's requests, live."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, RichLog, Static
from textual.worker import Worker, WorkerState

from workbench.pipeline import monitor
from workbench.pipeline.run_control import AuditRun, RunOutcome
from workbench.pipeline.run_types import Progress, redaction_note
from workbench.store.db import StoreError
from workbench.text.literal import visible
from workbench.widgets.modebar import ModeBar
from workbench.widgets.progress import ProgressRow

STATUS_COLUMNS = ("study", "model", "stage", "done", "pending", "running", "failed", "recovered")
REPLICA_COLUMNS = ("state", "answered", "failed", "in flight", "mean s", "replica")  # the long URL last
PAINT_EVERY_S = 0.25  # progress rows repaint at most this often while a run reports


def _sync_rows(table: DataTable, columns: tuple[str, ...], rows: dict[str, list[Text]]) -> None:
    """Make the table hold exactly these rows, updating cells in place (no flicker, the
    cursor keeps its row) and dropping rows no longer there."""
    for key, cells in rows.items():
        if key in table.rows:
            for column, cell in zip(columns, cells):
                table.update_cell(key, column, cell)
        else:
            table.add_row(*cells, key=key)
    for key in [k.value for k in table.rows if k.value not in rows]:
        table.remove_row(key)


class RunScreen(Screen):
    BINDINGS = [
        Binding("s", "start", "Start/resume", tooltip="Plan the study and answer what is not answered yet"),
        Binding("c", "cancel", "Cancel", tooltip="Stop the run; nothing is lost, start resumes"),
        Binding("f", "retry_failed", "Retry failed", tooltip="Run again: failed requests get another chance"),
    ]

    @dataclass
    class StatusRead(Message, bubble=False):
        """A worker read the store's request counts, replicas and errors (`monitor.snapshot`)."""

        snapshot: dict

    @dataclass
    class RunProgress(Message, bubble=False):
        """The run moved on: the latest progress of each model x stage that changed."""

        rows: dict[tuple[str, str], Progress]

    def __init__(self) -> None:
        super().__init__()
        self._run: AuditRun | None = None
        # Progress the run reported while the screen paints progress: the latest of each row,
        # for the next paint (see `_on_progress`).
        self._waiting: dict[tuple[str, str], Progress] = {}
        self._painting = False
        self._lock = threading.Lock()
        self._seen_error_id = 0

    def compose(self) -> ComposeResult:
        yield ModeBar("run")
        yield Static(id="run-title")
        yield Vertical(id="progress-rows")
        yield DataTable(id="status-table", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="replica-table", show_cursor=False, zebra_stripes=True)
        yield Label("Errors (latest last)", classes="section")
        yield RichLog(id="error-log", max_lines=500, wrap=False, markup=False, highlight=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#status-table", DataTable)
        for column in STATUS_COLUMNS:
            table.add_column(column, key=column)
        replicas = self.query_one("#replica-table", DataTable)
        for column in REPLICA_COLUMNS:
            replicas.add_column(column, key=column)
        replicas.display = False  # shown once a pool of replicas has answered
        self._show_title("idle")
        self.set_interval(1.0, self.poll_store)
        self.poll_store()

    # -- title ---------------------------------------------------------------

    def _show_title(self, state: str) -> None:
        study = self.app.study_path
        db = Path(self.app.db_path).name
        what = f"study {Path(study).name}" if study else "no study file (start the app with --study FILE)"
        self.query_one("#run-title", Static).update(
            Text(f" {what} · database {db} · {state}", no_wrap=True, overflow="ellipsis")
        )

    # -- polling the store ---------------------------------------------------

    @work(thread=True, exclusive=True, group="poll", description="Reading request counts")
    def poll_store(self) -> None:
        try:
            snap = monitor.snapshot(self.app.db_path)
        except (StoreError, sqlite3.Error):  # the store is being created or migrated: the next poll reads it
            return
        self.post_message(self.StatusRead(snap))

    def on_run_screen_status_read(self, message: StatusRead) -> None:
        snap = message.snapshot
        table = self.query_one("#status-table", DataTable)
        shown: dict[str, list[Text]] = {}
        for record in snap["status"]:
            key = f"{record['study']}|{record['model']}|{record['stage']}"
            values = [
                record["study"],
                record["model"],
                record["stage"],
                record["done"],
                record["pending"],
                record["running"],
                record["failed"],
                record["errors_survived"],
            ]
            shown[key] = [Text(visible(str(v))) for v in values]
        _sync_rows(table, STATUS_COLUMNS, shown)
        self._show_replicas(snap.get("endpoints", []))
        log = self.query_one("#error-log", RichLog)
        for error in snap["errors"]:
            if error["id"] > self._seen_error_id:
                self._seen_error_id = error["id"]
                mark = "gave up" if error["final"] else "retried"
                log.write(
                    Text(
                        visible(
                            f"{error['at'][11:19]} {error['model']} {error['stage']} "
                            f"{error['kind']} ({mark}): {error['message']}"
                        )
                    )
                )

    def _show_replicas(self, replicas: list[dict]) -> None:
        """Each replica of a pool: answers, failures, latency and state (down ones stand out)."""
        table = self.query_one("#replica-table", DataTable)
        if table.display != bool(replicas):
            table.display = bool(replicas)
        shown: dict[str, list[Text]] = {}
        for r in replicas:
            state = Text(r["state"], style="bold red" if r["state"] == "down" else "")
            latency = f"{r['mean_latency_s']:.2f}" if r["mean_latency_s"] is not None else "-"
            values = [str(r["answered"]), str(r["failed"]), str(r["in_flight"]), latency, visible(r["url"])]
            shown[f"{r['model']}|{r['url']}"] = [state] + [Text(v) for v in values]
        _sync_rows(table, REPLICA_COLUMNS, shown)

    # -- running -------------------------------------------------------------

    def _on_progress(self, progress: Progress) -> None:
        """Called from the run's thread at every answer. The first report after a quiet spell
        goes to the screen at once, as a message; while the screen paints progress (every
        PAINT_EVERY_S as long as reports come), later ones wait for its next paint, the latest
        of each row. A fast run thus posts one message, not one per answer: a message per
        answer repainted the screen some 50 times a second and slowed the run itself."""
        with self._lock:
            self._waiting[progress.model, progress.stage] = progress
            if self._painting:
                return
            self._painting = True
            rows, self._waiting = self._waiting, {}
        self.post_message(self.RunProgress(rows))

    def on_run_screen_run_progress(self, message: RunProgress) -> None:
        self._show_progress(message.rows)
        self.set_timer(PAINT_EVERY_S, self._paint_waiting)

    def _paint_waiting(self) -> None:
        """What the run reported since the last paint; once nothing waits the screen stops
        painting, and the next report comes as a message again."""
        with self._lock:
            rows, self._waiting = self._waiting, {}
            self._painting = bool(rows)
        if rows:
            self._show_progress(rows)
            self.set_timer(PAINT_EVERY_S, self._paint_waiting)

    def _show_progress(self, updates: dict[tuple[str, str], Progress]) -> None:
        rows = self.query_one("#progress-rows", Vertical)
        for (model, stage), progress in updates.items():
            row_id = "p-" + str(abs(hash((model, stage))))
            try:
                row = rows.query_one(f"#{row_id}", ProgressRow)
            except NoMatches:
                row = ProgressRow(f"{stage} · {model}", id=row_id)  # the stage first: a long model name is cut, not it
                rows.mount(row)
            row.show(progress)

    def action_start(self) -> None:
        if self.app.study_path is None:
            self.notify("No study file: start the app with `workbench tui --study FILE --db DB`.", severity="error")
            return
        if self._run is not None:
            self.notify("A run is already going; c cancels it.")
            return
        self._run = AuditRun(
            self.app.db_path,
            self.app.study_path,
            on_progress=self._on_progress,
            notify=self.notify,  # thread-safe: a toast is a message to the app
        )
        self._show_title("running")
        self.run_audit()

    def action_retry_failed(self) -> None:
        self.action_start()

    @work(thread=True, exclusive=True, group="run", description="Running the study", exit_on_error=False)
    def run_audit(self) -> RunOutcome:
        assert self._run is not None
        return self._run.run_blocking()

    def on_unmount(self) -> None:
        # Quitting the app stops the run (resumable) rather than leaving it decoding behind a
        # blank terminal until it ends.
        if self._run is not None:
            self._run.cancel()

    def action_cancel(self) -> None:
        if self._run is None:
            self.notify("Nothing is running.")
            return
        self._run.cancel()
        self._show_title("cancelling…")

    @on(Worker.StateChanged)
    def _run_finished(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "run" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        self._run = None
        outcome: RunOutcome | None = event.worker.result if event.state == WorkerState.SUCCESS else None
        with self._lock:  # the last reports, on view before the title says the run ended
            rows, self._waiting = self._waiting, {}
        self._show_progress(rows)
        self.poll_store()
        if outcome is None or outcome.error:
            message = outcome.error if outcome else str(event.worker.error)
            self._show_title("stopped by an error")
            self.app.show_error("The run stopped", message)
        elif outcome.cancelled:
            self._show_title("cancelled — s resumes")
            self.notify("Run cancelled; nothing was lost. Press s to resume.")
        else:
            summary = outcome.summary
            state = f"finished: {summary.failed} failed" if summary and summary.failed else "finished"
            # A model that stopped (no server answers it, prompts it cannot score as asked) says why.
            stopped = [
                f"{p.model}: {p.stopped_reason}" for p in (summary.progress if summary else []) if p.stopped_reason
            ]
            if stopped:
                state = f"stopped: {summary.pending} requests pending"
                self.app.show_error("A model stopped", "\n".join(stopped))
            self._show_title(state)
            self.notify(f"Run {state}.")
            if note := redaction_note(summary.progress if summary else []):
                self.notify(note, severity="warning", markup=False)
