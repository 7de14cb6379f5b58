"""What a run is asked and what it reports: its options, one job per model, each model's
progress as it goes and the summary at the end (the runner, workbench/pipeline/runner.py, drains
the queue; the command line, the app and the progress widgets read these)."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.engines.base import Engine


@dataclass
class RunOptions:
    stage: str = "answer"
    limit: int | None = None  # most requests to send in this run, over all models (and stages: run_prepared)
    retries: int = 4  # attempts after the first
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 30.0
    # A model whose requests fail this many times in a row, with no success in
    # between, is stopped: its server is down or misconfigured, and retrying the
    # remaining requests would only waste the user's time.
    max_consecutive_failures: int = 20


@dataclass
class ModelJob:
    model_id: int
    label: str  # how the user named the model
    engine: Engine
    retries: int | None = None  # overrides RunOptions.retries for this model


@dataclass
class Progress:
    """Where one model's stage stands; emitted after every answered or failed request."""

    model: str
    stage: str
    done: int
    failed: int
    pending: int
    running: int
    tokens: int  # generated in this run
    elapsed_s: float
    answered_this_run: int
    last_error: str | None = None
    finished: bool = False
    stopped_reason: str | None = None
    waiting: str | None = None  # "waiting 30 s (http_429)" while a retry waits
    # a pool's replicas (url, state, done, failed, in_flight, latency_s), for the progress display
    endpoints: tuple[dict, ...] = ()
    budget_left: int | None = None  # requests --limit lets this run still take (shared by its models)
    redacted: int = 0  # answers of this run the API key was taken out of (a server echoed it)

    @property
    def total(self) -> int:
        return self.done + self.failed + self.pending + self.running

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def rate_text(self) -> str:
        """The speed as a reader needs it: tokens per second while text is generated,
        items per second for scoring (which generates none), nothing to say when this
        run answered nothing (a stage finished earlier shows no "0 tok/s")."""
        if self.tokens and self.elapsed_s > 0:
            return f"{self.tokens_per_s:.0f} tok/s"
        if self.answered_this_run and self.elapsed_s > 0:
            return f"{self.answered_this_run / self.elapsed_s:.1f} items/s"
        return "-"

    @property
    def left_this_run(self) -> int:
        """What this run will still process: what it holds, and what --limit lets it take."""
        waiting = self.pending if self.budget_left is None else min(self.pending, self.budget_left)
        return self.running + waiting

    @property
    def eta_s(self) -> float | None:
        """Seconds until this run ends (at --limit, not the study's end), None before a rate."""
        remaining = self.left_this_run
        if remaining == 0:
            return 0.0
        if self.answered_this_run == 0 or self.elapsed_s <= 0:
            return None
        return remaining * self.elapsed_s / self.answered_this_run

    @property
    def eta_text(self) -> str:
        """ "ETA 12 s", said to be --limit's end when the limit stops the run before the stage's end."""
        from workbench.display.rich_tables import fmt_eta

        capped = self.budget_left is not None and self.pending > self.budget_left
        if capped and self.left_this_run == 0:  # the limit is spent: this stage waits for a later run
            return "next run (--limit)"
        return f"ETA {fmt_eta(self.eta_s)}" + (" to --limit" if capped else "")


@dataclass
class RunSummary:
    progress: list[Progress] = field(default_factory=list)
    cancelled: bool = False

    @property
    def failed(self) -> int:
        return sum(p.failed for p in self.progress)

    @property
    def pending(self) -> int:
        return sum(p.pending + p.running for p in self.progress)


def redaction_note(progress: list[Progress]) -> str | None:
    """What a run changed in answers (the API key a server echoed), said at its end: never silent."""
    from workbench.text.words import plural

    redacted = sum(p.redacted for p in progress)
    if not redacted:
        return None
    return f"{plural(redacted, 'answer')} held the API key (the server echoed it); it is stored as [redacted]."
