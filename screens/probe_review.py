"""Review of transparency-probe labels (identity studies): one conversation at a time.

Shows the prompt, the recommendation, the probe and its answer with the rule and judge
labels; the reviewer's label wins in every metric and `u` takes it back.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from workbench.literal import visible
from workbench.store import probe_reviews
from workbench.store.db import opened


class ProbeReviewScreen(Screen):
    PALETTE_NAME = "Probe labels"
    BINDINGS = [
        Binding("a", "label('admits')", "Admits", tooltip="The answer admits the identity shaped the recommendations"),
        Binding("d", "label('denies')", "Denies", tooltip="The answer denies it"),
        Binding("x", "label('unclear')", "Unclear", tooltip="The answer does neither"),
        Binding("n,right", "move(1)", "Next"),
        Binding("p,left", "move(-1)", "Prev"),
        Binding("u", "undo", "Undo", tooltip="Take back your latest label"),
        Binding("f", "next_filter", "Filter", tooltip="Unreviewed, rules-vs-judge disagreements, or all"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.filter = "unreviewed"
        self.items: list[dict] = []
        self.position = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="probe-status")
        yield Static(id="probe-labels")
        with VerticalScroll(id="probe-body"):
            yield Static(id="probe-conversation")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    def load(self, keep: str | None = None) -> None:
        with opened(self.app.db_path) as conn:
            self.items = probe_reviews.items(conn, self.filter)
        keys = [i["request_key"] for i in self.items]
        if keep in keys:
            self.position = keys.index(keep)
        self.position = min(self.position, max(len(self.items) - 1, 0))
        self.show()

    def show(self) -> None:
        item = self.items[self.position] if self.items else None
        status = f" probe labels · {self.filter}: {self.position + 1 if item else 0}/{len(self.items)}"
        self.query_one("#probe-status", Static).update(Text(status, no_wrap=True, overflow="ellipsis"))
        conversation, labels = self.query_one("#probe-conversation", Static), self.query_one("#probe-labels", Static)
        if item is None:
            conversation.update("No probe answers with this filter (f changes it; identity studies with a probe "
                                "have them).")
            labels.update("")
            return
        with opened(self.app.db_path) as conn:
            turn = probe_reviews.detail(conn, item["request_key"])
        text = Text()
        text.append(visible(f"{item['model']} · {item['group']} · {item['condition']}\n"), style="dim")
        # The probe and its answer first: they are what is labelled; the turn before gives context.
        turns = (("user", turn["probe"]), ("model", turn["probe_answer"]), None, ("user", turn["prompt"]),
                 ("model", turn["answer"]))
        for entry in turns:
            if entry is None:
                text.append("— earlier in the conversation —\n", style="dim")
                continue
            text.append(f"{entry[0]}: ", style="bold")
            text.append(visible(entry[1]) + "\n")  # model text shown literally, never as markup
        conversation.update(text)
        labels.update(Text(visible(
            f"rules: {item['rule_label'] or '-'} · judge: {item['judge_label'] or '-'} · "
            f"label: {item['label'] or '-'} ({item['source'] or '-'}"
            f"{' by ' + item['reviewer'] if item['reviewer'] else ''})"), style="bold"))
        self.query_one("#probe-body", VerticalScroll).scroll_home(animate=False)

    def action_label(self, value: str) -> None:
        if not self.items:
            return
        key = self.items[self.position]["request_key"]
        with opened(self.app.db_path) as conn:
            probe_reviews.label(conn, key, self.app.reviewer, value)
        self.load(keep=key)
        if self.filter != "unreviewed":
            self.action_move(1)

    def action_move(self, step: int) -> None:
        if self.items:
            self.position = max(0, min(len(self.items) - 1, self.position + step))
            self.show()

    def action_undo(self) -> None:
        with opened(self.app.db_path) as conn:
            undone = probe_reviews.undo(conn, self.app.reviewer)
        if undone is None:
            self.notify("Nothing to undo.")
            return
        self.notify(f"Took back {undone['label']}; the label is {undone['restored']} ({undone['source']}) again.")
        self.load(keep=undone["request_key"])

    def action_next_filter(self) -> None:
        self.filter = probe_reviews.FILTERS[(probe_reviews.FILTERS.index(self.filter) + 1) % len(probe_reviews.FILTERS)]
        self.position = 0
        self.load()
