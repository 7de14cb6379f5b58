"""An answer quoted in the report with the spans a number counts marked (the evidence
appendix), and how each renderer writes it: imports neither renderer, which both import it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from workbench.text.literal import visible, visible_line


@dataclass
class Quote:
    """An answer as the model gave it, with the spans a number counts marked."""

    title: str
    text: str
    spans: list[tuple[int, int]]


def _pieces(quote: Quote) -> list[tuple[str, bool]]:
    out, at = [], 0
    for start, end in quote.spans:
        out += [(quote.text[at:start], False), (quote.text[start:end], True)]
        at = end
    return [*out, (quote.text[at:], False)]


def quote_markdown(quote: Quote, escaped: Callable[[str], str]) -> str:
    """A block quote, line by line, each piece escaped by the Markdown renderer's `escaped`
    (one line of literal text), the counted names in bold."""
    lines: list[list[str]] = [[]]
    for piece, marked in _pieces(quote):
        for i, part in enumerate(visible(piece).split("\n")):
            if i:
                lines.append([])
            if part:
                lines[-1].append(f"**{escaped(part)}**" if marked and part.strip() else escaped(part))
    body = "\n".join(f"> {''.join(parts)}" if parts else ">" for parts in lines)
    return f"*{escaped(quote.title)}*\n\n{body}"


def quote_html(quote: Quote) -> str:
    """A block quote, escaped, its line breaks kept, the counted names in <mark>."""
    body = "".join(
        f"<mark>{escape(visible(piece))}</mark>" if marked else escape(visible(piece))
        for piece, marked in _pieces(quote)
    )
    quoted = f'<blockquote style="white-space: pre-wrap">{body}</blockquote>'
    return f'<figure class="quote"><figcaption>{escape(visible_line(quote.title))}</figcaption>{quoted}</figure>'
