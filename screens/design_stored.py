"""The Design screen without a study file (`workbench tui --db DB`): the questions the
database holds, read-only, and none of the keys that change a study file offered. Mixed into
`DesignScreen`."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import DataTable, Static

from workbench.pipeline import study_design as shared
from workbench.text.literal import visible

# What opens a study to edit, said under the questions.
NO_STUDY = (
    "No study file: the database's questions, read-only. To verify, edit, add or generate questions, "
    "or edit a study's clusters and models, open its file: `workbench tui --db {db} --study FILE.toml`."
)
# The actions that change a study (its file or its questions): offered only with one loaded.
NEEDS_STUDY = frozenset(
    {"toggle_verified", "edit", "add", "delete_model", "new_topic", "generate", "test_model", "save"}
)


class StoredQuestions:
    """Needs the screen's `study`, `_show_questions()` and `_title()`, and a `#design-info`."""

    @dataclass
    class StoredRead(Message, bubble=False):
        """A worker read the database's questions, by study."""

        by_study: dict[str, list[dict]]
        models: list[str]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.study is not None if action in NEEDS_STUDY else True

    def show_stored(self) -> None:
        self._title("no study file · reading the database's questions…")
        self.query_one("#design-info").update(Text(visible(NO_STUDY.format(db=self.app.db_path))))
        self._read_stored()

    @work(thread=True, exclusive=True, group="design-load", description="Reading the questions", exit_on_error=False)
    def _read_stored(self) -> None:
        self.post_message(
            self.StoredRead(shared.stored_questions(self.app.db_path), shared.stored_models(self.app.db_path))
        )

    def on_stored_questions_stored_read(self, message: StoredRead) -> None:
        several = len(message.by_study) > 1  # the topic column names each question's study
        rows = [
            {**row, "topic": f"{name} · {row['topic']}" if several else row["topic"]}
            for name, rows in message.by_study.items()
            for row in rows
        ]
        self._show_questions(rows)
        self._show_stored_design(rows, message.models)
        held = f"{len(rows)} questions of {', '.join(message.by_study)}, read-only" if rows else "no questions stored"
        self._title(f"no study file · {held}")

    def _show_stored_design(self, rows: list[dict], models: list[str]) -> None:
        """The clusters of the stored questions and the stored models, read-only."""
        clusters = self.query_one("#clusters-table", DataTable)
        clusters.clear()
        for cluster, label in dict.fromkeys((r["cluster"], r["cluster_label"] or "") for r in rows):
            clusters.add_row(Text(visible(cluster)), Text(visible(label or "(defined in the study file)")))
        self.query_one("#cluster-detail", Static).update(
            Text("No study file: the clusters of the stored questions, read-only; definitions are in the study file.")
        )
        table = self.query_one("#models-table", DataTable)
        table.clear()
        for spec in models:
            table.add_row(Text(visible(spec)), "stored, read-only (no study file)")
        if not models:
            table.add_row("(none stored yet: a run stores its models)", "no study file")
