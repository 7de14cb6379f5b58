"""The answers behind a number (the Metrics screen's Enter on a cell): the count that makes it
("Nike named in 36 of 36 answers"), the answers in a table, those holding a counted name first,
and the answer under the cursor with its counted names highlighted, its list beside it. The
Review screen's widgets draw them; every text from a model or a store reads literally. Esc goes
back to the Metrics screen, its cursor on the same cell."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from workbench.analysis.evidence import Evidence
from workbench.text.literal import visible_line
from workbench.widgets.modebar import ModeBar
from workbench.widgets.review_text import answer_text, names_table


class EvidenceScreen(Screen):
    """One number's evidence (or several: a cell of every model, `m` cycles them)."""

    DEFAULT_CSS = """
    EvidenceScreen #evidence-head { height: auto; max-height: 8; padding: 0 1; }
    EvidenceScreen #evidence-answers { height: 1fr; min-height: 4; }
    EvidenceScreen #evidence-body { height: 2fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the Metrics screen, on the same cell"),
        Binding("n", "move(1)", "Next", tooltip="The next answer"),
        Binding("p", "move(-1)", "Prev", show=False, tooltip="The previous answer"),
        Binding("m", "next_number", "Model", tooltip="The same number of the next model (when there are several)"),
    ]

    def __init__(self, found: list[Evidence]) -> None:
        super().__init__()
        self.found = found
        self.at = 0  # which Evidence is on view
        self.answer_shown = Text()  # the answer on view as drawn (tests read its highlights)

    @property
    def evidence(self) -> Evidence:
        return self.found[self.at]

    def compose(self) -> ComposeResult:
        yield ModeBar("metrics", "evidence")
        yield Static(id="evidence-head")
        yield DataTable(id="evidence-answers", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="evidence-body"):
            yield Static(id="evidence-answer")
            yield Static(id="evidence-list")
        yield Footer()

    def on_mount(self) -> None:
        self.show_number()
        self.query_one("#evidence-answers", DataTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_number":
            return len(self.found) > 1
        return True

    def show_number(self) -> None:
        e = self.evidence
        scope = f"{e.topic}" + (f" · cluster {e.cluster}" if e.cluster else "")
        of = f" · {e.target}" if e.target else ""
        head = Text(visible_line(f"{e.metric}{of} · {e.model} · {scope}"), style="bold")
        head.append("\n" + visible_line(e.sentence))
        for line in e.details:
            head.append("\n  " + visible_line(line), style="dim")
        if len(self.found) > 1:
            head.append(f"\n({self.at + 1} of {len(self.found)}: m for the next)", style="dim")
        self.query_one("#evidence-head", Static).update(head)
        table = self.query_one("#evidence-answers", DataTable)
        table.clear(columns=True)
        table.add_columns("#", "counted", "where")  # what counts first: the question's text is long
        for n, answer in enumerate(e.answers, start=1):
            where = " · ".join(
                str(part)
                for part in (answer.cluster, answer.question, f"rep {answer.repetition}" if answer.repetition else "")
                if part
            )
            counted = ", ".join(answer.counted) if answer.counted else "-"
            table.add_row(Text(str(n)), Text(visible_line(counted)), Text(visible_line(where)))
        self.show_answer(0)

    def show_answer(self, row: int) -> None:
        answers = self.evidence.answers
        if not answers:
            self.query_one("#evidence-answer", Static).update(Text("(no answers behind this number)", style="dim"))
            self.query_one("#evidence-list", Static).update("")
            return
        answer = answers[max(0, min(row, len(answers) - 1))]
        # literal, the counted names highlighted, those the extraction flagged where it found them
        found = [{"start": s, "end": e, "text": (answer.text or "")[s:e]} for s, e in answer.spans]
        self.answer_shown = answer_text(answer.text, [*answer.counted, *answer.spellings], found)
        self.query_one("#evidence-answer", Static).update(self.answer_shown)
        parts = [names_table([("its list now", list(answer.names)), ("counted here", list(answer.counted))])]
        if answer.note:
            parts.append(Text(visible_line(answer.note), style="dim"))
        self.query_one("#evidence-list", Static).update(Group(*parts))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_answer(event.cursor_row)

    def action_move(self, step: int) -> None:
        table = self.query_one("#evidence-answers", DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.cursor_row + step, table.row_count - 1)))

    def action_next_number(self) -> None:
        self.at = (self.at + 1) % len(self.found)
        self.show_number()

    def action_back(self) -> None:
        self.app.pop_screen()
