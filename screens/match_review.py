"""Review of cold-start catalog matches: one ranked list at a time, each item's answer
text beside the catalog entry it was matched to; correct, mark out of catalog, undo."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from workbench.literal import visible
from workbench.store import match_reviews
from workbench.store.db import opened
from workbench.widgets.modals import EditText

FILTERS = ("all", "unmatched", "uncertain")


class MatchReviewScreen(Screen):
    PALETTE_NAME = "Catalog matches"
    BINDINGS = [
        Binding("e", "edit", "Correct", tooltip="Type the catalog entry this item means"),
        Binding("x", "out", "Not in catalog", tooltip="The item is not a catalog entry"),
        Binding("n,right", "move(1)", "Next list"),
        Binding("p,left", "move(-1)", "Prev list", show=False),
        Binding("u", "undo", "Undo", tooltip="Take back your latest correction"),
        Binding("f", "next_filter", "Filter", tooltip="All lists, lists with unmatched items, or uncertain matches"),
        Binding("s", "next_study", "Study", show=False, tooltip="Next cold-start study"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    DEFAULT_CSS = """
    MatchReviewScreen #match-status { height: 1; }
    MatchReviewScreen #match-table { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.filter = "all"
        self.studies: list[tuple[int, str]] = []
        self.study = 0
        self.lists: list[list[dict]] = []
        self.position = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="match-status")
        yield DataTable(id="match-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#match-table", DataTable)
        table.add_columns("rank", "the answer said", "catalog entry", "score", "by")
        with opened(self.app.db_path) as conn:
            self.studies = match_reviews.studies_with_rankings(conn)
        self.load()
        table.focus()

    def load(self, keep: str | None = None) -> None:
        self.lists = []
        if self.studies:
            with opened(self.app.db_path) as conn:
                every = match_reviews.rows(conn, self.studies[self.study][0])
            grouped: dict[tuple, list[dict]] = {}
            for row in every:
                grouped.setdefault((row["model"], row["seed"], row["persona_category"], row["persona"]), []).append(row)
            wanted = {"all": lambda r: True, "unmatched": lambda r: r["item"] is None and r["surface"],
                      "uncertain": lambda r: r["item"] is not None and (r["match_score"] or 0) < 95}[self.filter]
            self.lists = [rows for rows in grouped.values() if any(wanted(r) for r in rows)]
        if keep is not None:
            for index, rows in enumerate(self.lists):
                if any(r["key"] == keep for r in rows):
                    self.position = index
        self.position = min(self.position, max(len(self.lists) - 1, 0))
        self.show(keep)

    def show(self, keep: str | None = None) -> None:
        table = self.query_one("#match-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        status = self.query_one("#match-status", Static)
        if not self.lists:
            status.update(" No cold-start lists with this filter (f changes it)." if self.studies else
                          " No cold-start rankings in this database.")
            return
        rows = self.lists[self.position]
        first = rows[0]
        status.update(Text(visible(
            f" {self.studies[self.study][1]} · {self.filter}: list {self.position + 1}/{len(self.lists)} · "
            f"{first['model']} · seed {first['seed']} · {first['persona_category'] or '-'}: {first['persona']}"),
            no_wrap=True, overflow="ellipsis"))
        for row in rows:
            score = "" if row["match_score"] is None else f"{row['match_score']:.0f}"
            table.add_row(str(row["rank"]), Text(visible(row["surface"] or "(no item)")),
                          Text(visible(row["item"] or "— not in catalog —"), style="" if row["item"] else "dim"),
                          score, Text(visible(row["corrected_by"] or "")), key=row["key"])
        keys = [r["key"] for r in rows]
        table.move_cursor(row=keys.index(keep) if keep in keys else min(cursor or 0, len(rows) - 1))

    def _current(self) -> dict | None:
        table = self.query_one("#match-table", DataTable)
        if not self.lists or table.cursor_row is None:
            return None
        rows = self.lists[self.position]
        return rows[min(table.cursor_row, len(rows) - 1)]

    def _correct(self, item: str | None) -> None:
        row = self._current()
        if row is None:
            return
        try:
            with opened(self.app.db_path) as conn:
                match_reviews.correct(conn, self.studies[self.study][0], row["key"], item, self.app.reviewer)
        except ValueError as exc:
            self.app.show_error("Not corrected", str(exc))
            return
        self.load(keep=row["key"])

    def action_edit(self) -> None:
        row = self._current()
        if row is not None:
            self.app.push_screen(EditText("Catalog entry this item means (closest title is taken)",
                                          row["item"] or row["surface"] or ""),
                                 lambda text: self._correct(text) if text and text.strip() else None)

    def action_out(self) -> None:
        self._correct(None)

    def action_undo(self) -> None:
        if not self.studies:
            return
        with opened(self.app.db_path) as conn:
            undone = match_reviews.undo(conn, self.studies[self.study][0], self.app.reviewer)
        if undone is None:
            self.notify("Nothing to undo.")
            return
        self.notify(f"Undone; the item is {undone['restored'] or 'not in the catalog'} again.")
        self.load(keep=undone["key"])

    def action_move(self, step: int) -> None:
        if self.lists:
            self.position = max(0, min(len(self.lists) - 1, self.position + step))
            self.show()

    def action_next_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.position = 0
        self.load()

    def action_next_study(self) -> None:
        if self.studies:
            self.study = (self.study + 1) % len(self.studies)
            self.position = 0
            self.load()
