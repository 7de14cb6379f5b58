"""Showing untrusted text (model output, server errors) exactly as it is.

Model text may contain Rich markup (`[bold]`, `[link=...]`) or terminal escape
codes. Stored text is never altered; on screen, control characters become
visible escapes (`\\x1b`) and markup is never interpreted, so what a reviewer
sees is what the model wrote and the terminal cannot be hijacked.
"""

from __future__ import annotations

import re

from rich.text import Text

# C0 controls except tab and newline, DEL, and the C1 range (which some
# terminals treat as escape sequences too).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Characters that change how neighbouring text looks without showing themselves:
# bidirectional overrides and isolates (which can display "evil" reversed) and
# zero-width spaces (which make two different names look the same).
_INVISIBLE = re.compile("[\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
_LINE_BREAKS = re.compile(r"[\t\n]")


def visible(text: str) -> str:
    """The text with control characters written out as `\\xNN` and invisible
    format characters as `\\uNNNN`; tabs and line breaks kept."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def visible_line(text: str) -> str:
    """`visible`, and tabs and line breaks written out too: for a name in one cell
    or one line, which a line break would split in two."""
    return _LINE_BREAKS.sub(lambda m: "\\t" if m.group() == "\t" else "\\n", visible(text))


def literal_text(text: str, style: str = "") -> Text:
    """A Rich Text that renders `text` literally: no markup, no escapes."""
    return Text(visible(text), style=style)


def literal_line(text: str, style: str = "") -> Text:
    """`literal_text` on one line (see `visible_line`)."""
    return Text(visible_line(text), style=style)
