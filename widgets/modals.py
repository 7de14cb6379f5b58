"""Modal screens shared by the app: help and errors."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from workbench.literal import visible

HELP_TEXT = """\
[b]Audit Workbench[/b] — every action has a key; Ctrl+P opens the command palette.

[b]Anywhere[/b]
  1  Run screen        2  Metrics screen        F1 or ?  this help        q  quit
  Ctrl+P  command palette (every action, searchable)

[b]Run[/b] (live progress of the study's requests)
  s  start or resume the study          c  cancel (nothing is lost; s resumes)
  f  retry failed requests              the table also follows runs started
                                        elsewhere (`workbench run`) on this database

[b]Metrics[/b] (ChoiceEval: PEIR, stability, geographic log-odds)
  t  next topic filter     k  next cluster filter     r  recompute
  e  export CSV, JSON and Markdown next to the database

Model text is always shown literally: markup and escape codes are not interpreted.
Methods: see the ChoiceEval paper (Table 1 clusters; PEIR Eq. 5–6; LOR with α = 0.5).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 96; height: auto; max-height: 90%;
                                  border: round $accent; padding: 0 1; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(HELP_TEXT, id="help-text")
            yield Static("[dim]Esc closes this help.[/dim]")

    def action_dismiss(self) -> None:
        self.dismiss(None)


class ErrorModal(ModalScreen[None]):
    """An error as the user should see it: one message, literal, and a way back."""

    BINDINGS = [Binding("escape,enter", "dismiss", "Close")]
    DEFAULT_CSS = """
    ErrorModal { align: center middle; }
    ErrorModal > Vertical { width: 80%; max-width: 90; height: auto; border: round $error;
                            padding: 0 1; background: $surface; }
    ErrorModal Button { margin-top: 1; }
    """

    def __init__(self, title: str, message: str):
        super().__init__()
        self.title_text, self.message = title, message

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            yield Static(Text(visible(self.message)), id="error-message")
            yield Button("Close (Esc)", variant="error", id="close")

    def on_button_pressed(self, _event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_dismiss(self) -> None:
        self.dismiss(None)
