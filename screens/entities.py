"""The Entities screen: suggested merges strict to lax, or every entity searched and marked by
hand; one key per decision, each logged as the reviewer's own and undoable by them."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from workbench.entities import dedup
from workbench.screens.entity_decisions import EntityDecisions
from workbench.store.db import reading
from workbench.store.entities.listing import EntityRow, entity_rows, matching
from workbench.text.literal import visible
from workbench.widgets.entity_history import AssignRegion, OwnDecisions
from workbench.widgets.entity_text import entity_cells, entity_detail, plural, suggestion_cells, suggestion_detail
from workbench.widgets.live import LiveStore
from workbench.widgets.modebar import ModeBar
from workbench.widgets.search_box import SearchBox

# Keys of the suggestions only: hidden (footer and palette) while every entity is listed.
SUGGESTION_KEYS = set("rename_and_accept forbid drop_members skip next_method next_size next_score".split())
# Keys with a second binding, `(True)`, for the entity list (see EntitiesScreen.BINDINGS).
LIST_KEYS = {"mark", "set_region", "switch_view", "search"}
SHOWN = 500  # rows of the entity list at most: typing narrows it


class EntitiesScreen(EntityDecisions, OwnDecisions, AssignRegion, LiveStore, Screen):
    # In the footer's order. The keys of LIST_KEYS have two bindings, one per view, and
    # `check_action` offers one: the entity list's, `(True)`, shows mark, region and the way
    # back in the footer, and not search (its box is on view).
    BINDINGS = [
        Binding("space", "mark(True)", "Mark", tooltip="Mark or unmark the highlighted entity"),
        Binding("space", "mark", "Mark", show=False, tooltip="Mark or unmark the entity (or the cluster's members)"),
        Binding("a", "accept", "Merge", tooltip="Merge the marked entities (name asked), else the cluster"),
        Binding("e", "rename_and_accept", "Name", tooltip="Choose the canonical name, then merge"),
        Binding("x", "forbid", "Forbid", tooltip="These are different: never suggest them together"),
        Binding("d", "drop_members", "Drop", tooltip="Choose which members to merge (untick the others)"),
        Binding("g", "set_region(True)", "Region", tooltip="Assign a region to the marked or highlighted ones"),
        Binding("g", "set_region", "Region", show=False, tooltip="Assign a region to the marked or highlighted ones"),
        Binding("u", "undo", "Undo", tooltip="Undo your latest entity decision"),
        Binding("slash", "search(True)", "Search", show=False, tooltip="Search every entity by name or spelling"),
        Binding("slash", "search", "Search", tooltip="Search every entity by name or spelling"),
        Binding("v", "switch_view(True)", "Suggestions", tooltip="Back to the suggested clusters"),
        Binding("v", "switch_view", "All entities", show=False, tooltip="Every entity, or the suggested clusters"),
        Binding("h", "decisions", "History", tooltip="Your entity decisions, latest first; u undoes"),
        Binding("s", "skip", "Skip", show=False, tooltip="Leave this cluster for now"),
        Binding("r", "recluster", "Re-cluster", show=False, tooltip="Read the entities again and suggest afresh"),
        Binding("m", "next_method", "Method", show=False, tooltip="All methods, or fingerprint / ngram / nearest only"),
        Binding("z", "next_size", "Size", show=False, tooltip="Only clusters of at least 2 / 3 / 5 members"),
        Binding("c", "next_score", "Score", show=False, tooltip="Only clusters scoring at least 100 / 95 / 90"),
        Binding("y", "redo", "Redo", show=False, tooltip="Redo your latest undone entity decision"),
    ]
    DEFAULT_CSS = """
    EntitiesScreen #entity-search { background: $boost; }
    EntitiesScreen #entities-table { height: 1fr; }
    /* Read again after a change elsewhere: shown, but visibly not current. */
    EntitiesScreen .stale { opacity: 60%; }
    """
    METHODS = ("all", "fingerprint", "ngram", "nearest")
    SIZES = (2, 3, 5)
    SCORES = (0.0, 100.0, 95.0, 90.0)

    @dataclass
    class Reclustered(Message, bubble=False):
        """A worker read the entities and suggested their merges afresh."""

        found: list[dedup.Suggestion]
        entity_count: int

    @dataclass
    class Listed(Message, bubble=False):
        """A worker read every entity (the suggestions follow)."""

        listed: list[EntityRow]

    @dataclass
    class DecisionDone(Message, bubble=False):
        """A worker stored the reviewer's decision (`note` says what it did), or the store refused it."""

        note: str = ""
        refused: str = ""

    def __init__(self) -> None:
        super().__init__()
        self.suggestions: list[dedup.Suggestion] = []
        self.busy = False  # a decision is being stored and the clusters computed again
        self.clusterings = 0  # finished clusterings, for anyone waiting on them
        self.clustering = False  # the entities are being read and clustered
        self.listings = 0  # lists of every entity read and shown
        self._live = False  # ... because the store changed elsewhere (the session's total stays)
        self.session_total = 0  # clusters when first shown: "9 left of 10" after one decision
        self.skipped: set[tuple[str, ...]] = set()
        self.method = "all"
        self.entity_count = 0
        self.min_size = 2
        self.min_score = 0.0
        self.view = "suggestions"  # or "all": every entity, searched and marked by hand
        self.entities: list[EntityRow] = []
        self._listed: list[EntityRow] = []  # the rows of the entity list, as shown
        self.search = ""
        self.marked: dict[str, None] = {}  # entity names, in the order they were marked

    def compose(self) -> ComposeResult:
        yield ModeBar("entities")
        yield Static(id="entities-status")
        yield SearchBox(
            "#entities-table", id="entity-search", placeholder="/ searches names and spellings", compact=True
        )
        yield DataTable(id="suggestions-table", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="entities-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="suggestion-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#suggestions-table", DataTable)
        for column in ("method", "score", "canonical", "members"):
            table.add_column(column, key=column)
        listed = self.query_one("#entities-table", DataTable)
        for column in ("", "name", "mentions", "region"):
            listed.add_column(column, key=column or "mark")
        self._switch(self.view)
        self.follow_store()  # another process's merges and regions show here without `r`
        self.action_recluster()

    def on_screen_resume(self) -> None:
        self.poll_store()

    def on_unmount(self) -> None:
        self.stop_following()

    def store_busy(self) -> bool:
        return self.busy or self.clustering

    def store_changed(self) -> None:
        """Changed elsewhere while shown: read the entities again, the rows dimmed until then."""
        for widget in self.query("#suggestions-table, #entities-table, #suggestion-detail"):
            widget.add_class("stale")
        self._live = True
        self.action_recluster()

    @property
    def who(self) -> str:
        return self.app.reviewer

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        listing = self.view == "all"
        if action in SUGGESTION_KEYS:
            return not listing
        if action in LIST_KEYS:  # one of its two bindings: the footer's in the list, the other in suggestions
            return bool(parameters) == listing
        return True

    # -- the two views ------------------------------------------------------------------

    def _switch(self, view: str) -> None:
        self.view = view
        listing = view == "all"
        self.query_one("#entity-search").display = listing
        self.query_one("#entities-table").display = listing
        self.query_one("#suggestions-table").display = not listing
        self.query_one("#entities-table" if listing else "#suggestions-table", DataTable).focus()
        self.refresh_bindings()
        self._status()
        self._detail()

    def action_switch_view(self, _list: bool = False) -> None:
        self._switch("suggestions" if self.view == "all" else "all")

    def action_search(self, _list: bool = False) -> None:
        if self.view != "all":
            self._switch("all")
        self.query_one("#entity-search", SearchBox).focus()

    @on(Input.Changed, "#entity-search")
    def _searched(self, event: Input.Changed) -> None:
        self.search = event.value
        self._fill_entities(keep_cursor=False)

    def matching(self) -> list[EntityRow]:
        return matching(self.entities, self.search)

    def _fill_entities(self, keep_cursor: bool = True) -> None:
        table = self.query_one("#entities-table", DataTable)
        cursor = (table.cursor_row or 0) if keep_cursor else 0
        names = [e.name for e in self._listed]
        if keep_cursor and cursor < len(names):  # the same entity stays highlighted when rows come and go
            row = {e.name: i for i, e in enumerate(self.matching()[:SHOWN])}.get(names[cursor])
            cursor = cursor if row is None else row
        table.clear()
        self._listed = self.matching()[:SHOWN]
        for e in self._listed:
            table.add_row(*entity_cells(e, e.name in self.marked))
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        self._status()
        self._detail()

    def highlighted_entity(self) -> EntityRow | None:
        shown = self.matching()[:SHOWN]
        row = self.query_one("#entities-table", DataTable).cursor_row
        return shown[row] if shown and row is not None and row < len(shown) else None

    # -- what the screen shows ----------------------------------------------------------

    def _status(self, note: str = "") -> None:
        marks = f" · {len(self.marked)} marked" if self.marked else ""
        if self.view == "all":
            found = len(self.matching())
            text = (
                f" {found} of {plural(len(self.entities), 'entity', 'entities')}"
                + (f" match {self.search.strip()!r}" if self.search.strip() else "")
                + (f" · first {SHOWN} shown" if found > SHOWN else "")
                + marks
            )
        else:
            left = len(self.visible_suggestions())
            text = (
                f" {left} left of {max(self.session_total, left)} clusters · {self.entity_count} entities · "
                f"{self.method} · size >= {self.min_size}"
                + (f" · score >= {self.min_score:g}" if self.min_score else "")
                + marks
            )
        text += f" · {note}" if note else ""
        self.query_one("#entities-status", Static).update(Text(visible(text), no_wrap=True, overflow="ellipsis"))

    def visible_suggestions(self) -> list[dedup.Suggestion]:
        return [
            s
            for s in self.suggestions
            if tuple(s.members) not in self.skipped and len(s.members) >= self.min_size and s.score >= self.min_score
        ]

    def action_recluster(self) -> None:
        self.store_read_begins()
        self.clustering = True
        self._cluster()

    @work(thread=True, exclusive=True, group="dedup", description="Clustering entities")
    def _cluster(self) -> None:
        with reading(self.app.db_path) as conn:
            self.post_message(self.Listed(entity_rows(conn)))  # the list of every entity first: clustering is longer
            index = dedup.load_entities(conn)
        methods = dedup.METHODS if self.method == "all" else (self.method,)
        found = dedup.suggest(index.names, index.counts, methods=methods, forbidden=index.forbidden)
        self.post_message(self.Reclustered(found, len(index.names)))

    def on_entities_screen_reclustered(self, message: Reclustered) -> None:
        self.clusterings += 1
        if not self.busy and not self._live:  # clustered afresh (not after a decision): the total starts again
            self.session_total = len(message.found)
        self.busy = self.clustering = self._live = False  # the decision that asked for it is done and shown
        for widget in self.query(".stale"):
            widget.remove_class("stale")
        self._show(message.found, message.entity_count)

    def on_entities_screen_listed(self, message: Listed) -> None:
        self.listings += 1
        self.query_one("#entities-table").remove_class("stale")
        self.entities = message.listed
        names = {e.name for e in message.listed}
        self.marked = {n: None for n in self.marked if n in names}  # a name gone (merged away) is no mark
        self._fill_entities()

    def _show(self, found: list[dedup.Suggestion], entity_count: int) -> None:
        self.suggestions, self.entity_count = found, entity_count
        table = self.query_one("#suggestions-table", DataTable)
        cursor = table.cursor_row or 0
        table.clear()
        for s in self.visible_suggestions():
            table.add_row(*suggestion_cells(s, self.marked))
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        if self.view == "suggestions" and not isinstance(self.focused, Input):
            table.focus()
        self._status()
        self._detail()

    def _detail(self) -> None:
        if self.view == "all":
            e = self.highlighted_entity()
            lines = entity_detail(e) if e else []
        else:
            s = self.current()
            lines = suggestion_detail(s) if s else []
        self.query_one("#suggestion-detail", Static).update(Text(visible("\n".join(lines))))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    def current(self) -> dedup.Suggestion | None:
        shown = self.visible_suggestions()
        row = self.query_one("#suggestions-table", DataTable).cursor_row
        return shown[row] if shown and row is not None and row < len(shown) else None

    def highlighted_names(self) -> list[str]:
        """The entities the highlighted row stands for: one entity, or a cluster's members."""
        if self.view == "all":
            e = self.highlighted_entity()
            return [e.name] if e else []
        s = self.current()
        return list(s.members) if s else []

    def action_mark(self, _list: bool = False) -> None:
        names = self.highlighted_names()
        if not names:
            return
        if all(n in self.marked for n in names):
            for n in names:
                self.marked.pop(n, None)
        else:
            self.marked.update(dict.fromkeys(names))
        if self.view == "all":
            self._fill_entities()
        else:
            self._show(self.suggestions, self.entity_count)

    def action_skip(self) -> None:
        s = self.current()
        if s is not None:
            self.skipped.add(tuple(s.members))
            self._show(self.suggestions, self.entity_count)

    def action_next_size(self) -> None:
        self.min_size = self.SIZES[(self.SIZES.index(self.min_size) + 1) % len(self.SIZES)]
        self._show(self.suggestions, self.entity_count)

    def action_next_score(self) -> None:
        self.min_score = self.SCORES[(self.SCORES.index(self.min_score) + 1) % len(self.SCORES)]
        self._show(self.suggestions, self.entity_count)

    def action_next_method(self) -> None:
        self.method = self.METHODS[(self.METHODS.index(self.method) + 1) % len(self.METHODS)]
        self.action_recluster()
