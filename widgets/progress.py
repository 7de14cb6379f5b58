"""One model x stage of a run on screen: a bar and its numbers."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widgets import Label, ProgressBar

from workbench.pipeline.run_types import Progress
from workbench.text.literal import visible


class ProgressRow(Horizontal):
    """One model x stage: a bar and its numbers."""

    DEFAULT_CSS = """
    ProgressRow { height: 1; }
    ProgressRow > .name { width: 22; }
    ProgressRow > ProgressBar { width: 16; }
    /* The bar inside is 32 cells by default: clipped to 16 it showed twice the progress. */
    ProgressRow > ProgressBar > Bar { width: 1fr; }
    ProgressRow > .numbers { width: 1fr; }
    """

    def __init__(self, title: str, **kwargs):
        super().__init__(**kwargs)
        self.title = title
        self._latest: Progress | None = None

    def compose(self) -> ComposeResult:
        yield Label(Text(visible(self.title), overflow="ellipsis", no_wrap=True), classes="name")
        yield ProgressBar(show_eta=False, show_percentage=False)
        yield Label("", classes="numbers")

    def on_mount(self) -> None:
        if self._latest is not None:
            self.show(self._latest)

    def show(self, p: Progress) -> None:
        self._latest = p
        try:
            bar, numbers = self.query_one(ProgressBar), self.query_one(".numbers", Label)
        except NoMatches:  # not composed yet: on_mount paints the latest
            return
        bar.update(total=max(p.total, 1), progress=p.done + p.failed)
        numbers.update(
            Text(
                f" {p.done}/{p.total} · {p.failed} failed · {p.rate_text} · {p.eta_text}"
                + (f" · {p.waiting}" if p.waiting else "")
            )
        )
