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


def visible(text: str) -> str:
    """The text with control characters written out as `\\xNN`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def literal_text(text: str, style: str = "") -> Text:
    """A Rich Text that renders `text` literally: no markup, no escapes."""
    return Text(visible(text), style=style)
