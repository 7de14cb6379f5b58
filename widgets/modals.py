"""Modal screens shared by the app: errors, a line of text, a choice of members, a region,
a reviewer's decisions (the help is widgets/help.py)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, DataTable, Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from workbench.store.entities.regions import RegionError, canonical_region
from workbench.text.literal import visible, visible_line


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


class EditText(ModalScreen[str | None]):
    """Edit one line of text (a question, a definition, a model spec); Enter saves, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    EditText { align: center middle; }
    EditText > Vertical { width: 90%; height: auto; border: round $accent; padding: 0 1;
                              background: $surface; }
    """

    def __init__(self, prompt: str, text: str = "", context: str = ""):
        super().__init__()
        self.prompt, self.text, self.context = prompt, text, context  # context: what to edit from

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.context:
                yield Static(Text(visible(self.context), style="dim"), id="edit-context")
            yield Label(Text(visible(f"{self.prompt} (Enter saves, Esc cancels)")))
            yield Input(self.text, id="edit-input", select_on_focus=False)

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.focus()
        field.cursor_position = len(self.text)

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickMembers(ModalScreen[list[str] | None]):
    """Choose which members of a suggested cluster to merge: all are ticked; space
    unticks one, Enter merges the ticked ones, Esc leaves the cluster as it was.
    A list of names, not a text to split, so no name can be mistyped or invented."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("enter", "keep", "Keep the ticked ones", priority=True)]
    DEFAULT_CSS = """
    PickMembers { align: center middle; }
    PickMembers > Vertical { width: 90%; height: auto; max-height: 90%; border: round $accent; padding: 0 1;
                             background: $surface; }
    PickMembers SelectionList { height: auto; max-height: 16; }
    """

    def __init__(self, members: list[str], notes: list[str] | None = None):
        super().__init__()
        self.members = members
        self.notes = notes or [""] * len(members)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Members to merge (space unticks, Enter keeps the ticked ones, Esc cancels)")
            yield SelectionList[int](
                *(
                    Selection(Text(visible_line(m) + (f"  ({n})" if n else "")), i, True)
                    for i, (m, n) in enumerate(zip(self.members, self.notes))
                )
            )

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_keep(self) -> None:
        chosen = sorted(self.query_one(SelectionList).selected)
        self.dismiss([self.members[i] for i in chosen])

    def action_cancel(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes-or-no question: y (or the Yes button) answers yes; n or Esc answers no."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]
    DEFAULT_CSS = """
    Confirm { align: center middle; }
    Confirm > Vertical { width: 80%; max-width: 90; height: auto; border: round $warning; padding: 0 1;
                         background: $surface; }
    Confirm #confirm-question { width: 100%; }
    Confirm Horizontal { height: auto; margin-top: 1; }
    Confirm Button { margin-right: 2; }
    """

    def __init__(self, question: str):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(visible(self.question)), id="confirm-question")
            with Horizontal():
                yield Button("Yes (y)", variant="warning", id="yes")
                yield Button("No (n, Esc)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # Enter on its own does not say yes

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class PickRegion(ModalScreen[tuple[str, bool] | None]):
    """The region for some entities: a known region, completed as it is typed (Tab or
    the right arrow takes the completion) and written in its one spelling ("usa" is the
    United States); a region not known yet is used only once the user confirms adding
    it, so a typo does not become a region. Dismisses with (region, whether it is new)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("tab", "complete", "Complete", priority=True)]
    DEFAULT_CSS = """
    PickRegion { align: center middle; }
    PickRegion > Vertical { width: 90%; height: auto; border: round $accent; padding: 0 1;
                            background: $surface; }
    PickRegion .region-text { width: 100%; }
    PickRegion #region-keys { color: $text-muted; }
    """

    def __init__(self, known: list[str], count: int):
        super().__init__()
        self.known, self.count = known, count

    def compose(self) -> ComposeResult:
        # Short lines that wrap: the title once ran past an 80-column terminal and was cut.
        with Vertical():
            yield Static(
                Text(f"Region for {self.count} entit{'y' if self.count == 1 else 'ies'}", style="bold"),
                id="region-title",
                classes="region-text",
            )
            yield Static(Text(visible("Known: " + ", ".join(self.known))), id="region-known", classes="region-text")
            yield Static(
                "Tab completes · Enter saves · Esc cancels · a new region is asked about",
                id="region-keys",
                classes="region-text",
            )
            yield Input(
                id="region-input",
                placeholder="e.g. Europe",
                suggester=SuggestFromList(self.known, case_sensitive=False),
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_complete(self) -> None:
        field = self.query_one(Input)
        field.cursor_position = len(field.value)
        field.action_cursor_right()  # at the end, this takes the suggestion shown

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        try:
            region = canonical_region(event.value, self.known)
        except RegionError as exc:
            typed, close = exc.value, f" (the closest known region is {exc.suggestion})" if exc.suggestion else ""
            self.app.push_screen(
                Confirm(f"{typed!r} is not a known region{close}. Add new region {typed!r}?"),
                lambda yes: self._added(typed, yes),
            )
            return
        self.dismiss(None if region is None else (region, False))

    def _added(self, region: str, yes: bool | None) -> None:
        if yes:
            self.dismiss((region, True))
        else:  # back to the text, to mend it
            self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmUnsaved(ModalScreen[str | None]):
    """Unsaved changes on the way out (to another screen, or quitting): save them, discard
    them, or stay. Answers "save", "discard", or None (stay: the changes kept as they are)."""

    BINDINGS = [
        Binding("s", "answer('save')", "Save"),
        Binding("d", "answer('discard')", "Discard"),
        Binding("escape,c", "answer('cancel')", "Cancel"),
    ]
    DEFAULT_CSS = """
    ConfirmUnsaved { align: center middle; }
    ConfirmUnsaved > Vertical { width: 80%; max-width: 70; height: auto; border: round $warning;
                                padding: 0 1; background: $surface; }
    ConfirmUnsaved Horizontal { height: auto; margin-top: 1; }
    ConfirmUnsaved Button { margin-right: 1; }
    """

    def __init__(self, what: str, leaving: str):
        super().__init__()
        self.what, self.leaving = what, leaving  # "the template", "quitting"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(visible(f"Unsaved changes to {self.what}"), style="bold"))
            yield Static(Text(visible(f"Save them before {self.leaving}?")), id="unsaved-question")
            with Horizontal():
                yield Button("Save (s)", variant="primary", id="save")
                yield Button("Discard (d)", variant="error", id="discard")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()  # Enter alone neither writes nor loses anything

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or "cancel")

    def action_answer(self, choice: str) -> None:
        self.dismiss(None if choice == "cancel" else choice)


class DecisionList(ModalScreen[None]):
    """One reviewer's decisions, latest first, with their state: `u` takes back the latest
    one still standing, `y` makes again the latest taken back (the caller's undo and redo:
    the store decides what can be), Esc closes. `show` puts the rows read afresh."""

    BINDINGS = [
        Binding("escape,h", "close", "Close"),
        Binding("u", "undo", "Undo"),
        Binding("y", "redo", "Redo"),
    ]
    DEFAULT_CSS = """
    DecisionList { align: center middle; }
    DecisionList > Vertical { width: 90%; height: auto; max-height: 90%; border: round $accent; padding: 0 1;
                              background: $surface; }
    DecisionList DataTable { height: auto; max-height: 20; }
    DecisionList #decisions-keys { color: $text-muted; }
    """

    def __init__(self, title: str, rows: list[dict], undo: Callable[[], None], redo: Callable[[], None]):
        super().__init__()
        self.title_text, self.rows, self.undo, self.redo = title, rows, undo, redo

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(visible(self.title_text), style="bold"), id="decisions-title")
            yield DataTable(id="decisions-table", cursor_type="row", zebra_stripes=True)
            yield Static("u undoes your latest · y redoes · Esc closes", id="decisions-keys")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for column in ("#", "at", "action", "state", "summary"):
            table.add_column(column, key=column)
        self.show(self.rows)
        table.focus()

    def show(self, rows: list[dict]) -> None:
        self.rows = rows
        table = self.query_one(DataTable)
        table.clear()
        for row in rows:
            table.add_row(
                str(row["id"]),
                str(row["at"])[:16].replace("T", " "),
                row["action"],
                row["state"],
                Text(visible_line(row["summary"])[:200]),
            )
        if not rows:
            table.add_row("", "", "", "", Text("No decisions yet.", style="dim"))

    def action_undo(self) -> None:
        self.undo()

    def action_redo(self) -> None:
        self.redo()

    def action_close(self) -> None:
        self.dismiss(None)
