"""The Design screen of a method whose studies are made from a prompt template (identity's):
edit the template, see sampled prompts as you type.

The method says how (its hook `template_editing`: the template's text, a preview, saving),
so this screen names no method. Identity's template is TOML data (sentences, optional ones,
<slot> value lists, {spot} dialect variants, the explicit disclosure, associated entities per
group); its preview renders prompts with the study's own renderer, so what is shown is
exactly what the run will send; an error names the line or the placeholder at fault and
keeps the last good preview.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea

from workbench import methods
from workbench.methods.hooks import hook
from workbench.store.errors import UserFacingError
from workbench.text.literal import visible
from workbench.widgets.modebar import ModeBar


class TemplateText(TextArea):
    """The template's text keeps its keys: every printable one (q, 1-5, ?) goes into the
    text, Tab indents and Shift+Tab takes an indent away; only Esc leaves it, and the app's
    keys work again."""

    BINDINGS = [Binding("shift+tab", "dedent", "Dedent", show=False)]

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=True, tab_behavior="indent", **kwargs)

    def action_dedent(self) -> None:
        row, column = self.cursor_location
        line = self.document[row]
        spaces = min(len(line) - len(line.lstrip(" ")), self.indent_width)
        if line.startswith("\t"):
            spaces = 1
        if spaces:
            self.delete((row, 0), (row, spaces))
            self.cursor_location = (row, max(column - spaces, 0))


class TemplateScreen(Screen):
    PALETTE_NAME = "Template"
    BINDINGS = [
        Binding(
            "ctrl+s",
            "save",
            "Save",
            priority=True,
            tooltip="Write the template (a bundled one goes next to the study, which is pointed at it)",
        ),
        Binding("ctrl+r", "resample", "Other samples", priority=True, tooltip="Draw the preview with another seed"),
        Binding("escape", "leave_editor", "Leave text", tooltip="Move the focus out of the editor (then 1-5 work)"),
    ]
    UNSAVED_WHAT = "the template"  # what the question on leaving with unsaved changes names
    DEFAULT_CSS = """
    TemplateScreen #template-panes { height: 1fr; }
    TemplateScreen #template-text { width: 1fr; }
    TemplateScreen #template-preview { width: 1fr; border-left: vkey $primary; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.source: str | None = None
        self.study = None
        self.editing = None  # the method's `template_editing`
        self.seed = 1
        self.saved_text = ""
        self.last_good: Text | None = None

    def compose(self) -> ComposeResult:
        yield ModeBar("design", "template")
        yield Static(id="template-title")
        with Horizontal(id="template-panes"):
            yield TemplateText(id="template-text")
            with VerticalScroll(id="template-preview", can_focus=True):
                yield Static(id="template-error")
                yield Static(id="template-samples")
        yield Footer()

    def on_mount(self) -> None:
        from workbench.methods.study_files import load_study

        try:
            study = load_study(self.app.study_path)
            self.editing = hook(methods.get(study.method), "template_editing")
            text, source = self.editing.template_text(study)
        except Exception as exc:  # a broken study file is shown, never a traceback
            self._title("the study file could not be loaded")
            self.app.show_error("Could not load the study", str(exc))
            return
        self.study, self.source, self.seed = study, source, study.seed
        self.saved_text = text
        editor = self.query_one("#template-text", TextArea)
        editor.load_text(text)
        editor.focus()
        self._title()
        self.refresh_preview()

    @property
    def unsaved(self) -> bool:
        return self.query_one("#template-text", TextArea).text != self.saved_text

    def _title(self, text: str | None = None) -> None:
        if text is None:
            where = self.source if self.source and Path(self.source).exists() else f"bundled {self.source}"
            text = f"template {where}{' · unsaved: Ctrl+S saves' if self.unsaved else ''}"
        self.query_one("#template-title", Static).update(Text(visible(f" {text}"), no_wrap=True, overflow="ellipsis"))

    @on(TextArea.Changed)
    def _changed(self) -> None:
        self._title()
        # Re-render once typing pauses, not at every key.
        if getattr(self, "_pending", None):
            self._pending.stop()
        self._pending = self.set_timer(0.3, self.refresh_preview)

    def refresh_preview(self) -> None:
        error = self.query_one("#template-error", Static)
        samples = self.query_one("#template-samples", Static)
        if self.editing is None:
            return
        try:
            heading, prompts = self.editing.preview(
                self.query_one("#template-text", TextArea).text, self.study, self.seed
            )
        except UserFacingError as exc:
            error.update(Text(visible(f"⚠ {exc}"), style="bold red"))
            if self.last_good is not None:
                samples.update(Text(self.last_good.plain, style="dim"))
            return
        error.update("")
        text = Text()
        text.append(visible(f"{heading}\n\n"), style="dim")
        for title, prompt in prompts:
            text.append(visible(f"{title}\n"), style="bold")
            text.append(visible(prompt) + "\n\n")
        self.last_good = text
        samples.update(text)

    def action_resample(self) -> None:
        self.seed += 1
        self.refresh_preview()

    def action_leave_editor(self) -> None:
        self.query_one("#template-preview").focus()

    def save_changes(self) -> bool:
        """Save before leaving the screen; False when the template stays unsaved (its error is on view)."""
        self.action_save()
        return not self.unsaved

    def discard_changes(self) -> None:
        """Back to the saved template (leaving the screen without saving)."""
        self.query_one("#template-text", TextArea).load_text(self.saved_text)
        self._title()
        self.refresh_preview()

    def action_save(self) -> None:
        if self.source is None or self.editing is None:
            return
        text = self.query_one("#template-text", TextArea).text
        try:
            path = self.editing.save(self.app.study_path, self.source, text)
        except Exception as exc:  # shown, never a traceback; the text stays in the editor
            self.app.show_error("Could not save the template", str(exc))
            return
        self.source, self.saved_text = str(path), text
        self._title()
        self.notify(f"Saved {path.name}; the next run samples from it (changed prompts are new requests).")
