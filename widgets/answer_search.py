"""The Review screen's search across answers: a query typed in a small dialog, checked
before it is used (a query the index cannot read is said in one line, and the dialog stays)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from workbench.text.literal import visible


class AnswerSearch(ModalScreen[str | None]):
    """Dismissed with the query ("" clears the search), or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    AnswerSearch { align: center middle; }
    AnswerSearch > Vertical { width: 96%; height: auto; border: round $accent; padding: 0 1;
                              background: $surface; }
    AnswerSearch #answer-search-error { color: $error; }
    AnswerSearch #answer-search-keys { color: $text-muted; }
    """

    def __init__(self, query: str, check: Callable[[str], str | None]) -> None:
        super().__init__()
        self.query_text, self.check = query, check

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Search the answers")
            yield Input(self.query_text, placeholder='words, "a phrase", prefix*, OR, NOT', id="answer-search-input")
            yield Static(id="answer-search-error")
            yield Static("Enter searches (empty: every answer) · Esc cancels", id="answer-search-keys")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        problem = self.check(query) if query else None
        if problem:
            self.query_one("#answer-search-error", Static).update(Text(visible(problem)))
            return
        self.dismiss(query)

    def action_cancel(self) -> None:
        self.dismiss(None)
