"""Review of transparency-probe labels (identity studies): one conversation at a time.

Shows the prompt, the recommendation, the probe and its answer with the rule and judge
labels; the reviewer's label wins in every metric and `u` takes it back.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Static

from workbench.methods.identity import probe_reviews
from workbench.store.db import reading
from workbench.text.literal import visible
from workbench.widgets.modebar import ModeBar
from workbench.widgets.pager import PagerScreen


class ProbeReviewScreen(PagerScreen):
    PALETTE_NAME = "Probe labels"
    FILTERS = probe_reviews.FILTERS
    BINDINGS = [
        Binding("a", "label('admits')", "Admits", tooltip="The answer admits the identity shaped the recommendations"),
        Binding("d", "label('denies')", "Denies", tooltip="The answer denies it"),
        Binding("x", "label('unclear')", "Unclear", tooltip="The answer does neither"),
        Binding("n,right", "move(1)", "Next", tooltip="Next probe answer"),
        Binding("p,left", "move(-1)", "Prev", show=False, tooltip="Previous probe answer"),
        Binding("u", "undo", "Undo", tooltip="Take back your latest label"),
        Binding("f", "next_filter", "Filter", tooltip="Unreviewed, rules-vs-judge disagreements, or all"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.turns: dict[str, dict] = {}  # the conversation of each page shown, read once

    @property
    def items(self) -> list[dict]:
        return self.pages

    def compose(self) -> ComposeResult:
        yield ModeBar("review", "probe labels")
        yield Static(id="probe-status")
        yield Static(id="probe-labels")
        with VerticalScroll(id="probe-body"):
            yield Static(id="probe-conversation")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    def fetch(self, conn) -> tuple[list[dict], None]:
        return probe_reviews.items(conn, self.filter), None

    def page_key(self, page: dict) -> str:
        return page["request_key"]

    @dataclass
    class TurnRead(Message, bubble=False):
        """A worker read the conversation of a probe answer."""

        key: str
        turn: dict

    @work(thread=True, group="probe-detail", description="Reading the conversation")
    def _read_turn(self, key: str) -> None:
        with reading(self.app.db_path) as conn:
            turn = probe_reviews.detail(conn, key)
        self.post_message(self.TurnRead(key, turn))

    def on_probe_review_screen_turn_read(self, message: TurnRead) -> None:
        self.turns[message.key] = message.turn
        if self.page is not None and self.page["request_key"] == message.key:
            self.show()

    def show(self) -> None:
        item = self.page
        status = f" probe labels · {self.filter}: {self.position + 1 if item else 0}/{len(self.pages)}"
        self.query_one("#probe-status", Static).update(Text(status, no_wrap=True, overflow="ellipsis"))
        conversation, labels = self.query_one("#probe-conversation", Static), self.query_one("#probe-labels", Static)
        if item is None:
            conversation.update(
                "No probe answers with this filter (f changes it; identity studies with a probe have them)."
            )
            labels.update("")
            return
        labels.update(
            Text(
                visible(
                    f"rules: {item['rule_label'] or '-'} · judge: {item['judge_label'] or '-'} · "
                    f"label: {item['label'] or '-'} ({item['source'] or '-'}"
                    f"{' by ' + item['reviewer'] if item['reviewer'] else ''})"
                ),
                style="bold",
            )
        )
        turn = self.turns.get(item["request_key"])
        if turn is None:
            conversation.update(Text("reading…", style="dim"))
            self._read_turn(item["request_key"])
            return
        text = Text()
        text.append(visible(f"{item['model']} · {item['group']} · {item['condition']}\n"), style="dim")
        # The probe and its answer first: they are what is labelled; the turn before gives context.
        turns = (
            ("user", turn["probe"]),
            ("model", turn["probe_answer"]),
            None,
            ("user", turn["prompt"]),
            ("model", turn["answer"]),
        )
        for entry in turns:
            if entry is None:
                text.append("— earlier in the conversation —\n", style="dim")
                continue
            text.append(f"{entry[0]}: ", style="bold")
            text.append(visible(entry[1]) + "\n")  # model text shown literally, never as markup
        conversation.update(text)
        self.query_one("#probe-body", VerticalScroll).scroll_home(animate=False)

    def action_label(self, value: str) -> None:
        if self.page is None:
            return
        key = self.page["request_key"]

        def stored(_result) -> None:
            # Reviewed pages leave the "unreviewed" list; elsewhere, go on to the next.
            self.load(keep=key, advance=0 if self.filter == "unreviewed" else 1)

        self.write(lambda conn: probe_reviews.label(conn, key, self.app.reviewer, value), stored, "Not labelled")

    def action_undo(self) -> None:
        def undone(result) -> None:
            if result is None:
                self.notify("Nothing to undo.")
                return
            self.notify(f"Took back {result['label']}; the label is {result['restored']} ({result['source']}) again.")
            self.load(keep=result["request_key"])

        self.write(lambda conn: probe_reviews.undo(conn, self.app.reviewer), undone, "Not undone")
