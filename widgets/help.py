"""The app's help (F1, ?): the core's keys per screen, each method's own spliced into its screen's section."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP_TEXT = """\
[b]Audit Workbench[/b]: every action has a key;
Ctrl+P finds them all.

[b]Anywhere[/b]
  1        Run screen
  2        Metrics screen
  3        Design screen
  4        Review screen
  5        Entities screen
  F1, ?    this help
  Ctrl+P   command palette (search every action)
  q        quit
  Metrics, Review and Entities follow the store while
  shown: a change made elsewhere (another terminal, a
  headless command) shows within a second, the old
  numbers dimmed until the new ones arrive.

[b]Run[/b]: live progress of the study's requests
  s        start, or resume where it stopped
  c        cancel (nothing is lost; s resumes)
  f        retry the failed requests
  The table also follows a `workbench run` started
  elsewhere on the same database.

[b]Design[/b]: the study, as its method edits it
  A method with no Design screen of its own: its studies
  are edited in their file.

[b]Review[/b]: one response at a time
  a accept   e edit   x reject (recommends nothing)
  n / p      next / previous    u   undo your verdict
  e          the list as items: Enter adds a name (Tab
             completes a known one), ↓ to the list, Del
             removes, Shift+↑/↓ moves, Ctrl+S saves
  \\[ / ]      adjudicate two reviewers' disagreement: take
             the first's / the second's list (e: your own)
  f          filter: unreviewed, expert disagreements,
             reviewer disagreements (to adjudicate),
             resolved, all, the validation sample (blind:
             a second reviewer sees the machine's list
             only), the validation sample open (the
             first reviewer's; agreement and kappa show
             under the progress)
  A verdict counts for the list as shown: changed
  meanwhile, it is refused and the list shown again.
  t / o      only one topic / one model (cycle)
  /          search the answers: words, "a phrase",
             prefix*, OR, NOT (Enter on empty: all)

[b]Entities[/b]: suggested merges strict to lax, or every entity
  a merge    e choose the name, then merge    x forbid
  s skip     d choose the members to merge    m method
  z min size   c min score   r read again, re-cluster
  /        search every entity (names and spellings)
  v        the suggestions, or every entity
  space    mark the entity (or the cluster's members);
           a merges the marked ones (the name asked)
  g        region for the marked ones, else the row
  u / y    undo / redo your own latest decision
  h        your decisions, latest first (u undoes)

[b]Metrics[/b]: each method's tables, models side by side
  r        recompute         e   export CSV, JSON, MD
  c        compare two models of a study: pick A and B,
           see B - A paired over what both answered, its
           interval and unit, p, Holm p (Esc leaves it)
  Enter    on a number (Tab to a table, arrows to the
           cell): the answers behind it, the counted
           names highlighted (Esc: back to the same cell)

Model text is shown literally: markup and escape codes
are never interpreted. What every number means:
docs/methods.md in the repository; entities:
docs/entities.md.
"""


# The Design section without a study file (`workbench tui --db DB`): nothing is edited there.
NO_STUDY_DESIGN = """\
[b]Design[/b]: the study, as its method edits it
  No study file: the database's questions, clusters and
  models, read-only. To edit a study, open its file:
  workbench tui --db DB --study FILE.toml"""


def help_text(methods: list[str] | None = None, study_file: bool = True) -> str:
    """HELP_TEXT with each method's lines (its `help_sections` hook; only the `methods` named,
    those of the store's studies, when given) after the core's in the section of their
    screen; a section no screen of the core has comes before the last paragraph, under its own
    heading. Without a `study_file` the Design section says what that screen shows instead."""
    from workbench.methods import hooks

    added = hooks.help_sections(methods)
    blocks = HELP_TEXT.rstrip("\n").split("\n\n")
    for i, block in enumerate(blocks):
        heading = block.split("[/b]", 1)[0].removeprefix("[b]")
        if not study_file and heading == "Design":
            blocks[i] = NO_STUDY_DESIGN
            added.pop(heading, None)
        elif block.startswith("[b]") and heading in added:
            blocks[i] = "\n".join([block, *added.pop(heading)])
    own = ["\n".join([f"[b]{section}[/b]", *lines]) for section, lines in added.items()]
    return "\n\n".join([*blocks[:-1], *own, blocks[-1]]) + "\n"


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 64; max-width: 100%; height: auto; max-height: 90%;
                                  border: round $accent; padding: 0 1; background: $surface; }
    """

    def __init__(self, section: str | None = None, methods: list[str] | None = None, study_file: bool = True):
        super().__init__()
        self.section = section  # "Entities": open at the keys of the screen the user is on
        self.text = help_text(methods, study_file)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.text, id="help-text")
            yield Static("[dim]Esc closes this help.[/dim]")

    def on_mount(self) -> None:
        if self.section:
            lines = self.text.splitlines()
            start = next((i for i, line in enumerate(lines) if line.startswith(f"[b]{self.section}[/b]")), 0)
            self.call_after_refresh(self.query_one(VerticalScroll).scroll_to, y=start, animate=False)

    def action_dismiss(self) -> None:
        self.dismiss(None)
