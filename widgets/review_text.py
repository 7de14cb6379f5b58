"""What the Review screen says about a response: its lists as tables, one name a cell (a
name holding a comma reads as one name), the answer with the names it names highlighted,
and each reviewer's progress. Everything from a model or a reviewer is literal text."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from workbench.store.entities.gazetteer_flags import flag_line
from workbench.text.literal import visible, visible_line
from workbench.text.words import plural

HIGHLIGHT = "bold reverse"
FLAGGED = "bold reverse yellow"  # a name the gazetteer found by a near spelling or a common word
FLAG_MARK = "⚑"  # before each flagged name's line: told apart without colour too
BAR_CELLS = 10
BAR_DONE, BAR_TODO = "━", "─"  # a bar's filled and unfilled cells


def names_table(columns: list[tuple[str, list[str]]], empty: str = "(nothing)") -> Table:
    """Lists side by side, ranked: one name a cell, a long name wrapped in its own cell."""
    table = Table(expand=True, box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("#", width=2, justify="right", style="dim", no_wrap=True)
    for title, _names in columns:
        table.add_column(Text(visible_line(title)), overflow="fold", ratio=1)
    for rank in range(max((len(names) for _t, names in columns), default=0) or 1):
        cells = [Text(str(rank + 1))]
        for _title, names in columns:
            if rank < len(names):
                cells.append(Text(visible_line(names[rank])))
            else:
                cells.append(Text(empty if rank == 0 else "", style="dim"))
        table.add_row(*cells)
    return table


def answer_text(answer: str | None, names: list[str], flagged: list[dict[str, Any]] | None = None) -> Text:
    """The answer, literally, with every name of `names` it holds highlighted (case ignored),
    and where each `flagged` name was found (a near spelling, a common word) in yellow."""
    if not answer:
        return Text("(imported list: no answer text)", style="dim")
    text = Text(visible(answer))
    words = sorted({visible(n) for n in names if n.strip()}, key=len, reverse=True)  # the longest first
    if words:
        text.highlight_words(words, HIGHLIGHT, case_sensitive=False)
    for flag in flagged or ():
        if answer[flag["start"] : flag["end"]] == flag["text"]:  # offsets in the stored answer
            start = len(visible(answer[: flag["start"]]))  # where `visible` puts it
            text.stylize(FLAGGED, start, start + len(visible(flag["text"])))
    return text


def _verdict_title(who: str, verdict: dict[str, Any], adjudicators: list[str]) -> str:
    how = "adjudicated" if who in adjudicators else verdict["decision"]
    return f"{who} ({how}{' blind' if verdict.get('blind') else ''})"


def item_lists(item: dict[str, Any], validators: list[str] | None = None) -> RenderableType:
    """The experts' lists beside the vote (blind: the extracted list), then the list metrics
    read beside each reviewer's verdict, and the names not found in the answer."""
    parts: list[RenderableType] = []
    agreement = f", experts agree {item['agreement']:.2f}" if item.get("agreement") is not None else ""
    vote = "extracted list" if item.get("blind") else "vote"
    machine = [(f"expert {n}", names) for n, names in enumerate(item["experts"], start=1)]
    parts.append(Text(f"what the machine found{agreement}", style="bold"))
    parts.append(names_table([*machine, (vote, item["extracted"])]))
    verdicts = item.get("verdicts") or {}
    if not item.get("blind"):
        adjudicators = item.get("adjudicators") or []
        reviewed = [(_verdict_title(who, v, adjudicators), v["list"]) for who, v in verdicts.items()]
        parts.append(Text("the list metrics read, and each reviewer's", style="bold"))
        parts.append(names_table([("list", item["entities"]), *reviewed], empty="(none)"))  # a short word: never split
    ungrounded = item.get("ungrounded") or []
    for names, what in (
        ([n for n in ungrounded if n in item["entities"]], "kept, flagged"),
        ([n for n in ungrounded if n not in item["entities"]], "dropped"),
    ):
        if names:  # the experts named them, the answer does not: worth a look
            parts.append(Text(f"not in the answer's text ({what}):", style="yellow"))
            parts.extend(Text(f"  {visible_line(n)}", style="yellow") for n in names)
    flagged = [f for f in item.get("flagged") or [] if f["name"] in item["extracted"]]
    if flagged:  # the gazetteer's guesses: a reviewer who disagrees edits or rejects the list
        parts.append(
            Text("found by a near spelling or a common word (e edits the list, x rejects it):", style="yellow")
        )
        parts.extend(Text(f"  {FLAG_MARK} {visible_line(flag_line(f))}", style="yellow") for f in flagged)
    parts.append(verdict_line(item, validators))
    return Group(*parts)


