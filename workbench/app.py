"""The Textual app: screens as modes, app-wide bindings, the command palette, errors.

The only module of the core that imports Textual; screens call the core, never
the reverse.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from workbench import design
from workbench.literal import visible
from workbench.screens.design import DesignScreen
from workbench.screens.entities import EntitiesScreen
from workbench.screens.metrics import MetricsScreen
from workbench.screens.review import ReviewScreen
from workbench.screens.run import RunScreen
from workbench.screens.template_editor import TemplateScreen
from workbench.widgets.modals import ErrorModal, HelpScreen


class WorkbenchApp(App):
    TITLE = "Audit Workbench"
    CSS_PATH = str(files("workbench.assets").joinpath("workbench.tcss"))
    MODES = {"design": DesignScreen, "run": RunScreen, "metrics": MetricsScreen, "review": ReviewScreen,
             "entities": EntitiesScreen}
    DEFAULT_MODE = "run"
    BINDINGS = [
        Binding("1", "switch_mode('run')", "Run", id="go-run", tooltip="Live progress of the study"),
        Binding("2", "switch_mode('metrics')", "Metrics", id="go-metrics", tooltip="PEIR, stability, LOR"),
        Binding("3", "switch_mode('design')", "Design", id="go-design",
                tooltip="Questions (verify, edit, generate), clusters, models"),
        Binding("4", "switch_mode('review')", "Review", id="go-review",
                tooltip="Accept, edit or reject extracted lists"),
        Binding("5", "switch_mode('entities')", "Entities", id="go-entities",
                tooltip="Merge duplicate entities, strict to lax"),
        Binding("f1,question_mark", "help", "Help", id="help", tooltip="Keys and what they do"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, db_path: str | Path, study_path: str | Path | None = None, autostart: bool = False,
                 reviewer: str | None = None):
        super().__init__()
        self.reviewer = reviewer or os.environ.get("USER") or "reviewer"
        self.db_path = str(db_path)
        self.study_path = str(study_path) if study_path else None
        self.autostart = autostart
        if self.study_path and design.study_method(self.study_path) == "identity":
            # Identity studies are designed through their prompt template.
            self._modes["design"] = TemplateScreen

    def on_mount(self) -> None:
        self.sub_title = Path(self.db_path).name
        if self.autostart:
            self.call_after_refresh(self._autostart)

    def _autostart(self) -> None:
        screen = self.screen
        if isinstance(screen, RunScreen):
            screen.action_start()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every toast is literal text: messages carry entity names, model output and
        server errors, where "[/x]" would be markup (and crash) and ESC would reach the
        terminal. Control characters are shown as escapes; markup is never parsed."""
        super().notify(visible(str(message)), title=visible(str(title)), severity=severity, timeout=timeout,
                       markup=False)

    def show_error(self, title: str, message: str) -> None:
        self.push_screen(ErrorModal(title, message))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Go to Run", "Live progress: start, cancel, retry", lambda: self.switch_mode("run"))
        yield SystemCommand("Go to Metrics", "PEIR, stability, geographic LOR", lambda: self.switch_mode("metrics"))
        yield SystemCommand("Go to Design", "Questions, clusters, models; save the study",
                            lambda: self.switch_mode("design"))
        yield SystemCommand("Go to Review", "Accept, edit or reject extracted lists", lambda: self.switch_mode("review"))
        yield SystemCommand("Go to Entities", "Merge duplicates, forbid, undo", lambda: self.switch_mode("entities"))
        yield SystemCommand("Help", "Every key and what it does", self.action_help)
        if isinstance(screen, RunScreen):
            yield SystemCommand("Run: start or resume the study", "Answer what is not answered yet",
                                screen.action_start)
            yield SystemCommand("Run: cancel", "Stop; nothing is lost", screen.action_cancel)
            yield SystemCommand("Run: retry failed requests", "Failed requests get another chance",
                                screen.action_retry_failed)
        if isinstance(screen, DesignScreen):
            yield SystemCommand("Design: verify or unverify the question", "Toggle its verified flag",
                                screen.action_toggle_verified)
            yield SystemCommand("Design: edit the question", "Change its wording", screen.action_edit)
            yield SystemCommand("Design: new topic", "Its questions are written by the LLM",
                                screen.action_new_topic)
            yield SystemCommand("Design: add a question or a model", "To the highlighted cluster, or a model spec",
                                screen.action_add)
            yield SystemCommand("Design: generate questions", "LLM-assisted, for topics with generate = N",
                                screen.action_generate)
            yield SystemCommand("Design: test the model", "Load it or reach its server", screen.action_test_model)
            yield SystemCommand("Design: save the study file", "With the current questions", screen.action_save)
        if isinstance(screen, ReviewScreen):
            for title, action in (("accept the list", "accept"), ("reject the list", "reject")):
                yield SystemCommand(f"Review: {title}", "For the response on screen",
                                    lambda a=action: screen.action_verdict(a))
            yield SystemCommand("Review: edit the list", "Type the right entities", screen.action_edit)
            yield SystemCommand("Review: undo", "Take back your latest verdict", screen.action_undo)
            yield SystemCommand("Review: next filter", "Unreviewed, disagreements, all", screen.action_next_filter)
            yield SystemCommand("Review: transparency-probe labels", "Identity studies: admits / denies",
                                screen.action_probe_labels)
            yield SystemCommand("Review: cold-start catalog matches", "Correct what an answer's item was matched to",
                                screen.action_catalog_matches)
        if isinstance(screen, EntitiesScreen):
            yield SystemCommand("Entities: merge the cluster", "Under its proposed name", screen.action_accept)
            yield SystemCommand("Entities: forbid the cluster", "Never suggest them together",
                                screen.action_forbid)
            yield SystemCommand("Entities: undo", "The latest entity decision", screen.action_undo)
            yield SystemCommand("Entities: re-cluster", "Suggest again", screen.action_recluster)
        if isinstance(screen, MetricsScreen):
            yield SystemCommand("Metrics: next topic", "Cycle the topic filter", screen.action_next_topic)
            yield SystemCommand("Metrics: next cluster", "Cycle the cluster filter", screen.action_next_cluster)
            yield SystemCommand("Metrics: recompute", "From the stored lists", screen.action_recompute)
            yield SystemCommand("Metrics: export CSV, JSON and Markdown", "Next to the database",
                                screen.action_export)
