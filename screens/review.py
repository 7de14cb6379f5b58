"""The Review screen: one response at a time — accept, edit or reject its extracted list."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, Static

from workbench.literal import visible
from workbench.store import reviews
from workbench.store.db import opened
from workbench.widgets.modals import EditText

FILTERS = ("unreviewed", "disagreements", "all", "validation sample")
SAMPLE_PER_TOPIC, SAMPLE_SEED = 15, 1


class ReviewScreen(Screen):
    BINDINGS = [
        Binding("a", "verdict('accept')", "Accept", tooltip="The extracted list is right"),
        Binding("e", "edit", "Edit", tooltip="Type the right list, comma separated"),
        Binding("x", "verdict('reject')", "Reject", tooltip="The answer recommends nothing"),
        Binding("n,right", "move(1)", "Next", tooltip="Next response"),
        Binding("p,left", "move(-1)", "Prev", show=False, tooltip="Previous response"),
        Binding("u", "undo", "Undo", tooltip="Take back your latest verdict"),
        Binding("f", "next_filter", "Filter",
                tooltip="Unreviewed, disagreements between experts, all, or the validation sample"),
        Binding("t", "next_topic", "Topic", show=False, tooltip="Only one topic (cycles; all topics first)"),
        Binding("o", "next_model", "Model", show=False, tooltip="Only one model (cycles; all models first)"),
        Binding("b", "probe_labels", "Probes", tooltip="Identity studies: review the transparency-probe labels"),
        Binding("c", "catalog_matches", "Matches", show=False,
                tooltip="Cold-start studies: correct the catalog entry an answer's item was matched to"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.filter = "unreviewed"
        self.items: list[dict] = []
        self.position = 0
        self.total = 0
        self.topic: str | None = None
        self.model: str | None = None

    @property
    def reviewer(self) -> str:
        return self.app.reviewer

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="review-status")
        yield ProgressBar(id="review-progress", show_eta=False)
        with VerticalScroll(id="review-body"):
            yield Static(id="review-question")
            yield Static(id="review-answer")
            yield Static(id="review-lists")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    def load(self, keep: int | None = None) -> None:
        with opened(self.app.db_path) as conn:
            if self.filter == "validation sample":
                # The same seeded sample for every reviewer, so their verdicts can be compared.
                ids = reviews.validation_sample(conn, SAMPLE_PER_TOPIC, SAMPLE_SEED)
                self.items = reviews.review_items(conn, list_ids=ids, topic=self.topic, model=self.model)
            else:
                self.items = reviews.review_items(conn, only=self.filter, topic=self.topic, model=self.model)
            self.total, done = reviews.reviewed_counts(conn)
        self.query_one("#review-progress", ProgressBar).update(total=max(self.total, 1), progress=done)
        if keep is not None:
            ids = [item["id"] for item in self.items]
            self.position = ids.index(keep) if keep in ids else min(self.position, max(len(self.items) - 1, 0))
        self.position = min(self.position, max(len(self.items) - 1, 0))
        self.show()

    def current(self) -> dict | None:
        if not self.items:
            return None
        item = self.items[self.position]
        if "entities" not in item:  # details are read for the response on screen only
            with opened(self.app.db_path) as conn:
                item = self.items[self.position] = reviews.review_detail(conn, item)
        return item

    def show(self) -> None:
        item = self.current()
        reviewed = sum(1 for i in self.items if i["verdict"])
        scope = "".join(f" · {v}" for v in (self.topic, self.model) if v)
        status = (f" {self.filter}{scope}: {self.position + 1 if item else 0}/{len(self.items)} · "
                  f"reviewer {self.reviewer} · {reviewed} of these reviewed")
        self.query_one("#review-status", Static).update(Text(visible(status), no_wrap=True, overflow="ellipsis"))
        if item is None:
            self.query_one("#review-question", Static).update("Nothing to review with this filter (f changes it).")
            self.query_one("#review-answer", Static).update("")
            self.query_one("#review-lists", Static).update("")
            return
        self.query_one("#review-question", Static).update(Text(visible(
            f"{item['topic']} · {item['cluster'] or '-'} · {item['model']} · rep {item['repetition']}\n"
            f"{item['question']}")))
        self.query_one("#review-answer", Static).update(Text(visible(item["answer"] or "(imported list: no answer text)")))
        lists = Text()
        for number, expert in enumerate(item["experts"], start=1):
            lists.append(visible(f"expert {number}: {', '.join(expert) or '(nothing)'}\n"), style="dim")
        agreement = f" (experts agree {item['agreement']:.2f})" if item["agreement"] is not None else ""
        lists.append(visible(f"list{agreement}: {', '.join(item['entities']) or '(no recommendation)'}\n"), style="bold")
        verdict = item["verdict"]
        lists.append(visible(f"verdict: {verdict.replace('|', ' by ') if verdict else 'not reviewed'}"))
        self.query_one("#review-lists", Static).update(lists)
        self.query_one("#review-body", VerticalScroll).scroll_home(animate=False)

    def _record(self, decision: str, entities: list[str] | None = None) -> None:
        item = self.current()
        if item is None:
            return
        with opened(self.app.db_path) as conn:
            reviews.review(conn, item["id"], self.reviewer, decision, entities)
        self.load(keep=item["id"])
        if self.filter != "unreviewed":
            self.action_move(1)

    def action_verdict(self, decision: str) -> None:
        self._record(decision)

    def action_edit(self) -> None:
        item = self.current()
        if item is None:
            return

        def done(text: str | None) -> None:
            if text is not None:
                self._record("edit", [part for part in text.split(",")])

        self.app.push_screen(EditText("Recommended entities, best first, comma separated",
                                      ", ".join(item["entities"])), done)

    def action_move(self, step: int) -> None:
        if self.items:
            self.position = max(0, min(len(self.items) - 1, self.position + step))
            self.show()

    def action_undo(self) -> None:
        with opened(self.app.db_path) as conn:
            undone = reviews.undo_review(conn, self.reviewer)
        if undone is None:
            self.notify("Nothing to undo.")
            return
        self.notify(f"Undid your {undone['decision']}.")
        self.load(keep=undone["list_id"])
        ids = [item["id"] for item in self.items]
        if undone["list_id"] in ids:
            self.position = ids.index(undone["list_id"])
            self.show()

    def _cycle(self, column: str, current: str | None) -> str | None:
        with opened(self.app.db_path) as conn:
            values = [None] + reviews.list_values(conn, column)
        return values[(values.index(current) + 1) % len(values)] if current in values else None

    def action_next_topic(self) -> None:
        self.topic = self._cycle("topic", self.topic)
        self.position = 0
        self.load()

    def action_next_model(self) -> None:
        self.model = self._cycle("model", self.model)
        self.position = 0
        self.load()

    def action_probe_labels(self) -> None:
        from workbench.screens.probe_review import ProbeReviewScreen

        self.app.push_screen(ProbeReviewScreen())

    def action_catalog_matches(self) -> None:
        from workbench.screens.match_review import MatchReviewScreen

        self.app.push_screen(MatchReviewScreen())

    def action_next_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.position = 0
        self.load()