def verdict_line(item: dict[str, Any], validators: list[str] | None = None) -> Text:
    """Where the response stands: not reviewed, reviewed, disagreed on (with the keys that
    settle it) or resolved by an adjudication."""
    verdicts = item.get("verdicts") or {}
    if item.get("blind"):
        mine = next(iter(verdicts.values()), None)
        return Text("your verdict (blind): " + (mine["decision"] if mine else "not reviewed yet"))
    settled = item.get("adjudication")
    if settled:
        whose = f"{settled['took']}'s list" if settled["took"] else "a list of their own"
        return Text(visible_line(f"resolved: {settled['by']} took {whose} ({' and '.join(settled['settles'])})"))
    if not verdicts:
        return Text("not reviewed yet")
    if validators and len(validators) >= 2:
        return Text(
            visible_line(f"reviewers disagree: [ takes {validators[0]}'s list, ] {validators[1]}'s, e your own"),
            style="yellow",
        )
    return Text(visible_line(f"reviewed by {', '.join(verdicts)}"))


def bar_cells(done: int, total: int) -> int:
    """The filled cells of a bar: one at least once any is done, every one only when all are."""
    if not total or done <= 0:
        return 0
    if done >= total:
        return BAR_CELLS
    return min(BAR_CELLS - 1, max(1, round(BAR_CELLS * done / total)))


class Progress:
    """Each reviewer's progress after a heading, wrapped between reviewers (never inside one)
    to the width it is drawn at, on `MAX_LINES` lines at most: the reviewers left over are
    counted at the end ("+2 more"). `plain` is the whole of it on one line."""

    MAX_LINES = 2

    def __init__(self, head: Text, entries: list[Text]) -> None:
        self.head, self.entries = head, entries

    @property
    def plain(self) -> str:
        return self.head.plain + " · ".join(e.plain for e in self.entries)

    def __rich_console__(self, console, options):
        width, lines, line = options.max_width, 1, self.head.copy()
        for n, entry in enumerate(self.entries):
            left = len(self.entries) - n - 1  # after this one
            room = width - (len(f" · +{left} more") if left and lines == self.MAX_LINES else 0)
            if n and line.cell_len + 3 + entry.cell_len > room:
                if lines == self.MAX_LINES:
                    line.append(f" · +{left + 1} more", style="dim")
                    break
                line.no_wrap, line.overflow = True, "ellipsis"
                yield line
                lines, line = lines + 1, Text("   ")
            elif n:
                line.append(" · ")
            line.append_text(entry)
        line.no_wrap, line.overflow = True, "ellipsis"
        yield line


def progress_line(progress: dict[str, int], total: int, scope: str) -> Progress:
    """Each reviewer's verdicts among the lists of `scope`, as a small bar and a count. The
    bar's filled part is a heavy line, the rest a light one: told apart without colour too."""
    head = Text(f" {scope}: ", style="dim")
    entries = []
    for who, done in sorted(progress.items()):
        filled = bar_cells(done, total)
        entry = Text(visible_line(who) + " ")
        entry.append(BAR_DONE * filled, style="bold green")
        entry.append(BAR_TODO * (BAR_CELLS - filled), style="dim")
        entry.append(f" {done}/{total}")
        entries.append(entry)
    if not progress:
        entries.append(Text(f"nobody has reviewed any of {total}"))
    return Progress(head, entries)


def agreement_lines(pairs: list[tuple[str, str, dict[str, Any]]]) -> list[Text]:
    """Two reviewers' agreement and Cohen's kappa on the validation sample, a line a pair (as
    `workbench review agreement` gives them): read after each verdict, next to the progress."""
    lines = []
    for first, second, result in pairs[:2]:
        if result["agreement"] is None:
            rate = "agreement n/a (no list reviewed by both)"
        else:
            both = plural(result["both_reviewed"], "list")
            rate = f"agree {result['agreement']:.0%} ({result['same_list']} of {both})"
        kappa = f"{result['kappa']:.2f}" if result["kappa"] is not None else _kappa_na(result)
        line = Text(" validation sample: ", style="dim")
        line.append(visible_line(f"{first} & {second} {rate}, Cohen's kappa {kappa}"))
        line.no_wrap, line.overflow = True, "ellipsis"
        lines.append(line)
    return lines


def _kappa_na(result: dict) -> str:
    """Why kappa is n/a, short enough for the line: one list (a kappa of one item says nothing),
    or lists all judged alike (chance agreement 1)."""
    return "n/a (1 list)" if (result.get("both_reviewed") or 0) < 2 else "n/a (all judged alike)"
