"""The top line of every screen: the five modes with their keys, help and quit.

It replaces the header so the modes are never cut off: the footer below is left to
the keys of the screen on view. At 80 columns the modes, help and quit always fit;
then the reviewer (whose decisions the keys make), and the database name comes last and
is what gets shortened.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static

MODES = (
    ("1", "run", "Run"),
    ("2", "metrics", "Metrics"),
    ("3", "design", "Design"),
    ("4", "review", "Review"),
    ("5", "entities", "Entities"),
)


class ModeBar(Static):
    DEFAULT_CSS = """
    ModeBar { height: 1; width: 1fr; background: $panel; color: $text-muted; }
    """

    def __init__(self, mode: str, detail: str = "", **kwargs):
        # `detail` names a sub-screen (probe labels); the screen's own status line shows it,
        # so the bar keeps its width for the modes, help and quit.
        super().__init__(**kwargs)
        self.mode, self.detail = mode, detail

    def on_mount(self) -> None:
        self.update(self.line())

    def line(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        for key, mode, title in MODES:
            here = mode == self.mode
            text.append(f" {key} ", style="bold reverse" if here else "bold")
            text.append(f"{title} ", style="bold reverse" if here else "")
        text.append("│", style="dim")
        text.append(" ? ", style="bold")
        text.append("help ")
        text.append(" q ", style="bold")
        text.append("quit ")
        text.append("│ ", style="dim")
        reviewer = getattr(self.app, "reviewer", "")
        if reviewer:  # whose verdicts and decisions these keys make
            text.append(f"{reviewer} ", style="bold")
        text.append(Path(getattr(self.app, "db_path", "") or "").name, style="dim")
        return text
