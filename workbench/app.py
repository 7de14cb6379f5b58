"""The Textual app: screens as modes, app-wide bindings, the command palette, errors.

The only module of the core that imports Textual; screens call the core, never
the reverse.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from functools import partial
from importlib.resources import files
from pathlib import Path

from textual import events
from textual.actions import parse as parse_action
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from workbench import methods
from workbench.host.locations import default_reviewer
from workbench.pipeline import study_design as design
from workbench.screens.design import DesignScreen
from workbench.screens.entities import EntitiesScreen
from workbench.screens.metrics import metrics_screen
from workbench.screens.review import ReviewScreen
from workbench.screens.run import RunScreen
from workbench.store.errors import UserFacingError
from workbench.store.review.reviewer_names import clean_reviewer
from workbench.text.literal import visible
from workbench.text.words import plural
from workbench.transfer import dispatch as transfer
from workbench.transfer.dispatch import kinds as transfer_kinds
from workbench.widgets.help import HelpScreen
from workbench.widgets.modals import ConfirmUnsaved, ErrorModal
from workbench.widgets.transfer import ExportDialog, ImportDialog


def screen_commands(screen: Screen) -> Iterable[SystemCommand]:
    """One palette entry per key binding of the screen: "Entities: Merge (a)", its
    tooltip as help, running the same action the key runs."""
    area = getattr(screen, "PALETTE_NAME", None) or type(screen).__name__.removesuffix("Screen")
    for binding in type(screen).BINDINGS:
        # Textual's own screen keys (focus, copy) are no key of this screen's, though a screen
        # that declares all its bindings (Metrics: its filters first) lists them too.
        if not isinstance(binding, Binding) or binding.key in ("escape",) or binding in Screen.BINDINGS:
            continue
        _namespace, name, params = parse_action(binding.action)
        if screen.check_action(name, params) is False:  # hidden there (a filter with nothing to filter)
            continue
        key = binding.key_display or binding.key.replace("question_mark", "?").split(",")[0]
        yield SystemCommand(
            f"{area}: {binding.description} ({key})",
            binding.tooltip or binding.description,
            lambda action=binding.action: screen.run_action(action),
        )


def _warm_metrics(db_path: str) -> None:
    """While the reader looks at the first screen: import SciPy's statistics and let each
    method load what its metrics read (a million mentions take seconds), so that the
    Metrics screen's first computation finds them ready."""
    import scipy.stats  # noqa: F401

    from workbench.store.db import reading
    from workbench.store.errors import UserFacingError

    # Best effort, and read only: the screens create and migrate the store (a warm-up that
    # did so too raced them, and one saw the other's half-made file); any error is theirs to show.
    try:
        with reading(db_path, create=False) as conn:
            methods.warm_metrics(conn)
    except (UserFacingError, sqlite3.Error):
        pass


