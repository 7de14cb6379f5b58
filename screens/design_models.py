"""The Design screen's models tab: edit, add, drop and test a study's model specs (the
study file keeps them; `w` saves). Mixed into `DesignScreen`, whose study it edits."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.widgets import DataTable, TabbedContent

from workbench.engines.specs import SpecError, parse_spec
from workbench.pipeline import study_design as shared
from workbench.text.literal import visible
from workbench.widgets.modals import EditText


class ModelsTab:
    """Needs the screen's `study`, `_tab()` and `_mark_unsaved()`."""

    def _edit_model(self, new: bool) -> None:
        table = self.query_one("#models-table", DataTable)
        if self.study is None:
            return
        index = table.cursor_row or 0
        current = "" if new else str(self.study.models[index])

        def done(text: str | None) -> None:
            if not text:
                return
            try:
                spec = parse_spec(text)
            except SpecError as exc:
                self.app.show_error("Not a model spec", str(exc))
                return
            if new:
                self.study.models.append(spec)
            else:
                self.study.models[index] = spec
            self._show_models()
            self._mark_unsaved()

        prompt = "New model spec, e.g. openai:MODEL@http://host:port/v1" if new else "Edit the model spec"
        self.app.push_screen(EditText(prompt, current), done)

    def action_delete_model(self) -> None:
        table = self.query_one("#models-table", DataTable)
        if self._tab() != "tab-models" or self.study is None:
            return
        if len(self.study.models) == 1:
            self.notify("A study needs at least one model.", severity="warning")
            return
        del self.study.models[table.cursor_row or 0]
        self._show_models()
        self._mark_unsaved()

    def _show_models(self) -> None:
        table = self.query_one("#models-table", DataTable)
        table.clear()
        for index, spec in enumerate(self.study.models):
            table.add_row(Text(visible(str(spec))), "t tests", key=str(index))

    def action_test_model(self) -> None:
        table = self.query_one("#models-table", DataTable)
        if self.study is None or not self.study.models:
            return
        self.query_one("#design-tabs", TabbedContent).active = "tab-models"
        index = min(table.cursor_row or 0, len(self.study.models) - 1)
        table.update_cell(str(index), table.ordered_columns[1].key, "checking…")
        self.test_model(index, self.study.models[index])

    @work(thread=True, group="test-model", description="Testing a model", exit_on_error=False)
    def test_model(self, index: int, spec) -> tuple[str, str]:
        return str(index), shared.check_model(spec)
