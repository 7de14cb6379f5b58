"""A report as one self-contained HTML file: inline CSS, inline SVG charts, no script, no
link or image fetched from anywhere, so it opens offline and archives as one file; it prints
with each part of the report on a new page.

Every text that came from the store (model answers, entity names, study names, paths) is
escaped, and its control characters written out (`literal.visible_line`): `<script>` or
`[/x]` in a name reads as those characters, never as markup."""

from __future__ import annotations

import re
from html import escape

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
from workbench.report.quote import Quote, quote_html
from workbench.report.svg import bars_svg, forest_svg
from workbench.text.literal import visible, visible_line

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; margin: 2rem auto;
       max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; }
h2 { font-size: 1.3rem; border-bottom: 2px solid #1f5fa8; padding-bottom: .2rem; margin-top: 2.5rem; }
h3 { font-size: 1.1rem; margin-top: 2rem; }
.subtitle { color: #555; margin-top: 0; }
nav ol { columns: 2; padding-left: 1.2rem; }
table { border-collapse: collapse; margin: .8rem 0 1.2rem; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid #c8c8c8; padding: .25rem .5rem; vertical-align: top; text-align: left; }
thead th { background: #eef2f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.facts th { background: #f6f6f6; font-weight: 600; width: 16rem; }
td, th, p, li, caption, figcaption, h1, h2, h3 { overflow-wrap: break-word; }
.token { overflow-wrap: anywhere; }
td.text { white-space: pre-wrap; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: .6rem; font-size: 12px;
      white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 900px) {  /* a narrow window: tables of many columns still fit, words whole */
  body { padding: 0 .6rem; }
  table { font-size: 12px; }
  th, td { padding: .2rem .3rem; }
}
ul.items { padding-left: 1.4rem; }
ul.items li { margin: .3rem 0; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
figure { margin: 1rem 0; }
figcaption { font-weight: 600; margin-bottom: .3rem; }
svg.chart { max-width: 100%; height: auto; }
@media print {
  body { margin: 0; max-width: none; font-size: 11px; }
  nav { display: none; }
  section.part { break-before: page; }
  section.part:first-of-type { break-before: auto; }
  table, figure, pre { break-inside: avoid; }
  h2, h3, caption, figcaption { break-after: avoid; }
  thead { display: table-header-group; }
}
"""

_NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d+)?|\.\d+)([eE][+-]?\d+)?( \[.*\])?|n/a")
_CODE = re.compile(r"`([^`]+)`")


# A run of 20 or more characters with no space (a hash, a URL, a path) may break anywhere;
# words break only between them: "running shoes" never reads "runni ng shoes".
_TOKEN = re.compile(r"[^\s`]{20,}")


def _cell(text: object) -> str:
    raw, out, at = visible_line(str(text)), [], 0
    for token in _TOKEN.finditer(raw):  # measured before escaping: "&amp;" is one character
        out += [
            escape(raw[at : token.start()], quote=True),
            f'<span class="token">{escape(token.group(), quote=True)}</span>',
        ]
        at = token.end()
    return "".join([*out, escape(raw[at:], quote=True)])


# Text a reader should see with its own line breaks (a system prompt): kept, in a cell of its own.
TEXT_COLUMNS = {"system prompt"}


def _text_cell(text: object) -> str:
    return f'<td class="text">{escape(visible(str(text)), quote=True)}</td>'


def _prose(text: str) -> str:
    """The report's own sentences: escaped, with `code` spans set as code."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", _cell(text))


# Columns of the report's own words (the catalog's remedies): their `code` spans are set as code,
# as in its sentences; every other cell may hold a model's text and reads character for character.
PROSE_COLUMNS = {"what to do"}


def _table(block: TableBlock) -> str:
    head = "".join(f'<th scope="col">{_cell(h)}</th>' for h in block.header)
    prose = {i for i, h in enumerate(block.header) if h in PROSE_COLUMNS}
    texts = {i for i, h in enumerate(block.header) if h in TEXT_COLUMNS}
    body = []
    for row in block.rows:
        cells = "".join(
            _text_cell(c)
            if i in texts
            else f'<td class="num">{_cell(c)}</td>'
            if _NUMBER.fullmatch(str(c))
            else f"<td>{_prose(str(c)) if i in prose else _cell(c)}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    caption = f"<caption>{_cell(block.title)}</caption>" if block.title else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _block(block: Block) -> str:
    if isinstance(block, Paragraph):
        link = f' (<a href="#{block.anchor}">evidence</a>)' if block.anchor else ""  # its appendix entry
        return f"<p>{_prose(block.text)}{link}</p>"
    if isinstance(block, Facts):
        rows = "".join(
            f'<tr><th scope="row">{_cell(k)}</th>{_text_cell(v) if k in TEXT_COLUMNS else f"<td>{_cell(v)}</td>"}</tr>'
            for k, v in block.rows
        )
        return f'<table class="facts"><tbody>{rows}</tbody></table>'
    if isinstance(block, TableBlock):
        return _table(block)
    if isinstance(block, PlotBlock):
        caption = f"<figcaption>{_cell(block.title)}</figcaption>"
        return f'<figure class="forest">{caption}{forest_svg(block.forest, block.title)}</figure>'
    if isinstance(block, BarsBlock):
        caption = f"<figcaption>{_cell(block.title)}</figcaption>"
        return f'<figure class="bars">{caption}{bars_svg(block.labels, block.parts, block.title)}</figure>'
    if isinstance(block, Preformatted):
        caption = f"<figcaption>{_cell(block.title)}</figcaption>" if block.title else ""
        return f'<figure class="text-chart">{caption}<pre>{escape(visible(block.text))}</pre></figure>'
    if isinstance(block, Commands):
        return f'<pre class="commands"><code>{escape(visible(chr(10).join(block.lines)))}</code></pre>'
    if isinstance(block, Quote):
        return quote_html(block)
    raise TypeError(f"no HTML for {type(block).__name__}")


def _blocks(blocks: list[Block]) -> list[str]:
    """Each block's HTML; sentences that are items of a list ("- " first) are one <ul>."""
    out: list[str] = []
    items: list[str] = []
    for block in [*blocks, None]:
        if isinstance(block, Paragraph) and block.text.startswith("- "):
            items.append(_block(Paragraph(block.text[2:], *_anchor_of(block)))[3:-4])  # without its <p>
            continue
        if items:
            out.append('<ul class="items">' + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
            items = []
        if block is not None:
            out.append(_block(block))
    return out


def _anchor_of(block: Paragraph) -> tuple:
    return (block.anchor,) if getattr(block, "anchor", "") else ()


def _section(section: Section) -> str:
    tag = f"h{section.level}"
    kind = "part" if section.level == 2 else "method"
    body = "\n".join(_blocks(section.blocks))
    return f'<section class="{kind}" id="{section.id}">\n<{tag}>{_cell(section.title)}</{tag}>\n{body}\n</section>'


def render(report: Report) -> str:
    contents = "".join(f'<li><a href="#{s.id}">{_cell(s.title)}</a></li>' for s in report.sections if s.level == 2)
    parts = "\n".join(_section(s) for s in report.sections)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_cell(report.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<header>\n<h1>{_cell(report.title)}</h1>\n<p class="subtitle">{_cell(report.subtitle)}</p>\n'
        f"<nav><ol>{contents}</ol></nav>\n</header>\n<main>\n{parts}\n</main>\n</body>\n</html>\n"
    )