class WorkbenchApp(App):
    TITLE = "Audit Workbench"
    CSS_PATH = str(files("workbench.assets").joinpath("workbench.tcss"))
    MODES = {
        "design": DesignScreen,
        "run": RunScreen,
        "metrics": metrics_screen,  # a key for each filter of the methods registered by then
        "review": ReviewScreen,
        "entities": EntitiesScreen,
    }
    DEFAULT_MODE = "run"
    BINDINGS = [
        Binding("1", "switch_mode('run')", "Run", id="go-run", show=False, tooltip="Live progress of the study"),
        Binding(
            "2",
            "switch_mode('metrics')",
            "Metrics",
            id="go-metrics",
            show=False,
            tooltip="Each method's numbers, models side by side",
        ),
        Binding(
            "3",
            "switch_mode('design')",
            "Design",
            id="go-design",
            show=False,
            tooltip="The study, as its method edits it (else its file)",
        ),
        Binding(
            "4",
            "switch_mode('review')",
            "Review",
            id="go-review",
            show=False,
            tooltip="Accept, edit or reject extracted lists",
        ),
        Binding(
            "5",
            "switch_mode('entities')",
            "Entities",
            id="go-entities",
            show=False,
            tooltip="Merge duplicate entities, strict to lax",
        ),
        Binding("f1,question_mark", "help", "Help", id="help", show=False, tooltip="Keys and what they do"),
        Binding("q", "quit", "Quit", id="quit", show=False),
    ]

    def __init__(
        self,
        db_path: str | Path,
        study_path: str | Path | None = None,
        autostart: bool = False,
        reviewer: str | None = None,
    ):
        super().__init__()
        self.reviewer = clean_reviewer(reviewer or default_reviewer())  # the one rule a name meets
        self.db_path = str(db_path)
        self.study_path = str(study_path) if study_path else None
        self.autostart = autostart
        own = methods.design_screen(design.study_method(self.study_path)) if self.study_path else None
        if own is not None:  # the method's own Design screen (identity: its prompt template)
            self._modes["design"] = own

    def on_mount(self) -> None:
        self.sub_title = f"{Path(self.db_path).name} · reviewer {self.reviewer}"
        if self.autostart:
            self.call_after_refresh(self._autostart)
        self.run_worker(
            partial(_warm_metrics, self.db_path), thread=True, group="warm", description="Loading what Metrics reads"
        )

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Headless (tests, snapshots) a text cursor holds still: a blinking one makes every
        picture of the screen depend on the moment it is taken."""
        if self.is_headless and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    # -- leaving a screen with unsaved changes (the template, the study file) -----

    def _unsaved_screen(self) -> Screen | None:
        """The screen on view (or under its modal) with changes it can save, if any."""
        return next(
            (s for s in reversed(self.screen_stack) if hasattr(s, "save_changes") and getattr(s, "unsaved", False)),
            None,
        )

    def _leave(self, leaving: str, then: Callable[[], object], revert: bool = True) -> None:
        """`then()` (another screen, quitting), asking first when the screen on view has
        unsaved changes: save them, discard them (`revert`: the screen shows the saved
        version again), or stay."""
        if isinstance(self.screen, ConfirmUnsaved):
            return  # the question on view is answered first
        screen = self._unsaved_screen()
        if screen is None:
            then()
            return

        def answered(choice: str | None) -> None:
            if choice == "save" and not screen.save_changes():
                return  # not saved: the error is on view and the changes are kept
            if choice == "discard" and revert:
                screen.discard_changes()
            if choice is not None:
                then()

        self.push_screen(ConfirmUnsaved(screen.UNSAVED_WHAT, leaving), answered)

    def go(self, mode: str) -> None:
        """Another screen (the keys 1-5, the palette); unsaved changes are asked about first."""
        if mode == self.current_mode:
            self.switch_mode(mode)
        else:
            self._leave(f"going to {mode.title()}", lambda: self.switch_mode(mode))

    async def action_switch_mode(self, mode: str) -> None:
        self.go(mode)

    async def action_quit(self) -> None:
        """q, Ctrl+Q and the palette's Quit: unsaved changes are asked about first."""
        self._leave("quitting", self.exit, revert=False)

    def _autostart(self) -> None:
        screen = self.screen
        if isinstance(screen, RunScreen):
            screen.action_start()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            section = {
                "run": "Run",
                "metrics": "Metrics",
                "design": "Design",
                "review": "Review",
                "entities": "Entities",
            }.get(self.current_mode)
            self.push_screen(HelpScreen(section, self._help_methods(), study_file=self.study_path is not None))

    def _help_methods(self) -> list[str] | None:
        """The methods the help lists the keys of: the store's studies' and the study file's,
        as the screens offer their views (None, every method: the store unreadable)."""
        from workbench.store.db import reading
        from workbench.store.requests import studies

        try:
            with reading(self.db_path) as conn:
                held = studies.study_methods(conn)
        except (UserFacingError, sqlite3.Error):
            return None
        return [*held, design.study_method(self.study_path)] if self.study_path else held

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity="information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast is literal text: messages carry entity names, model output and
        server errors, where "[/x]" would be markup (and crash) and ESC would reach the
        terminal. Control characters are shown as escapes; markup is never parsed."""
        super().notify(
            visible(str(message)), title=visible(str(title)), severity=severity, timeout=timeout, markup=False
        )

    def action_help_quit(self) -> None:
        """Ctrl+C (which does not quit): say which key does, in words. Textual's own toast is
        written in markup, which every toast here shows literally ("Press [b]ctrl+q[/b] ...")."""
        keys = [key for key, bound in self.active_bindings.items() if bound.binding.action in ("quit", "app.quit")]
        if keys:
            self.notify(f"Press {' or '.join(keys)} to quit the app", title="Do you want to quit?")

    def show_error(self, title: str, message: str) -> None:
        self.push_screen(ErrorModal(title, message))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette holds every action: going to a screen, help, and each key of the
        screen on view (with the key, so the palette also teaches it)."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Go to Run", "Live progress: start, cancel, retry", lambda: self.go("run"))
        yield SystemCommand("Go to Metrics", "PEIR, stability, geographic LOR", lambda: self.go("metrics"))
        yield SystemCommand("Go to Design", "Questions, clusters, models; save the study", lambda: self.go("design"))
        yield SystemCommand("Go to Review", "Accept, edit or reject extracted lists", lambda: self.go("review"))
        yield SystemCommand("Go to Entities", "Merge duplicates, forbid, undo", lambda: self.go("entities"))
        yield SystemCommand(
            "Import a file", "Questions, mentions, entities, rankings, scores, ...", self.action_import_file
        )
        yield SystemCommand(
            "Export records", "Responses, metrics, decisions, ... to a file you name", self.action_export_file
        )
        yield SystemCommand("Help", "Every key and what it does", self.action_help)
        yield from screen_commands(screen)

    # -- imports and exports, every kind the command line offers ---------------------

    def _study_name(self) -> str:
        """The study the app was started with, proposed in the dialogs ("" when none or unreadable)."""
        import tomllib

        try:
            return (
                str(tomllib.loads(Path(self.study_path).read_text("utf-8")).get("name", "")) if self.study_path else ""
            )
        except (OSError, ValueError):
            return ""

    def action_import_file(self) -> None:
        found = transfer_kinds()
        self.push_screen(ImportDialog(found.imports, found.options(), self._study_name()), self._import_chosen)

    def _import_chosen(self, chosen: dict | None) -> None:
        if chosen:
            self.run_worker(partial(self._import, chosen), thread=True, group="transfer", description="Importing")

    def _import(self, chosen: dict) -> None:
        try:
            lines = transfer.import_file(self.db_path, chosen["kind"], chosen["file"], chosen["options"])
        except UserFacingError as exc:
            self.notify(str(exc), title="Nothing was imported", severity="error", timeout=12)
            return
        self.notify("\n".join(lines), title=f"Imported {chosen['kind']}", timeout=10)

    def action_export_file(self, kind: str | None = None) -> None:
        from workbench.transfer.export_kinds import export_kinds

        self.push_screen(ExportDialog(export_kinds(), self.db_path, self._study_name(), kind), self._export_chosen)

    def _export_chosen(self, chosen: dict | None) -> None:
        if chosen:
            self.run_worker(partial(self._export, chosen), thread=True, group="transfer", description="Exporting")

    def _export(self, chosen: dict) -> None:
        try:
            excel = chosen["format"] == "excel"  # CSV with a byte-order mark
            written, count = transfer.export_file(
                self.db_path,
                chosen["kind"],
                chosen["output"],
                study=chosen["study"],
                fmt="csv" if excel else chosen["format"],
                excel=excel,
            )
        except UserFacingError as exc:
            self.notify(str(exc), title="Nothing was exported", severity="error", timeout=12)
            return
        self.notify(f"Wrote {plural(count, 'record')} to {written}", title=f"Exported {chosen['kind']}", timeout=10)
