"""Review of cold-start catalog matches: one ranked list at a time, each item's answer
text beside the catalog entry it was matched to; correct, mark out of catalog, undo."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from workbench.methods.coldstart import match_reviews
from workbench.text.literal import visible
from workbench.widgets.modals import EditText
from workbench.widgets.modebar import ModeBar
from workbench.widgets.pager import PagerScreen

FILTERS = ("all", "unmatched", "uncertain")


class MatchReviewScreen(PagerScreen):
    PALETTE_NAME = "Catalog matches"
    FILTERS = FILTERS
    BINDINGS = [
        Binding("e", "edit", "Correct", tooltip="Type the catalog entry this item means"),
        Binding("x", "out", "Not in catalog", tooltip="The item is not a catalog entry"),
        Binding("n,right", "move(1)", "Next", tooltip="Next ranked list"),
        Binding("p,left", "move(-1)", "Prev list", show=False, tooltip="Previous ranked list"),
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
        self.studies: list[tuple[int, str]] = []
        self.study = 0
        self.keep_row: str | None = None

    @property
    def lists(self) -> list[list[dict]]:
        return self.pages

    def compose(self) -> ComposeResult:
        yield ModeBar("review", "catalog matches")
        yield Static(id="match-status")
        yield DataTable(id="match-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#match-table", DataTable)
        table.add_columns("rank", "the answer said", "catalog entry", "score", "by")
        self.load()
        table.focus()

    def fetch(self, conn) -> tuple[list[list[dict]], tuple[list[tuple[int, str]], int]]:
        studies = match_reviews.studies_with_rankings(conn)
        if not studies:
            return [], (studies, 0)
        study = min(self.study, len(studies) - 1)  # a study gone since: the last one left
        grouped: dict[tuple, list[dict]] = {}
        for row in match_reviews.rows(conn, studies[study][0]):
            grouped.setdefault((row["model"], row["seed"], row["persona_category"], row["persona"]), []).append(row)
        wanted = {
            "all": lambda r: True,
            "unmatched": lambda r: r["item"] is None and r["surface"],
            "uncertain": lambda r: r["item"] is not None and (r["match_score"] or 0) < 95,
        }[self.filter]
        return [rows for rows in grouped.values() if any(wanted(r) for r in rows)], (studies, study)

    def adopt(self, more: tuple[list[tuple[int, str]], int]) -> None:
        self.studies, self.study = more

    def load(self, keep: str | None = None, advance: int = 0) -> None:
        """`keep` names a row (an item), not a list: the list holding it is shown, the row selected."""
        self.keep_row = keep
        super().load(keep, advance)

    def page_key(self, page: list[dict]) -> str:
        return page[0]["key"]

    def _loaded(self, pages, keep, advance: int = 0) -> None:
        if keep is not None:
            for rows in pages:
                if any(r["key"] == keep for r in rows):
                    keep = rows[0]["key"]
                    break
        super()._loaded(pages, keep, advance)

    def show(self) -> None:
        keep, self.keep_row = self.keep_row, None
        table = self.query_one("#match-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        status = self.query_one("#match-status", Static)
        if not self.pages:
            status.update(
                " No cold-start lists with this filter (f changes it)."
                if self.studies
                else " No cold-start rankings in this database."
            )
            return
        rows = self.pages[self.position]
        first = rows[0]
        status.update(
            Text(
                visible(
                    f" {self.studies[self.study][1]} · {self.filter}: list {self.position + 1}/{len(self.pages)} · "
                    f"{first['model']} · seed {first['seed']} · {first['persona_category'] or '-'}: {first['persona']}"
                ),
                no_wrap=True,
                overflow="ellipsis",
            )
        )
        for row in rows:
            score = "" if row["match_score"] is None else f"{row['match_score']:.0f}"
            table.add_row(
                str(row["rank"]),
                Text(visible(row["surface"] or "(no item)")),
                Text(visible(row["item"] or "— not in catalog —"), style="" if row["item"] else "dim"),
                score,
                Text(visible(row["corrected_by"] or "")),
                key=row["key"],
            )
        keys = [r["key"] for r in rows]
        table.move_cursor(row=keys.index(keep) if keep in keys else min(cursor or 0, len(rows) - 1))

    def _current(self) -> dict | None:
        table = self.query_one("#match-table", DataTable)
        if not self.pages or table.cursor_row is None:
            return None
        rows = self.pages[self.position]
        return rows[min(table.cursor_row, len(rows) - 1)]

    def _correct(self, item: str | None) -> None:
        row = self._current()
        if row is None:
            return
        study = self.studies[self.study][0]
        self.write(
            lambda conn: match_reviews.correct(conn, study, row["key"], item, self.app.reviewer),
            lambda _done: self.load(keep=row["key"]),
            "Not corrected",
        )

    def action_edit(self) -> None:
        row = self._current()
        if row is not None:
            self.app.push_screen(
                EditText("Catalog entry this item means (closest title is taken)", row["item"] or row["surface"] or ""),
                lambda text: self._correct(text) if text and text.strip() else None,
            )

    def action_out(self) -> None:
        self._correct(None)

    def action_undo(self) -> None:
        if not self.studies:
            return
        study = self.studies[self.study][0]

        def undone(result) -> None:
            if result is None:
                self.notify("Nothing to undo.")
                return
            self.notify(f"Undone; the item is {result['restored'] or 'not in the catalog'} again.")
            self.load(keep=result["key"])

        self.write(lambda conn: match_reviews.undo(conn, study, self.app.reviewer), undone, "Not undone")

    def action_next_study(self) -> None:
        if self.studies:
            self.study = (self.study + 1) % len(self.studies)
            self.position = 0
            self.load()
