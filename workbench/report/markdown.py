"""A report as Markdown: the same sections and headings as the HTML, plots as tables of their
figures (a Markdown file has no pictures of its own), charts drawn in characters as code.

Text from the store is escaped for Markdown: its punctuation that Markdown or inline HTML
would act on gets a backslash (`<b>` reads as `<b>`, never as bold), control characters
are written out, and a table cell stays on one line."""

from __future__ import annotations

import re

from workbench.report.document import (
    BarsBlock,
    Block,
    Commands,
    Facts,
    Paragraph,
    PlotBlock,
    Preformatted,
    Report,
    Section,
    TableBlock,
)
from workbench.report.quote import Quote, quote_markdown
from workbench.text.literal import visible, visible_line
from workbench.text.numbers import fmt_num

_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~#!{}])")


def text(value: object) -> str:
    """Untrusted text as literal Markdown on one line."""
    return _SPECIAL.sub(r"\\\1", visible_line(str(value)))


_CODE = re.compile(r"`([^`]+)`")


def cell(value: object) -> str:
    """A table cell: text as `text` gives it, but a `code` span (the remedies' commands) set as
    code, as in the report's sentences; inside it only `|` is escaped (GitHub's tables split on
    it first). A lone backtick stays a backtick."""
    line, out, at = visible_line(str(value)), [], 0
    for match in _CODE.finditer(line):
        out += [_SPECIAL.sub(r"\\\1", line[at : match.start()]), "`" + match.group(1).replace("|", "\\|") + "`"]
        at = match.end()
    return "".join([*out, _SPECIAL.sub(r"\\\1", line[at:])])


def _fence(body: str, info: str = "") -> str:
    """A fenced block longer than any run of backticks in it, so nothing inside can close it."""
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _table(title: str, header: list[str], rows: list[list[str]]) -> str:
    lines = [f"**{text(title)}**", ""] if title else []
    lines.append("| " + " | ".join(text(h) for h in header) + " |")
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _block(block: Block) -> str:
    if isinstance(block, Paragraph):
        # The report's sentences carry names from the store (a tie's entities, an effect's
        # model): escaped as a cell is, `code` spans kept, line by line ("- " and "1." lead).
        link = f" ([evidence](#{block.anchor}))" if block.anchor else ""  # the headline's appendix entry
        return "\n".join(cell(line) for line in visible(block.text).split("\n")) + link
    if isinstance(block, Facts):
        return "\n".join(f"- **{text(k)}:** {text(v)}" for k, v in block.rows)
    if isinstance(block, TableBlock):
        return _table(block.title, block.header, block.rows)
    if isinstance(block, PlotBlock):
        forest = block.forest
        rows = [
            [
                label,
                fmt_num(value, 2, signed=True),
                f"[{fmt_num(low, 2)}, {fmt_num(high, 2)}]" if low is not None and high is not None else "no interval",
            ]
            for label, value, low, high in zip(forest.labels, forest.values, forest.lows, forest.highs)
        ]
        title = block.title + (f" ({forest.x_label})" if forest.x_label and forest.x_label != block.title else "")
        return _table(title, ["", "estimate", "interval"], rows)
    if isinstance(block, BarsBlock):
        rows = [
            [label, *(fmt_num(int(v) if float(v).is_integer() else v) for v in (vs[i] for _, vs in block.parts))]
            for i, label in enumerate(block.labels)
        ]
        return _table(block.title, ["", *(name for name, _ in block.parts)], rows)
    if isinstance(block, Preformatted):
        caption = f"**{text(block.title)}**\n\n" if block.title else ""
        return caption + _fence(visible(block.text))
    if isinstance(block, Commands):
        return _fence(visible("\n".join(block.lines)), "sh")
    if isinstance(block, Quote):
        return quote_markdown(block, text)
    raise TypeError(f"no Markdown for {type(block).__name__}")


def _section(section: Section) -> str:
    heading = "#" * section.level + " " + text(section.title)
    if section.anchored:  # where a link of the report points (ids are [a-z0-9-], nothing to escape)
        heading = f'<a id="{section.id}"></a>\n\n{heading}'
    return "\n\n".join([heading, *(_block(b) for b in section.blocks)])


def render(report: Report) -> str:
    head = f"# {text(report.title)}\n\n{text(report.subtitle)}"
    return "\n\n".join([head, *(_section(s) for s in report.sections)]) + "\n"
