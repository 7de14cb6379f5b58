"""The Entities screen's list of the reviewer's own decisions, latest first (h), kept up to
date while it is open (u and y undo and redo from it)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from textual import work
from textual.message import Message

from workbench.store.db import reading
from workbench.store.entity_list import own_decisions
from workbench.widgets.modals import DecisionList


class OwnDecisions:
    """For the Entities screen (it gives `who`, `action_undo` and `action_redo`)."""

    @dataclass
    class DecisionsRead(Message, bubble=False):
        """A worker read the reviewer's own entity decisions, latest first."""

        mine: list[dict]
        open_list: bool

    def action_decisions(self) -> None:
        self._read_decisions(open_list=True)

    @work(thread=True, exclusive=True, group="entity-history", description="Reading your decisions")
    def _read_decisions(self, open_list: bool = False) -> None:
        try:
            with reading(self.app.db_path) as conn:
                mine = own_decisions(conn, self.who)
        except sqlite3.Error as exc:
            self.notify(str(exc), severity="error")
            return
        self.post_message(self.DecisionsRead(mine, open_list))

    def on_own_decisions_decisions_read(self, message: DecisionsRead) -> None:
        if isinstance(self.app.screen, DecisionList):
            self.app.screen.show(message.mine)
        elif message.open_list:
            title = f"Entity decisions by {self.who}, latest first"
            self.app.push_screen(DecisionList(title, message.mine, self.action_undo, self.action_redo))
