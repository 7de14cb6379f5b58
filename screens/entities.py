"""The Entities screen: suggested merges, strict to lax, one key per decision, undo."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from workbench import dedup
from workbench.literal import visible, visible_line
from workbench.store import entities as registry
from workbench.store.db import opened
from workbench.store.errors import UserFacingError
from workbench.widgets.modals import EditText, PickMembers, PickRegion
from workbench.widgets.modebar import ModeBar


def clip(text: str, width: int, tell: bool = False) -> str:
    """A name cut to `width` characters, so one long name cannot push the members off
    screen; with `tell`, how long it really is."""
    if len(text) <= width:
        return text
    return text[: width - 1] + "…" + (f" ({len(text):,} characters)" if tell else "")


class EntitiesScreen(Screen):
    BINDINGS = [
        Binding("a", "accept", "Merge", tooltip="Merge the cluster under its proposed name"),
        Binding("e", "rename_and_accept", "Edit name", tooltip="Choose the canonical name, then merge"),
        Binding("x", "forbid", "Forbid", tooltip="These are different: never suggest them together"),
        Binding("d", "drop_members", "Drop member", tooltip="Choose which members to merge (untick the others)"),
        Binding("g", "set_region", "Region", show=False, tooltip="Assign a region to every member (bulk)"),
        Binding("s", "skip", "Skip", show=False, tooltip="Leave this cluster for now"),
        Binding("u", "undo", "Undo", tooltip="Undo the latest entity decision"),
        Binding("r", "recluster", "Re-cluster", tooltip="Suggest again from the current entities"),
        Binding("m", "next_method", "Method", show=False, tooltip="All methods, or fingerprint / ngram / nearest only"),
        Binding("z", "next_size", "Size", show=False, tooltip="Only clusters of at least 2 / 3 / 5 members"),
        Binding("c", "next_score", "Score", show=False, tooltip="Only clusters scoring at least 100 / 95 / 90"),
        Binding("y", "redo", "Redo", show=False, tooltip="Redo the latest undone entity decision"),
    ]
    METHODS = ("all", "fingerprint", "ngram", "nearest")
    SIZES = (2, 3, 5)
    SCORES = (0.0, 100.0, 95.0, 90.0)

    def __init__(self) -> None:
        super().__init__()
        self.suggestions: list[dedup.Suggestion] = []
        self.busy = False  # a decision is being stored and the clusters computed again
        self.clusterings = 0  # finished clusterings, for anyone waiting on them
        self.session_total = 0  # clusters when first shown: "9 left of 10" after one decision
        self.skipped: set[tuple[str, ...]] = set()
        self.method = "all"
        self.entity_count = 0
        self.min_size = 2
        self.min_score = 0.0

    def compose(self) -> ComposeResult:
        yield ModeBar("entities")
        yield Static(id="entities-status")
        yield DataTable(id="suggestions-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="suggestion-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#suggestions-table", DataTable)
        for column in ("method", "score", "canonical", "members"):
            table.add_column(column, key=column)
        self.action_recluster()

    @property
    def who(self) -> str:
        return self.app.reviewer

    def _status(self, note: str = "") -> None:
        left = len(self.visible_suggestions())
        text = (
            f" {left} left of {max(self.session_total, left)} clusters · {self.entity_count} entities · "
            f"{self.method} · size >= {self.min_size}"
            + (f" · score >= {self.min_score:g}" if self.min_score else "")
            + (f" · {note}" if note else "")
        )
        self.query_one("#entities-status", Static).update(Text(visible(text), no_wrap=True, overflow="ellipsis"))

    def visible_suggestions(self) -> list[dedup.Suggestion]:
        return [
            s
            for s in self.suggestions
            if tuple(s.members) not in self.skipped and len(s.members) >= self.min_size and s.score >= self.min_score
        ]

    @work(thread=True, exclusive=True, group="dedup", description="Clustering entities")
    def action_recluster(self) -> None:
        with opened(self.app.db_path) as conn:
            index = dedup.load_entities(conn)
        methods = dedup.METHODS if self.method == "all" else (self.method,)
        found = dedup.suggest(index.names, index.counts, methods=methods, forbidden=index.forbidden)
        self.app.call_from_thread(self._reclustered, found, len(index.names))

    def _reclustered(self, found: list[dedup.Suggestion], entity_count: int) -> None:
        self.clusterings += 1
        if not self.busy:  # clustered afresh (not after a decision): the total starts again
            self.session_total = len(found)
        self.busy = False  # the decision that asked for it is done and shown
        self._show(found, entity_count)

    def _show(self, found: list[dedup.Suggestion], entity_count: int) -> None:
        self.suggestions, self.entity_count = found, entity_count
        table = self.query_one("#suggestions-table", DataTable)
        cursor = table.cursor_row or 0
        table.clear()
        for s in self.visible_suggestions():
            members = ", ".join(f"{m} ({c})" for m, c in zip(s.members, s.counts))
            table.add_row(
                s.method, f"{s.score:.0f}", Text(clip(visible_line(s.canonical), 32)), Text(visible_line(members))
            )
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        table.focus()
        self._status()
        self._detail()

    def _detail(self) -> None:
        s = self.current()
        text = (
            ""
            if s is None
            else "\n".join(
                f"{clip(visible_line(m), 160, tell=True)}  ({c} mention{'' if c == 1 else 's'}{', ' + r if r else ''})"
                for m, c, r in zip(s.members, s.counts, s.reasons or [""] * len(s.members))
            )
        )
        self.query_one("#suggestion-detail", Static).update(Text(visible(text)))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    def current(self) -> dedup.Suggestion | None:
        shown = self.visible_suggestions()
        row = self.query_one("#suggestions-table", DataTable).cursor_row
        return shown[row] if shown and row is not None and row < len(shown) else None

    def _decide(self, action, note: str | Callable[[Any], str]) -> None:
        """Store a decision in a worker (a store busy with a run never freezes the
        keys), then say what happened and cluster again."""
        if self.busy:  # a second key now would decide on the same cluster twice
            return
        self.busy = True
        self._store(action, note)

    @work(thread=True, group="entity-decisions", description="Saving the decision")
    def _store(self, action, note) -> None:
        try:
            with opened(self.app.db_path) as conn:
                result = action(conn)
        except (UserFacingError, sqlite3.Error) as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            self.busy = False
            return
        self.app.call_from_thread(self.notify, note(result) if callable(note) else note)
        self.app.call_from_thread(self.action_recluster)

    def action_accept(self, name: str | None = None) -> None:
        s = self.current()
        if s is None:
            return
        into = name or s.canonical
        self._decide(
            lambda conn: registry.merge(
                conn, s.members, into, who=self.who, why=f"{s.method} suggestion", include_into=name is not None
            ),
            f"Merged {len(s.members)} into {into}; u undoes it.",
        )

    def action_rename_and_accept(self) -> None:
        s = self.current()
        if s is not None:
            self.app.push_screen(
                EditText("Canonical name for the merged entity", s.canonical),
                lambda name: self.action_accept(name) if name else None,
            )

    def action_forbid(self) -> None:
        s = self.current()
        if s is None:
            return

        def forbid_all(conn) -> None:
            for other in s.members[1:]:
                registry.forbid(conn, s.members[0], other, who=self.who, why="rejected suggestion")

        self._decide(forbid_all, "Marked as different; they will not be suggested together again.")

    def action_drop_members(self) -> None:
        s = self.current()
        if s is None:
            return

        def done(keep: list[str] | None) -> None:
            if keep is None:
                return
            if len(keep) < 2:
                self.notify("Keep at least two members to merge (x marks them all as different).", severity="warning")
                return
            counts = [s.counts[s.members.index(m)] for m in keep]
            reasons = [s.reasons[s.members.index(m)] if s.reasons else "" for m in keep]
            index = self.suggestions.index(s)
            self.suggestions[index] = dedup.Suggestion(keep[0], keep, counts, s.score, s.method, reasons)
            self._show(self.suggestions, self.entity_count)

        notes = [
            f"{c} mention{'' if c == 1 else 's'}" + (f", {r}" if r else "")
            for c, r in zip(s.counts, s.reasons or [""] * len(s.members))
        ]
        self.app.push_screen(PickMembers(s.members, notes), done)

    def action_set_region(self) -> None:
        s = self.current()
        if s is not None:
            self._ask_region(s)

    @work(thread=True, group="entity-regions", description="Reading the known regions")
    def _ask_region(self, s: dedup.Suggestion) -> None:
        from workbench.store.regions import known_regions

        try:
            with opened(self.app.db_path) as conn:
                known = known_regions(conn)
        except sqlite3.Error as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return

        def done(choice: tuple[str, bool] | None) -> None:
            if choice is None:
                return
            from workbench.store.mentions import set_entity_attributes

            region, new = choice  # in its one spelling; a new region only once the user said so
            rows = [{"name": m, "region": region} for m in s.members]
            self._decide(
                lambda conn: set_entity_attributes(conn, rows, new_regions=new)[0],
                lambda updated: f"Region {region} assigned to {updated} entities.",
            )

        self.app.call_from_thread(self.app.push_screen, PickRegion(known, len(s.members)), done)

    def action_skip(self) -> None:
        s = self.current()
        if s is not None:
            self.skipped.add(tuple(s.members))
            self._show(self.suggestions, self.entity_count)

    def action_undo(self) -> None:
        self._decide(registry.undo, lambda undone: f"Undid: {undone['summary']}" if undone else "Nothing to undo.")

    def action_next_size(self) -> None:
        self.min_size = self.SIZES[(self.SIZES.index(self.min_size) + 1) % len(self.SIZES)]
        self._show(self.suggestions, self.entity_count)

    def action_next_score(self) -> None:
        self.min_score = self.SCORES[(self.SCORES.index(self.min_score) + 1) % len(self.SCORES)]
        self._show(self.suggestions, self.entity_count)

    def action_redo(self) -> None:
        self._decide(registry.redo, lambda redone: f"Redid: {redone['summary']}" if redone else "Nothing to redo.")

    def action_next_method(self) -> None:
        self.method = self.METHODS[(self.METHODS.index(self.method) + 1) % len(self.METHODS)]
        self.action_recluster()
