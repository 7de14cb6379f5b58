"""A ranked list of names edited as items: add (completed from the names the store knows),
remove, move up and down. A name is never split on a comma: "The second brand, Nike" is
one name. Dismisses with the list, best first, or None when cancelled. A `vet` may hold a
save back once (the list it edits changed meanwhile): the editor stays open with what was
typed, what it says shown above, and the next save goes through. Given the `answer` it
judges, the editor fills the screen with the answer above the list (a split, not a box over
the answer: at 80x24 a box hid what the list is checked against); PgUp/PgDn scroll it."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, OptionList, Static

from workbench.store.review.base import repeated
from workbench.text.literal import visible_line

KEYS = "Enter adds · ↓ the list · Del removes · Shift+↑/↓ moves · Ctrl+S saves · Esc cancels"
ANSWER_KEYS = "PgUp/PgDn scroll the answer · " + KEYS


class KnownNames(Suggester):
    """Completes a name from the names the store knows (entities and their spellings), the
    first known name that starts with what is typed, case ignored; more may come later."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.names: dict[str, str] = {}
        self.extend(names)

    def extend(self, names: list[str]) -> None:
        for name in names:
            self.names.setdefault(name.casefold(), name)

    async def get_suggestion(self, value: str) -> str | None:
        # `value` arrives casefolded (case_sensitive=False)
        return next((name for key, name in self.names.items() if key.startswith(value)), None)


class ListEditor(ModalScreen[list[str] | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("tab", "complete", "Complete", priority=True, show=False),
        # Keys the text field leaves to the list (the list's own arrows move its highlight).
        Binding("down", "to_list", "The list", show=False),
        Binding("delete,backspace", "remove", "Remove", show=False),
        Binding("shift+up", "move(-1)", "Move up", show=False),
        Binding("shift+down", "move(1)", "Move down", show=False),
        Binding("pageup", "scroll_answer(-1)", "Answer up", show=False, priority=True),
        Binding("pagedown", "scroll_answer(1)", "Answer down", show=False, priority=True),
    ]
    DEFAULT_CSS = """
    ListEditor { align: center middle; }
    ListEditor > Vertical { width: 96%; height: auto; max-height: 100%; border: round $accent;
                            padding: 0 1; background: $surface; }
    ListEditor #list-context { height: auto; max-height: 8; }
    ListEditor #list-changed { height: auto; max-height: 10; display: none; }
    ListEditor #list-changed.shown { display: block; }
    ListEditor #list-items { height: auto; max-height: 8; min-height: 1; border: none; padding: 0; }
    ListEditor #list-items:focus { background-tint: $foreground 5%; }
    ListEditor #list-keys { color: $text-muted; }
    ListEditor > Vertical.with-answer { width: 100%; height: 100%; }
    ListEditor #list-answer { height: 1fr; min-height: 4; border-bottom: solid $accent; }
    ListEditor .with-answer #list-context { max-height: 5; }
    ListEditor .with-answer #list-items { max-height: 5; }
    """

    def __init__(
        self,
        title: str,
        names: list[str],
        context: RenderableType | None = None,
        known: list[str] | None = None,
        check: Callable[[str], str | None] | None = None,
        vet: Callable[[list[str]], RenderableType | None] | None = None,
        answer: RenderableType | None = None,
    ) -> None:
        super().__init__()
        self.answer = answer  # shown above the list, the rest of the screen's height
        self.title, self.names, self.context = title, list(names), context
        self.check = check  # the reason a name is refused, or None
        self.vet = vet  # on saving: what holds the list back (shown; the next save is vetted again), or None
        self._suggester = KnownNames(known or [])

    def compose(self) -> ComposeResult:
        with Vertical(classes="with-answer" if self.answer is not None else ""):
            if self.answer is not None:
                with VerticalScroll(id="list-answer", can_focus=False):
                    yield Static(self.answer, id="list-answer-text")
            if self.context is not None:
                yield Static(self.context, id="list-context")
            yield Static(id="list-changed")
            yield Static(Text(visible_line(self.title), style="bold"), id="list-title")
            yield OptionList(id="list-items")
            yield Input(id="list-input", placeholder="a name to add", suggester=self._suggester, compact=True)
            yield Static(KEYS if self.answer is None else ANSWER_KEYS, id="list-keys", markup=False)

    def on_mount(self) -> None:
        self._fill(0)
        self.query_one(Input).focus()

    def know(self, names: list[str]) -> None:
        """More names to complete from (read after the editor opened)."""
        self._suggester.extend(names)

    def _fill(self, highlight: int | None) -> None:
        items = self.query_one(OptionList)
        items.clear_options()
        items.add_options([Text(f"{n}. {visible_line(name)}") for n, name in enumerate(self.names, start=1)])
        if not self.names:
            items.add_option(None)  # a separator: the box keeps its height
        elif highlight is not None:
            items.highlighted = max(0, min(highlight, len(self.names) - 1))

    @on(Input.Submitted, "#list-input")
    def _add(self, event: Input.Submitted) -> None:
        name = " ".join(event.value.split())
        if not name:
            self.action_save()  # Enter on an empty line: the list is done
            return
        why = self.check(name) if self.check else None
        if why is None and (earlier := repeated(name, self.names)) is not None:
            why = f"{name!r} repeats {earlier!r}: the list has it already"
        if why:
            self.notify(why, severity="warning")
            return
        self.names.append(name)
        event.input.value = ""
        self._fill(len(self.names) - 1)

    def action_complete(self) -> None:
        field = self.query_one(Input)
        if self.focused is field:
            field.cursor_position = len(field.value)
            field.action_cursor_right()  # at the end, this takes the suggestion shown
        else:
            field.focus()

    def action_to_list(self) -> None:
        if self.names:
            self.query_one(OptionList).focus()

    def action_remove(self) -> None:
        items = self.query_one(OptionList)
        if self.focused is items and self.names and items.highlighted is not None:
            index = items.highlighted
            del self.names[index]
            self._fill(index)
            if not self.names:
                self.query_one(Input).focus()

    def action_move(self, step: int) -> None:
        items = self.query_one(OptionList)
        index = items.highlighted
        if self.focused is not items or index is None or not 0 <= index + step < len(self.names):
            return
        self.names[index], self.names[index + step] = self.names[index + step], self.names[index]
        self._fill(index + step)

    def action_save(self) -> None:
        if not self.names:
            self.notify("An empty list: add a name, or x rejects (the answer recommends nothing).", severity="warning")
            return
        held = self.vet(list(self.names)) if self.vet is not None else None
        if held is not None:  # what was typed stays: the reviewer reads why, then saves again
            self.query_one("#list-changed", Static).update(held)
            self.query_one("#list-changed").add_class("shown")
            return
        self.dismiss(list(self.names))

    def action_scroll_answer(self, step: int) -> None:
        for pane in self.query("#list-answer"):
            pane.scroll_to(y=pane.scroll_y + step * max(1, pane.size.height - 1), animate=False)

    def action_cancel(self) -> None:
        self.dismiss(None)
