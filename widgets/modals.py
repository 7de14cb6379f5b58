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
[b]Audit Workbench[/b]: every action has a key; Ctrl+P finds them all.

[b]Anywhere[/b]
  1        Run screen
  2        Metrics screen
  3        Design screen
  4        Review screen
  5        Entities screen
  F1, ?    this help
  Ctrl+P   command palette (search every action)
  q        quit

[b]Run[/b]: live progress of the study's requests
  s        start, or resume where it stopped
  c        cancel (nothing is lost; s resumes)
  f        retry the failed requests
  The table also follows a `workbench run` started
  elsewhere on the same database.

[b]Design[/b]: the study's questions, clusters and models
  v        verify / unverify     e   edit (question, definition, model)
  a        add a question or a model     d   drop a model
  n        new topic (its questions are generated with g)
  g        generate questions    t   test the model
  w        save the study file (the old one becomes .bak)
  Identity studies: the template editor, with a preview
  of sampled prompts as you type; Ctrl+S saves it,
  Ctrl+R draws other samples, Esc leaves the text.

[b]Review[/b]: one response at a time
  a accept   e edit   x reject (recommends nothing)
  n / p      next / previous      u   undo your latest verdict
  f          filter: unreviewed, expert disagreements, all, sample
  t / o      only one topic / one model (cycle)
  b          transparency-probe labels (identity studies):
             a admits  d denies  x unclear  u undo  Esc back
  c          cold-start catalog matches: e correct the entry,
             x not in catalog, n/p lists, u undo, f filter

[b]Entities[/b]: suggested merges, strict to lax
  a merge    e choose the name, then merge    x forbid
  s skip     u undo    r re-cluster    m method
  d drop members before merging    g region for every member
  z min size   c min score   y redo

[b]Metrics[/b]: ChoiceEval tables, models side by side
  t        next topic        k   next cluster
  r        recompute         e   export CSV, JSON, Markdown
  m        cold-start chart: IOU / SERP / PRAG divergence

Model text is shown literally: markup and escape codes
are never interpreted. What every number means: docs/methods.md in the repository
(ChoiceEval: PEIR Eq. 5-6, log-odds with alpha = 0.5).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 64; max-width: 100%; height: auto; max-height: 90%;
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
