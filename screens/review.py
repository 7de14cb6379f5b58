"""The Review screen: one response at a time — accept, edit or reject its extracted list."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Footer, ProgressBar, Static

from workbench.literal import visible
from workbench.store import review_validation, reviews
from workbench.store.db import reading
from workbench.widgets.modals import EditText
from workbench.widgets.modebar import ModeBar
from workbench.widgets.pager import PagerScreen

FILTERS = ("unreviewed", "disagreements", "reviewer disagreements", "all", "validation sample (blind)")
BLIND = "validation sample (blind)"


class ReviewScreen(PagerScreen):
    FILTERS = FILTERS
    BINDINGS = [
        Binding("a", "verdict('accept')", "Accept", tooltip="The extracted list is right"),
        Binding("e", "edit", "Edit", tooltip="Type the right list, comma separated"),
        Binding("x", "verdict('reject')", "Reject", tooltip="The answer recommends nothing"),
        Binding("n,right", "move(1)", "Next", tooltip="Next response"),
        Binding("p,left", "move(-1)", "Prev", show=False, tooltip="Previous response"),
        Binding(
            "u", "undo", "Undo", tooltip="Take back your latest verdict (refused if someone changed the list since)"
        ),
        Binding(
            "f",
            "next_filter",
            "Filter",
            tooltip="Unreviewed, experts' or reviewers' disagreements, all, or the validation sample (blind)",
        ),
        Binding("t", "next_topic", "Topic", show=False, tooltip="Only one topic (cycles; all topics first)"),
        Binding("o", "next_model", "Model", show=False, tooltip="Only one model (cycles; all models first)"),
        Binding("b", "probe_labels", "Probes", tooltip="Identity studies: review the transparency-probe labels"),
        Binding(
            "c",
            "catalog_matches",
            "Matches",
            show=False,
            tooltip="Cold-start studies: correct the catalog entry an answer's item was matched to",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.total = self.done = 0
        self.choices: dict[str, list[str]] = {}
        self.topic: str | None = None
        self.model: str | None = None

    @property
    def items(self) -> list[dict]:
        return self.pages

    @property
    def reviewer(self) -> str:
        return self.app.reviewer

    def compose(self) -> ComposeResult:
        yield ModeBar("review")
        yield Static(id="review-status")
        yield ProgressBar(id="review-progress", show_eta=False)
        with VerticalScroll(id="review-body"):
            yield Static(id="review-question")
            yield Static(id="review-answer")
            yield Static(id="review-lists")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    def fetch(self, conn) -> tuple[list[dict], tuple]:
        if self.filter == BLIND:
            # The same seeded sample for every reviewer, so their verdicts can be compared; a
            # second reviewer sees the machine's list, never another reviewer's.
            ids = review_validation.validation_sample(conn)  # the stable sample, default rate and seed
            items = reviews.review_items(
                conn, list_ids=ids, topic=self.topic, model=self.model, reviewer=self.reviewer, blind=True
            )
        else:
            items = reviews.review_items(
                conn, only=self.filter, topic=self.topic, model=self.model, reviewer=self.reviewer
            )
        choices = {column: reviews.list_values(conn, column) for column in ("topic", "model")}
        return items, (reviews.reviewed_counts(conn), choices)

    def adopt(self, more: tuple) -> None:
        (self.total, self.done), self.choices = more

    def page_key(self, page: dict) -> int:
        return page["id"]

    def current(self) -> dict | None:
        """The response on screen, with its details once they are read."""
        return self.page

    @dataclass
    class DetailRead(Message, bubble=False):
        """A worker read a response's answer, lists and verdicts."""

        detailed: dict

    @work(thread=True, group="review-detail", description="Reading the response")
    def _read_detail(self, item: dict) -> None:
        with reading(self.app.db_path) as conn:
            detailed = reviews.review_detail(conn, item)
        self.post_message(self.DetailRead(detailed))

    def on_review_screen_detail_read(self, message: DetailRead) -> None:
        detailed = message.detailed
        for index, item in enumerate(self.pages):
            if item["id"] == detailed["id"]:
                self.pages[index] = detailed
        if self.page is not None and self.page["id"] == detailed["id"]:
            self.show()

    def show(self) -> None:
        self.query_one("#review-progress", ProgressBar).update(total=max(self.total, 1), progress=self.done)
        item = self.page
        reviewed = sum(1 for i in self.pages if i["verdict"])
        scope = "".join(f" · {v}" for v in (self.topic, self.model) if v)
        status = (
            f" {self.filter}{scope}: {self.position + 1 if item else 0}/{len(self.pages)} · "
            f"reviewer {self.reviewer} · {reviewed} of these reviewed"
        )
        self.query_one("#review-status", Static).update(Text(visible(status), no_wrap=True, overflow="ellipsis"))
        if item is None:
            self.query_one("#review-question", Static).update("Nothing to review with this filter (f changes it).")
            self.query_one("#review-answer", Static).update("")
            self.query_one("#review-lists", Static).update("")
            return
        self.query_one("#review-question", Static).update(
            Text(
                visible(
                    f"{item['topic']} · {item['cluster'] or '-'} · {item['model']} · rep {item['repetition']}\n"
                    f"{item['question']}"
                )
            )
        )
        if "entities" not in item:  # details are read for the response on screen only
            self.query_one("#review-answer", Static).update(Text("reading…", style="dim"))
            self.query_one("#review-lists", Static).update("")
            self._read_detail(item)
            return
        self.query_one("#review-answer", Static).update(
            Text(visible(item["answer"] or "(imported list: no answer text)"))
        )
        lists = Text()
        for number, expert in enumerate(item["experts"], start=1):
            lists.append(visible(f"expert {number}: {', '.join(expert) or '(nothing)'}\n"), style="dim")
        agreement = f" (experts agree {item['agreement']:.2f})" if item["agreement"] is not None else ""
        label = "extracted list" if item.get("blind") else "list"
        lists.append(
            visible(f"{label}{agreement}: {', '.join(item['entities']) or '(no recommendation)'}\n"), style="bold"
        )
        ungrounded = item.get("ungrounded") or []
        if ungrounded:  # the experts named them, the answer does not: worth a look
            kept = [n for n in ungrounded if n in item["entities"]]
            dropped = [n for n in ungrounded if n not in item["entities"]]
            for names, what in ((kept, "kept, flagged"), (dropped, "dropped")):
                if names:
                    lists.append(visible(f"not in the answer's text ({what}): {', '.join(names)}\n"), style="yellow")
        verdicts = item.get("verdicts") or {}
        if not verdicts:
            lists.append("verdict: not reviewed" + (" by you (blind)" if item.get("blind") else ""))
        for who, v in verdicts.items():
            shown = "" if v["decision"] == "accept" else f": {', '.join(v['list']) or '(nothing)'}"
            blind = " (blind)" if v["blind"] else ""
            lists.append(visible(f"verdict by {who}{blind}: {v['decision']}{shown}\n"))
        self.query_one("#review-lists", Static).update(lists)
        self.query_one("#review-body", VerticalScroll).scroll_home(animate=False)

    def _record(self, decision: str, entities: list[str] | None = None) -> None:
        item = self.page
        if item is None or "entities" not in item:
            return

        def stored(_result) -> None:
            # A reviewed response leaves the "unreviewed" list; elsewhere, go on to the next.
            self.load(keep=item["id"], advance=0 if self.filter == "unreviewed" else 1)

        blind = self.filter == BLIND
        self.write(
            lambda conn: reviews.review(
                conn, item["id"], self.reviewer, decision, entities, "validation" if blind else None, blind=blind
            ),
            stored,
            "Verdict not saved",
        )

    def action_verdict(self, decision: str) -> None:
        self._record(decision)

    def action_edit(self) -> None:
        item = self.page
        if item is None or "entities" not in item:
            return

        def done(text: str | None) -> None:
            if text is not None:
                self._record("edit", [part for part in text.split(",")])

        context = "\n".join(
            [f"expert {n}: {', '.join(e) or '(nothing)'}" for n, e in enumerate(item["experts"], start=1)]
            + [f"extracted: {', '.join(item['extracted']) or '(nothing)'}"]
        )
        self.app.push_screen(
            EditText("Recommended entities, best first, comma separated", ", ".join(item["entities"]), context),
            done,
        )

    def action_undo(self) -> None:
        def undone(result) -> None:
            if result is None:
                self.notify("Nothing to undo.")
                return
            note = f" ({result['note']})" if result["note"] else ""
            self.notify(f"Undid your {result['decision']}{note}.")
            self.load(keep=result["list_id"])

        self.write(lambda conn: reviews.undo_review(conn, self.reviewer), undone, "Not undone")

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

    def action_probe_labels(self) -> None:
        from workbench.screens.probe_review import ProbeReviewScreen

        self.app.push_screen(ProbeReviewScreen())

    def action_catalog_matches(self) -> None:
        from workbench.screens.match_review import MatchReviewScreen

        self.app.push_screen(MatchReviewScreen())
