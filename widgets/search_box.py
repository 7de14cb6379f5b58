"""A search box over a list: a filter applied as it is typed, and a way back to the list."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class SearchBox(Input):
    """Enter, Esc or down go back to the list it filters (`results`, a selector on its screen)."""

    BINDINGS = [Binding("escape,down", "done", "Back to the list", show=False)]

    def __init__(self, results: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.results = results

    def action_done(self) -> None:
        self.screen.query_one(self.results).focus()

    def on_input_submitted(self) -> None:
        self.action_done()
