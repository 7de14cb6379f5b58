"""The Metrics screen's paired comparison of two models (`c`): the picker of a study's two
models, and the panel of their differences as `workbench compare` computes them (B - A, the
interval with its unit, p, Holm p, how many questions or units were paired)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from workbench.analysis.compare_table import narrow_table
from workbench.text.literal import visible, visible_line

Pair = tuple[str, str, str]  # (study, model A, model B)


def refusal(choices: dict[str, list[str]]) -> str:
    """Why no comparison can be picked, in one line ("" when a study has two models)."""
    if any(len(models) >= 2 for models in choices.values()):
        return ""
    held = {study: models[0] for study, models in choices.items() if models}
    if not held:
        return "No study has a model with answers yet: a comparison needs two models."
    if len(held) == 1:
        study, model = next(iter(held.items()))
        return f"Study {study!r} has one model ({model}): a comparison needs two."
    each = "; ".join(f"{study}: {model}" for study, model in held.items())
    return f"Each study has one model ({each}): a comparison needs two in one study."


class PickModels(ModalScreen[Pair | None]):
    """Choose a study (when several have two models or more) and its models A and B, among
    those whose answers count now. Enter compares, Esc cancels; B - A is what is shown."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "pick", "Compare", priority=True),
        Binding("left", "app.focus_previous", "Previous list", show=False),
        Binding("right", "app.focus_next", "Next list", show=False),
    ]
    DEFAULT_CSS = """
    PickModels { align: center middle; }
    PickModels > Vertical { width: 90%; height: auto; max-height: 90%; border: round $accent; padding: 0 1;
                            background: $surface; }
    PickModels Horizontal { height: auto; }
    PickModels .pick-column { width: 1fr; height: auto; }
    PickModels OptionList { height: auto; max-height: 10; }
    PickModels #pick-note { color: $warning; height: auto; }
    """

    def __init__(self, choices: dict[str, list[str]], current: Pair | None = None) -> None:
        super().__init__()
        self.choices = {study: models for study, models in choices.items() if len(models) >= 2}
        self.studies = list(self.choices)
        self.current = current  # the pair on view: picked again by default
        study = current[0] if current and current[0] in self.choices else self.studies[0]
        self.study = study

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Two models to compare: B - A, paired over what both answered")
            with Horizontal():
                if len(self.studies) > 1:
                    with Vertical(classes="pick-column"):
                        yield Label("study")
                        yield OptionList(*(Option(Text(visible_line(s))) for s in self.studies), id="pick-study")
                for side in ("a", "b"):
                    with Vertical(classes="pick-column"):
                        yield Label(f"model {side.upper()}")
                        yield OptionList(id=f"pick-{side}")
            yield Static(id="pick-note")
            yield Label(Text("Tab or ←/→ moves, ↑/↓ picks, Enter compares, Esc cancels", style="dim"))

    def on_mount(self) -> None:
        if len(self.studies) > 1:
            studies = self.query_one("#pick-study", OptionList)
            studies.highlighted = self.studies.index(self.study)
            studies.focus()
        else:
            self.query_one("#pick-a", OptionList).focus()
        self._fill()

    def _fill(self) -> None:
        """Models A and B of the study highlighted: the pair on view, else its first two."""
        models = self.choices[self.study]
        current = self.current if self.current and self.current[0] == self.study else None
        picked = (current[1], current[2]) if current else (models[0], models[1])
        for side, model in zip(("a", "b"), picked):
            options = self.query_one(f"#pick-{side}", OptionList)
            options.clear_options()
            options.add_options([Option(Text(visible_line(m))) for m in models])
            options.highlighted = models.index(model) if model in models else 0

    @on(OptionList.OptionHighlighted, "#pick-study")
    def _study_moved(self, event: OptionList.OptionHighlighted) -> None:
        study = self.studies[event.option_index]
        if study != self.study:
            self.study = study
            self._fill()

    def action_pick(self) -> None:
        models = self.choices[self.study]
        a, b = (self.query_one(f"#pick-{side}", OptionList).highlighted for side in ("a", "b"))
        if a is None or b is None or a == b:
            self.query_one("#pick-note", Static).update("A and B are the same model: pick two.")
            return
        self.dismiss((self.study, models[a], models[b]))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ComparisonPanel(VerticalScroll):
    """The comparison on view: a title naming the pair, the table, what the numbers are. Dimmed
    (`stale`) while it is computed again."""

    DEFAULT_CSS = """
    ComparisonPanel { height: 1fr; padding: 0 1; }
    ComparisonPanel.stale { opacity: 60%; }
    ComparisonPanel #compare-title { height: auto; text-style: bold; color: $accent; }
    ComparisonPanel #compare-table { height: auto; }
    ComparisonPanel #compare-note { height: auto; margin-top: 1; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Label(id="compare-title")
        yield Static(id="compare-table")
        yield Static(id="compare-note")

    def _title(self, pair: Pair, state: str) -> None:
        study, a, b = pair
        text = f"{study}: {b} (B) - {a} (A){state} · Esc leaves"
        self.query_one("#compare-title", Label).update(Text(visible_line(text)))

    def pending(self, pair: Pair) -> None:
        """A computation begins: the title says so, the numbers shown (if any) dimmed."""
        self._title(pair, ", computing…")
        self.add_class("stale")

    def show(self, pair: Pair, records: Sequence[dict[str, Any]], error: str = "") -> None:
        from workbench.analysis.compare_table import comparison_note

        self.remove_class("stale")
        self._title(pair, "")
        table = self.query_one("#compare-table", Static)
        table.update(narrow_table(records) if records and not error else Text())
        table.display = bool(records) and not error
        if error:
            note = f"No comparison: {error}"
        elif not records:
            note = "No difference to show: the two models have no numbers in common."
        else:
            note = comparison_note(records)
        self.query_one("#compare-note", Static).update(Text(visible(note)))
