"""The app's import and export dialogs: every kind the methods offer, as on the command line.

Each dialog only gathers what to do (kind, file, study, the kind's options) and returns it;
the app runs it in a worker through `workbench.transfer.dispatch`, the same code `workbench import`
and `workbench export` use, so a refused file changes nothing here either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from workbench.methods.kinds import ExportKind, ImportKind, Option
from workbench.text.literal import visible

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > VerticalScroll {{ width: 90%; max-width: 110; height: auto; max-height: 90%; border: round $accent;
                           padding: 0 1; background: $surface; }}
{name} Input, {name} .pick {{ width: 100%; }}
{name} .describe {{ color: $text-muted; height: auto; }}
{name} Horizontal {{ height: auto; margin-top: 1; }}
{name} Button {{ margin-right: 2; }}
"""


def _described(kind) -> Text:
    """A kind's description as one paragraph: its line breaks are the command line's help
    columns, which the dialog's own width re-wraps."""
    return Text(visible(" ".join(kind.describe.split())))


class ImportDialog(ModalScreen[dict[str, Any] | None]):
    """Kind, file, study and the kind's own options; Enter in a field or the button imports,
    Esc cancels. Returns {"kind", "file", "options"}."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = DIALOG_CSS.format(name="ImportDialog")

    def __init__(self, kinds: dict[str, ImportKind], options: list[Option], study: str = ""):
        super().__init__()
        self.kinds, self.options, self.study = kinds, options, study

    def compose(self) -> ComposeResult:
        first = next(iter(self.kinds))
        with VerticalScroll():
            yield Label("Import a file (Enter imports, Esc cancels)")
            yield Select(
                [(name, name) for name in self.kinds], value=first, allow_blank=False, id="import-kind", classes="pick"
            )
            yield Static(_described(self.kinds[first]), classes="describe", id="import-describe")
            yield Label("File:")
            yield Input(placeholder="path of the file to import", id="import-file")
            yield Label("Study (created if missing):", id="import-study-label")
            yield Input(self.study, placeholder="study name", id="import-study")
            for option in self.options:
                if option.flag_only:
                    yield Checkbox(option.flag, id=f"import-{option.dest}")
                else:
                    yield Input(placeholder=f"{option.flag}: {option.help}", id=f"import-{option.dest}")
            with Horizontal():
                yield Button("Import", variant="primary", id="import-go")
                yield Button("Cancel (Esc)", id="import-cancel")

    def on_mount(self) -> None:
        self._show_options(next(iter(self.kinds)))
        self.query_one("#import-file", Input).focus()

    @on(Select.Changed, "#import-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        self.query_one("#import-describe", Static).update(_described(self.kinds[str(event.value)]))
        self._show_options(str(event.value))

    def _show_options(self, kind: str) -> None:
        """Only the chosen kind's options (and the study when it needs one) are on view."""
        own = {o.dest for o in self.kinds[kind].options}
        for option in self.options:
            self.query_one(f"#import-{option.dest}").display = option.dest in own
        self.query_one("#import-study").display = self.kinds[kind].needs_study
        self.query_one("#import-study-label").display = self.kinds[kind].needs_study

    def result(self) -> dict[str, Any]:
        kind = str(self.query_one("#import-kind", Select).value)
        # A kind that takes no study hides the field: what it still holds (the open study) is not asked for.
        study = self.query_one("#import-study", Input).value.strip() if self.kinds[kind].needs_study else ""
        options: dict[str, Any] = {"study": study or None}
        for option in self.kinds[kind].options:
            widget = self.query_one(f"#import-{option.dest}")
            if option.flag_only:
                options[option.dest] = bool(widget.value)
            else:
                text = widget.value.strip()
                options[option.dest] = ([text] if option.repeat else text) if text else None
        return {"kind": kind, "file": self.query_one("#import-file", Input).value.strip(), "options": options}

    @on(Input.Submitted)
    @on(Button.Pressed, "#import-go")
    def _go(self) -> None:
        found = self.result()
        if not found["file"]:
            self.notify("Name the file to import.", severity="warning")
            return
        if self.kinds[found["kind"]].needs_study and not found["options"]["study"]:
            self.notify(f"Name the study to import the {found['kind']} into.", severity="warning")
            return
        self.dismiss(found)

    @on(Button.Pressed, "#import-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportDialog(ModalScreen[dict[str, Any] | None]):
    """Kind, format, study and the file to write (proposed next to the database, any path
    accepted); Enter or the button exports, Esc cancels. Returns {"kind", "format", "study", "output"}."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = DIALOG_CSS.format(name="ExportDialog")

    def __init__(self, kinds: dict[str, ExportKind], db_path: str, study: str = "", kind: str | None = None):
        super().__init__()
        self.kinds, self.db_path, self.study = kinds, db_path, study
        self.kind = kind if kind in kinds else next(iter(kinds))

    def _proposed(self, kind: str, fmt: str) -> str:
        db = Path(self.db_path)
        return str(db.with_name(f"{db.stem}-{kind}.{fmt if fmt in ('json', 'md') else 'csv'}"))

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("Export (Enter writes the file, Esc cancels)")
            yield Select(
                [(name, name) for name in self.kinds],
                value=self.kind,
                allow_blank=False,
                id="export-kind",
                classes="pick",
            )
            yield Static(_described(self.kinds[self.kind]), classes="describe", id="export-describe")
            yield Select(
                [
                    ("CSV", "csv"),
                    ("CSV for a spreadsheet (keeps accents in Excel)", "excel"),
                    ("JSON", "json"),
                    ("Markdown, for people (with a header)", "md"),
                ],
                value="csv",
                allow_blank=False,
                id="export-format",
                classes="pick",
            )
            yield Label("Study (empty: every study):")
            yield Input(self.study, placeholder="study name", id="export-study")
            yield Label("Write to (any path; written whole or not at all):")
            yield Input(self._proposed(self.kind, "csv"), id="export-output")
            with Horizontal():
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel (Esc)", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-output", Input).focus()

    @on(Select.Changed)
    def _changed(self, event: Select.Changed) -> None:
        """A new kind or format renames the proposed file, unless the user typed their own."""
        kind, fmt = (
            str(self.query_one("#export-kind", Select).value),
            str(self.query_one("#export-format", Select).value),
        )
        self.query_one("#export-describe", Static).update(_described(self.kinds[kind]))
        output = self.query_one("#export-output", Input)
        proposals = {self._proposed(k, f) for k in self.kinds for f in ("csv", "excel", "json", "md")}
        if output.value in proposals:
            output.value = self._proposed(kind, fmt)

    @on(Input.Submitted)
    @on(Button.Pressed, "#export-go")
    def _go(self) -> None:
        output = self.query_one("#export-output", Input).value.strip()
        if not output:
            self.notify("Name the file to write.", severity="warning")
            return
        self.dismiss(
            {
                "kind": str(self.query_one("#export-kind", Select).value),
                "format": str(self.query_one("#export-format", Select).value),
                "study": self.query_one("#export-study", Input).value.strip() or None,
                "output": output,
            }
        )

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
