"""The Design screen: a study's questions (verify, edit, generate), clusters and models;
without a study file, the database's questions, read-only (screens/design_stored.py)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from workbench import methods
from workbench.methods.choice import design
from workbench.pipeline import study_design as shared
from workbench.screens.design_models import ModelsTab
from workbench.screens.design_stored import StoredQuestions
from workbench.store.errors import UserFacingError
from workbench.text.literal import visible
from workbench.widgets.modals import EditText
from workbench.widgets.modebar import ModeBar


class DesignScreen(StoredQuestions, ModelsTab, Screen):
    BINDINGS = [
        Binding("v", "toggle_verified", "Verify", tooltip="Mark the question verified (or not)"),
        Binding("e", "edit", "Edit", tooltip="Edit the highlighted question, cluster definition or model spec"),
        Binding("a", "add", "Add", tooltip="Add a question to the highlighted cluster, or a model"),
        Binding("d", "delete_model", "Drop model", show=False, tooltip="Remove the highlighted model"),
        Binding(
            "n",
            "new_topic",
            "New topic",
            show=False,
            tooltip="Add a topic whose questions the LLM writes (then g generates them)",
        ),
        Binding("g", "generate", "Generate", tooltip="LLM-assisted questions for topics with generate = N"),
        Binding("t", "test_model", "Test", tooltip="Load the model or reach its server"),
        Binding("w", "save", "Save", tooltip="Write the study file with the current questions"),
        Binding(
            "right_square_bracket", "tab(1)", "Tab", key_display="]", tooltip="Next tab: questions, clusters, models"
        ),
        Binding("left_square_bracket", "tab(-1)", "Prev tab", show=False, key_display="[", tooltip="Previous tab"),
    ]
    TABS = ("tab-questions", "tab-clusters", "tab-models")
    AUTO_FOCUS = "#questions-table"  # on arrival: its keys act on the highlighted row at once
    UNSAVED_WHAT = "the study file"  # what the question on leaving with unsaved changes names

    @dataclass
    class StudyLoaded(Message, bubble=False):
        """A worker read the study file and stored its questions."""

        study: Any
        study_id: int
        rows: list[dict]

    @dataclass
    class DesignedElsewhere(Message, bubble=False):
        """The study is of a method this screen does not design."""

        method: str

    @dataclass
    class QuestionsChanged(Message, bubble=False):
        """A worker stored a change to the questions; `note` says what it did, if anything."""

        rows: list[dict]
        note: str | None

    def __init__(self) -> None:
        super().__init__()
        self.study = None
        self.study_id: int | None = None
        self.rows: list[dict] = []
        self.unsaved = False

    def compose(self) -> ComposeResult:
        yield ModeBar("design")
        yield Static(id="design-title")
        with TabbedContent(id="design-tabs"):
            # `]` and `[` move between the tabs (also Tab to the tab bar, then arrows).
            with TabPane("Questions", id="tab-questions"):
                yield DataTable(id="questions-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="question-detail")
            with TabPane("Clusters", id="tab-clusters"):
                yield DataTable(id="clusters-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="cluster-detail")
            with TabPane("Models", id="tab-models"):
                yield DataTable(id="models-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="design-info")
        yield Footer()

    def on_mount(self) -> None:
        questions = self.query_one("#questions-table", DataTable)
        for column in ("id", "✓", "topic", "cluster", "question"):
            questions.add_column(column, key=column)
        self.query_one("#clusters-table", DataTable).add_columns("cluster", "definition")
        self.query_one("#models-table", DataTable).add_columns("model", "check")
        if self.app.study_path is None:
            self.show_stored()
            return
        self._title("loading…")
        self.load_study()

    def on_design_screen_designed_elsewhere(self, message: DesignedElsewhere) -> None:
        """A study this screen does not edit: say what to do, without a modal that
        stands in the way of the other screens."""
        method = message.method
        self._title(f"{method} study: designed in its file")
        self.query_one("#design-tabs").display = False
        self.query_one("#design-info", Static).update(
            Text(
                f"This is a {method} study. The Design screen edits ChoiceEval studies (questions, "
                "clusters, models); identity studies get their template editor here. Edit "
                f"{self.app.study_path} in a text editor, then `s` on the Run screen (1) plans what "
                "changed; 2 shows its metrics.",
            )
        )

    def _title(self, text: str) -> None:
        self.query_one("#design-title", Static).update(Text(visible(f" {text}"), no_wrap=True, overflow="ellipsis"))

    @work(thread=True, exclusive=True, group="design-load", description="Loading the study", exit_on_error=False)
    def load_study(self) -> None:
        method = shared.study_method(self.app.study_path)
        if method is not None and methods.design_screen(method) is not type(self):  # another screen's, or none
            self.post_message(self.DesignedElsewhere(method))
            return
        study, study_id = design.register(self.app.db_path, self.app.study_path)
        rows = design.question_rows(self.app.db_path, study_id)
        self.post_message(self.StudyLoaded(study, study_id, rows))

    def on_design_screen_study_loaded(self, message: StudyLoaded) -> None:
        first = self.study is None
        self.study, self.study_id = message.study, message.study_id
        self._show_questions(message.rows)
        self.refresh_bindings()  # the keys that change a study are offered now
        if first:
            self.query_one("#questions-table", DataTable).focus()
            clusters = self.query_one("#clusters-table", DataTable)
            for c in message.study.clusters:
                clusters.add_row(Text(visible(c.name)), Text(visible(c.description)))
            self._show_models()

    def _show_questions(self, rows: list[dict]) -> None:
        self.rows = rows
        table = self.query_one("#questions-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        for r in rows:
            label = r["cluster_label"] if r["cluster_label"] and r["cluster_label"] != r["cluster"] else r["cluster"]
            table.add_row(
                str(r["id"]),
                "✓" if r["verified"] else "",
                Text(visible(r["topic"])),
                Text(visible(label)),
                Text(visible(r["text"])),
                key=str(r["id"]),
            )
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))
        verified = sum(r["verified"] for r in rows)
        if self.study is not None and not self.unsaved:
            self._title(f"study {self.study.name} · {len(rows)} questions, {verified} verified")

    def action_tab(self, step: int) -> None:
        tabs = self.query_one("#design-tabs", TabbedContent)
        tabs.active = self.TABS[(self.TABS.index(tabs.active) + step) % len(self.TABS)]
        table = {"tab-questions": "#questions-table", "tab-clusters": "#clusters-table", "tab-models": "#models-table"}
        self.query_one(table[tabs.active], DataTable).focus()

    @on(DataTable.RowHighlighted, "#clusters-table")
    def _show_cluster(self, event: DataTable.RowHighlighted) -> None:
        # The table cuts long definitions; the whole one shows here.
        table = self.query_one("#clusters-table", DataTable)
        if self.study is not None and table.cursor_row is not None and table.cursor_row < len(self.study.clusters):
            cluster = self.study.clusters[table.cursor_row]
            self.query_one("#cluster-detail", Static).update(Text(visible(f"{cluster.name}\n{cluster.description}")))

    @on(DataTable.RowHighlighted, "#questions-table")
    def _show_detail(self, event: DataTable.RowHighlighted) -> None:
        # The table cuts long questions at 80 columns; the full text shows here.
        row = self._current()
        if row is not None:
            label = row["cluster_label"] or row["cluster"]
            self.query_one("#question-detail", Static).update(
                Text(visible(f"{row['topic']} · {label} · {row['source']}\n{row['text']}"))
            )

    def _current(self) -> dict | None:
        table = self.query_one("#questions-table", DataTable)
        if not self.rows or table.cursor_row is None or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def _reload(self) -> None:
        self._change(lambda: None)

    def _change(self, change, note: str | None = None) -> None:
        """Apply `change()` to the store in a worker, then show the questions again: a
        store busy with a run never freezes the keys."""
        if self.study_id is not None:
            self._run_change(change, note)

    @work(thread=True, group="design-writes", description="Saving")
    def _run_change(self, change, note: str | None) -> None:
        try:
            change()
            rows = design.question_rows(self.app.db_path, self.study_id)
        except (ValueError, UserFacingError, sqlite3.Error) as exc:
            self.notify(str(exc), severity="error")
            return
        self.post_message(self.QuestionsChanged(rows, note))

    def on_design_screen_questions_changed(self, message: QuestionsChanged) -> None:
        self._show_questions(message.rows)
        if message.note:
            self.notify(message.note)

    def action_toggle_verified(self) -> None:
        row = self._current()
        if row is None:
            return
        self._change(lambda: design.toggle_verified(self.app.db_path, self.study_id, row["id"]))

    def _tab(self) -> str:
        return self.query_one("#design-tabs", TabbedContent).active

    def _mark_unsaved(self) -> None:
        self.unsaved = True
        self._title(f"study {self.study.name} · unsaved changes to the study file: w saves")

    def action_edit(self) -> None:
        if self._tab() == "tab-clusters":
            self._edit_cluster()
            return
        if self._tab() == "tab-models":
            self._edit_model(new=False)
            return
        row = self._current()
        if row is None:
            return

        def done(text: str | None) -> None:
            if text is None:
                return
            self._change(
                lambda: design.edit_question(self.app.db_path, self.study_id, row["id"], text),
                "Question edited; its answers will be asked again at the next run.",
            )

        self.app.push_screen(EditText("Edit the question", row["text"]), done)

    def action_add(self) -> None:
        if self._tab() == "tab-models":
            self._edit_model(new=True)
            return
        row = self._current()
        if row is None or self.study is None:
            return

        def done(text: str | None) -> None:
            if not text or not text.strip():
                return
            self._change(
                lambda: design.add_question(self.app.db_path, self.study_id, row["topic"], row["cluster"], text),
                "Question added (unverified).",
            )

        self.app.push_screen(EditText(f"New question for {row['topic']} · {row['cluster']}"), done)

    def _edit_cluster(self) -> None:
        table = self.query_one("#clusters-table", DataTable)
        if self.study is None or table.cursor_row is None:
            return
        index = table.cursor_row
        cluster = self.study.clusters[index]

        def done(text: str | None) -> None:
            if text is None:
                return
            self.study.clusters[index] = replace(cluster, description=" ".join(text.split()))
            table.update_cell_at((index, 1), Text(visible(self.study.clusters[index].description)))
            self._mark_unsaved()

        self.app.push_screen(EditText(f"Definition of {cluster.name}", cluster.description), done)

    def action_new_topic(self) -> None:
        if self.study is None:
            return

        def got_count(topic: str, text: str | None) -> None:
            try:
                count = int((text or "").strip())
            except ValueError:
                self.notify("Give a whole number of questions per cluster.", severity="error")
                return
            if count < 1:
                self.notify("Give at least 1 question per cluster.", severity="error")
                return
            self.study.generate[topic] = count
            self._mark_unsaved()
            self.notify(f"Topic {topic!r} added: g writes {count} questions per cluster, w saves the study.")

        def got_name(text: str | None) -> None:
            topic = " ".join((text or "").split())
            if not topic:
                return
            if topic in self.study.topics:
                self.notify(f"The study already has a topic {topic!r}.", severity="warning")
                return
            self.app.push_screen(
                EditText(f"Questions to generate per cluster for {topic}", "23"), lambda count: got_count(topic, count)
            )

        self.app.push_screen(EditText("New topic (e.g. airlines)"), got_name)

    def action_save(self) -> None:
        if self.study is None:
            return
        try:
            path = design.save_study(self.app.db_path, self.study, self.study_id, self.app.study_path)
        except Exception as exc:  # shown, never a traceback
            self.app.show_error("Could not save the study", str(exc))
            return
        self.unsaved = False
        self._title(f"study {self.study.name} · saved")
        self.notify(f"Saved {path.name} (previous version: {path.name}.bak)")

    def save_changes(self) -> bool:
        """Save before leaving the screen; False when the study file stays unsaved (an error says why)."""
        self.action_save()
        return not self.unsaved

    def discard_changes(self) -> None:
        """Leave without saving: clusters, models and new topics as the study file has them
        (questions live in the store and stay as edited)."""
        if self.study is None:
            return
        self.study, self.unsaved = None, False
        self.query_one("#clusters-table", DataTable).clear()
        self.query_one("#models-table", DataTable).clear()
        self.load_study()

    def action_generate(self) -> None:
        if self.study is None or not self.study.generate:
            self.notify("No topic asks for questions: add `generate = N` to a [[topics]] table.", severity="warning")
            return
        self._title("generating questions… (they appear as they are stored)")
        self._poll = self.set_interval(1.0, self._reload)  # generated questions appear as they are stored
        self.generate()

    @work(thread=True, exclusive=True, group="generate", description="Generating questions", exit_on_error=False)
    def generate(self):
        import asyncio

        from workbench.methods.choice.generation import generate_questions
        from workbench.pipeline.run_types import RunOptions
        from workbench.store.db import opened

        with opened(self.app.db_path) as conn:
            return asyncio.run(generate_questions(conn, self.study, None, RunOptions()))

    @on(Worker.StateChanged)
    def _worker_done(self, event: Worker.StateChanged) -> None:
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        group = event.worker.group
        if event.state == WorkerState.ERROR:
            self.app.show_error(f"{event.worker.description} failed", str(event.worker.error))
            if group == "design-load":
                self._title("the study file could not be loaded")
        if group == "generate":
            if getattr(self, "_poll", None):
                self._poll.stop()
            self._reload()
            if event.state == WorkerState.SUCCESS:
                report = event.worker.result
                self.notify(
                    f"Generated {report.generated} questions ({report.generate_unparseable} unparseable "
                    "lists kept in the store)."
                )
        elif group == "test-model" and event.state == WorkerState.SUCCESS:
            key, result = event.worker.result
            table = self.query_one("#models-table", DataTable)
            if key in table.rows:  # the list may have changed meanwhile
                table.update_cell(key, table.ordered_columns[1].key, Text(visible(result)))
