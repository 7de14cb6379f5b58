"""The Review screen: one response at a time — accept, edit or reject its extracted list;
adjudicate two reviewers' disagreement. It follows the store while shown: another
reviewer's verdict, a merge or an import elsewhere shows without a key."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Static

from workbench.methods.hooks import review_views, screen_class
from workbench.screens.review_changes import ReviewChanges
from workbench.screens.review_decisions import ReviewDecisions
from workbench.store.db import opened, reading
from workbench.store.errors import UserFacingError
from workbench.store.reads import answer_search
from workbench.store.requests import studies
from workbench.store.review import aids as review_aids
from workbench.store.review import validation as review_validation
from workbench.store.review import verdicts as reviews
from workbench.store.review import versions as review_versions
from workbench.store.review.reviewer_names import among
from workbench.text.literal import visible
from workbench.widgets.answer_search import AnswerSearch
from workbench.widgets.live import LiveStore
from workbench.widgets.modebar import ModeBar
from workbench.widgets.pager import PagerScreen
from workbench.widgets.review_text import agreement_lines, answer_text, item_lists, progress_line

BLIND = "validation sample (blind)"
SAMPLE = "validation sample"  # the same lists, open: the first reviewer's, with every verdict shown
FILTERS = ("unreviewed", "disagreements", "reviewer disagreements", "resolved", "all", BLIND, SAMPLE)
PAGE_FIELDS = ("verdict", "verdicts", "adjudication", "adjudicators")  # read with the pages, not the details
# A search reads this many matches at a time, the next ones as the reviewer reaches them.
SEARCH_PAGE = 100


class ReviewScreen(ReviewDecisions, ReviewChanges, LiveStore, PagerScreen):
    FILTERS = FILTERS
    BINDINGS = [
        Binding("a", "verdict('accept')", "Accept", tooltip="The extracted list is right"),
        Binding("e", "edit", "Edit", tooltip="Edit the list as items: add (completed), remove, reorder"),
        Binding("x", "verdict('reject')", "Reject", tooltip="The answer recommends nothing"),
        Binding(
            "left_square_bracket",
            "take(0)",
            "Take 1st",
            key_display="[",
            tooltip="Adjudicate: take the first reviewer's list (e: your own)",
        ),
        Binding(
            "right_square_bracket",
            "take(1)",
            "Take 2nd",
            key_display="]",
            tooltip="Adjudicate: take the second reviewer's list (e: your own)",
        ),
        Binding("n,right", "move(1)", "Next", tooltip="Next response"),
        Binding("p,left", "move(-1)", "Prev", show=False, tooltip="Previous response"),
        Binding(
            "u", "undo", "Undo", tooltip="Take back your latest verdict (refused if someone changed the list since)"
        ),
        Binding(
            "f",
            "next_filter",
            "Filter",
            tooltip="Unreviewed, experts' or reviewers' disagreements, resolved, all, or the validation sample "
            "(blind, or open for the first reviewer)",
        ),
        Binding("slash", "search", "Search", tooltip='Search the answers: words, "a phrase", prefix*, OR, NOT'),
        Binding("t", "next_topic", "Topic", show=False, tooltip="Only one topic (cycles; all topics first)"),
        Binding("o", "next_model", "Model", show=False, tooltip="Only one model (cycles; all models first)"),
        # The methods' own views (hook `review_views`: identity's probe labels, cold-start's matches).
        *(
            Binding(v.key, f"review_view({v.screen!r})", v.description, show=v.show, tooltip=v.tooltip)
            for v in review_views()
        ),
    ]

    @dataclass
    class DetailRead(Message, bubble=False):
        """A worker read a response's answer, lists and verdicts (None: the list is gone)."""

        detailed: dict | None
        item_id: int

    @dataclass
    class NamesRead(Message, bubble=False):
        """A worker read the names the store knows, to complete an edit from."""

        names: list[str]

    def __init__(self) -> None:
        super().__init__()
        self.progress: dict[str, Any] = {"total": 0, "by": {}}
        self.choices: dict[str, list[str]] = {}
        self.topic: str | None = None
        self.model: str | None = None
        self.search: str | None = None  # only the responses whose answer matches (`/`)
        self._want = SEARCH_PAGE  # how many matches of the search to read
        self._found: answer_search.Found | None = None  # what the last search read found
        self._search_only = 0  # the load that only searches the pages last read (its serial)
        self._following: dict | None = None  # the item on screen when a load began
        self._where: tuple | None = None  # (its id, whether it still counts, the list now in its place, its verdicts)
        self._refresh_from: int | None = None  # the list on screen when a read the store's change asked began
        self._shown: dict | None = None  # the last item shown with its details
        self.details = 0  # details read and shown (tests and benchmarks wait on it)
        self._earlier: tuple | None = None  # (what was asked, the pages, their mark) of the last read shown

    @property
    def items(self) -> list[dict]:
        return self.pages

    @property
    def reviewer(self) -> str:
        return self.app.reviewer

    @property
    def blind(self) -> bool:
        return self.filter == BLIND

    def compose(self) -> ComposeResult:
        yield ModeBar("review")
        yield Static(id="review-status")
        yield Static(id="review-progress")
        with VerticalScroll(id="review-body"):
            yield Static(id="review-question")
            yield Static(id="review-answer")
            yield Static(id="review-lists")
        yield Footer()

    def on_mount(self) -> None:
        self.follow_store()
        self.load()

    def on_screen_resume(self) -> None:
        self.poll_store()

    def on_unmount(self) -> None:
        self.stop_following()

    # -- following the store ----------------------------------------------------------

    def store_busy(self) -> bool:
        return self.busy or self._loading

    def store_changed(self) -> None:
        """Changed elsewhere while shown: read the pages again, staying on this response
        (or, if it is gone, the nearest one), the old ones dimmed until the new arrive."""
        self.query_one("#review-body").add_class("stale")
        self.query_one("#review-progress").add_class("stale")
        page = self.page
        if page is not None and "entities" in page:
            # The response on view first (key lookups): its list as it is now shows at once; the
            # reviewers' columns and the counts follow with the pages (every list of the filter).
            self._read_detail(page)
        self.load(keep=page["id"] if page else None, refresh=True)

    def load(self, keep: Any = None, advance: int = 0, search_only: bool = False, refresh: bool = False) -> None:
        """`search_only`: a search (or its next matches) among the pages last read, when no
        commit came since they were read: nothing else is read again (2.5 s -> 10 ms at a
        million lists), and the store's watch keeps counting (a change elsewhere reads all).
        `refresh`: the store changed elsewhere, no key of the reviewer's asked for this read."""
        self._refresh_from = keep if refresh else None
        if search_only and not self._store_moved():
            self._search_only = self._serial + 1  # the load about to begin
        else:
            self.store_read_begins()
        self._following = self.page if keep is not None else None
        super().load(keep, advance)

    def _store_moved(self) -> bool:
        try:
            return self._store_watch is None or self._store_watch.changed()
        except sqlite3.Error:  # a store being replaced: read it all
            return True

    def fetch(self, conn) -> tuple[list[dict], tuple]:
        where = {"topic": self.topic, "model": self.model}
        asked = (self.filter, self.topic, self.model, self.reviewer)
        earlier = self._earlier[1:] if self._earlier is not None and self._earlier[0] == asked else None
        reuse = earlier is not None and self._search_only == self._serial  # see `load`
        if reuse:
            (pages, mark), progress, choices = earlier, self.progress, self.choices
        elif self.blind:
            # The same stable sample for every reviewer, so their verdicts can be compared; a
            # second reviewer sees the machine's list, never another reviewer's.
            ids = review_validation.validation_sample(conn)
            pages, mark = reviews.pages_since(conn, earlier, list_ids=ids, reviewer=self.reviewer, blind=True, **where)
            progress = reviews.progress_counts(conn, self.reviewer, list_ids=ids, blind=True, **where)
        elif self.filter == SAMPLE:
            ids = review_validation.validation_sample(conn)
            pages, mark = reviews.pages_since(conn, earlier, list_ids=ids, reviewer=self.reviewer, **where)
            progress = reviews.progress_counts(conn, self.reviewer, list_ids=ids, **where)
        else:
            pages, mark = reviews.pages_since(conn, earlier, self.filter, reviewer=self.reviewer, **where)
            progress = reviews.progress_counts(conn, self.reviewer, self.filter, **where)
        if not reuse:
            # Agreement after each verdict; never to a blind reviewer (it would tell them the other's).
            progress = {
                **progress,
                "agreement": [] if self.blind else review_validation.sample_agreements(conn, self.reviewer),
            }
            choices = {column: reviews.list_values(conn, column) for column in ("topic", "model")}
            choices["methods"] = studies.study_methods(conn)  # whose extra views (`review_views`) apply
        items, found = list(pages), None  # the screen's own: a detail read replaces its entries
        if self.search:  # the first matches, in the order of their answers: a page, not every match
            items, found = answer_search.search_pages(conn, self.search, pages, self._want)
        following, where_now = self._following, None
        if following:  # where the list on screen is now, and its verdicts (who took it out of the filter)
            counts, successor = review_aids.whereabouts(conn, following)
            trail = review_versions.verdict_trail(conn, following) if counts and not self.blind else []
            where_now = (following["id"], counts, successor, trail)
        return items, (progress, choices, where_now, (asked, pages, mark), found)

    def adopt(self, more: tuple) -> None:
        # What this read saw: the next one reads again only what changed since (store/review/pages.py).
        self.progress, self.choices, self._where, self._earlier, self._found = more

    def page_key(self, page: dict) -> int:
        return page["id"]

    def current(self) -> dict | None:
        """The response on screen, with its details once they are read."""
        return self.page

    @work(thread=True, group="review-detail", description="Reading the response")
    def _read_detail(self, item: dict) -> None:
        try:
            with reading(self.app.db_path) as conn:
                detailed = reviews.review_detail(conn, item)
        except (UserFacingError, sqlite3.Error):  # replaced meanwhile: the pages are read again
            detailed = None
        self.post_message(self.DetailRead(detailed, item["id"]))

    def on_review_screen_detail_read(self, message: DetailRead) -> None:
        if message.detailed is None:
            if self.page is not None and self.page["id"] == message.item_id and not self.store_busy():
                self.load(keep=message.item_id, refresh=True)
            return
        for index, item in enumerate(self.pages):
            if item["id"] == message.item_id:
                # Its verdicts as the pages last read them (the detail was read from an item of theirs).
                self.pages[index] = {**message.detailed, **{k: v for k, v in item.items() if k in PAGE_FIELDS}}
        if self.page is not None and self.page["id"] == message.item_id:
            self.details += 1
            self.show()

    # -- what the screen shows --------------------------------------------------------

    def show(self) -> None:
        item = self.page
        if not self._loading:
            self.say_change()  # a change a refresh's detail read saw, its pages read now
        if item is not None and "entities" in item and not self._writing:  # a decision's own reload judges it
            self.note_shown(item)
        mark = self.change_mark(item)
        scope = "".join(f" · {v}" for v in (self.topic, self.model, self.search and f"search {self.search}") if v)
        status = (
            f" {self.filter}{scope}: {self.position + 1 if item else 0}/{len(self.pages)}"
            f"{'+' if self._found and self._found.more else ''} · reviewer {self.reviewer}"
        )
        status_line = Text(visible(status), no_wrap=True, overflow="ellipsis")
        if mark is not None:  # over the rest, where it is seen first
            status_line = Text.assemble(
                Text(" CHANGED ", style=mark.style), status_line, no_wrap=True, overflow="ellipsis"
            )
        self.query_one("#review-status", Static).update(status_line)
        self.query_one("#review-progress").set_class(self._loading, "stale")
        self.query_one("#review-progress", Static).update(
            Group(
                progress_line(
                    self.progress["by"], self.progress["total"], "your verdicts" if self.blind else "verdicts"
                ),
                *agreement_lines(self.progress.get("agreement") or []),
            )
        )
        self.refresh_bindings()  # the adjudication keys follow the response on view
        body = self.query_one("#review-body", VerticalScroll)
        if item is None:
            body.remove_class("stale")
            self.query_one("#review-question", Static).update("Nothing to review with this filter (f changes it).")
            self.query_one("#review-answer", Static).update("")
            self.query_one("#review-lists", Static).update("")
            return
        if "entities" not in item:  # details are read for the response on screen only
            self._read_detail(item)
            if self._shown is None or self._shown["id"] != item["id"]:
                self._paint_question(item)
                self.query_one("#review-answer", Static).update(Text("reading…", style="dim"))
                self.query_one("#review-lists", Static).update("")
                body.scroll_home(animate=False)
            else:  # the same response read again: its old details stay, dimmed, until the new arrive
                body.add_class("stale")
            return
        moved = self._shown is None or self._shown["id"] != item["id"]
        self._shown = item
        body.remove_class("stale")
        self._paint_question(item)
        self.query_one("#review-answer", Static).update(
            answer_text(item["answer"], item["extracted"], item.get("flagged"))
        )
        lists = item_lists(item, self.validators(item))
        self.query_one("#review-lists", Static).update(lists if mark is None else Group(mark, lists))
        if moved:
            body.scroll_home(animate=False)

    def _paint_question(self, item: dict) -> None:
        self.query_one("#review-question", Static).update(
            Text(
                visible(
                    f"{item['topic']} · {item['cluster'] or '-'} · {item['model']} · rep {item['repetition']}\n"
                    f"{item['question']}"
                )
            )
        )

    def validators(self, item: dict | None) -> list[str]:
        """The reviewers whose differing lists an adjudication chooses between, first and
        second (none when they agree, when blind, or when this reviewer is one of them)."""
        if item is None or self.blind:
            return []
        adjudicators = set(item.get("adjudicators") or [])
        judged = {who: v["list"] for who, v in (item.get("verdicts") or {}).items() if who not in adjudicators}
        differ = len({tuple(names) for names in judged.values()}) > 1
        return list(judged) if differ and among(self.reviewer, judged) is None else []  # a person, however spelt

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "take":
            return len(self.validators(self.page)) >= 2
        if action == "review_view":  # a view of a method some study in the store has (known once read)
            return "methods" in self.choices and parameters[0] in {
                v.screen for v in review_views(self.choices["methods"])
            }
        return True

    def _cycle(self, column: str, current: str | None) -> str | None:
        values = [None] + self.choices.get(column, [])  # read with the pages
        return values[(values.index(current) + 1) % len(values)] if current in values else None

    def action_next_topic(self) -> None:
        self.topic = self._cycle("topic", self.topic)
        self.position = 0
        self.load()

    def action_next_model(self) -> None:
        self.model = self._cycle("model", self.model)
        self.position = 0
        self.load()

    def action_search(self) -> None:
        def searched(query: str | None) -> None:
            if query is not None:
                self.search, self.position, self._want = query or None, 0, SEARCH_PAGE
                self.load(search_only=True)

        self.app.push_screen(AnswerSearch(self.search or "", self._search_problem), searched)

    def action_move(self, step: int) -> None:
        super().action_move(step)
        # Near the last match read: read the next ones, staying on this response.
        found, near = self._found, len(self.pages) - max(1, SEARCH_PAGE // 10)
        if found is not None and found.more and self.position >= near and not self._loading and self.page:
            self._want = len(self.pages) + SEARCH_PAGE
            self.load(keep=self.page["id"], search_only=True)

    def _search_problem(self, query: str) -> str | None:
        try:
            with opened(self.app.db_path) as conn:
                answer_search.check_query(conn, query)
        except UserFacingError as exc:
            return str(exc)
        return None

    def action_review_view(self, screen: str) -> None:
        self.app.push_screen(screen_class(screen)())
