"""Two parts of the Entities screen: the list of the reviewer's own decisions, latest first
(h), kept up to date while it is open (u and y undo and redo from it); and a region for the
marked or highlighted entities (g), picked among the known ones."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from textual import work
from textual.message import Message

from workbench.store.db import opened, reading
from workbench.store.entities import decisions as registry
from workbench.store.entities.listing import own_decisions
from workbench.text.words import plural
from workbench.widgets.modals import DecisionList, PickRegion


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


class AssignRegion:
    """For the Entities screen (it gives `who`, `marked`, `highlighted_names` and `_decide`)."""

    @dataclass
    class RegionsRead(Message, bubble=False):
        """A worker read the known regions, to pick one for these entities."""

        known: list[str]
        names: list[str]

    def action_set_region(self, _list: bool = False) -> None:
        names = list(self.marked) or self.highlighted_names()
        if names:
            self._ask_region(names)

    @work(thread=True, group="entity-regions", description="Reading the known regions")
    def _ask_region(self, names: list[str]) -> None:
        from workbench.store.entities.regions import known_regions

        try:
            with opened(self.app.db_path) as conn:
                known = known_regions(conn)
        except sqlite3.Error as exc:
            self.notify(str(exc), severity="error")
            return
        self.post_message(self.RegionsRead(known, names))

    def on_assign_region_regions_read(self, message: RegionsRead) -> None:
        names = message.names

        def done(choice: tuple[str, bool] | None) -> None:
            if choice is None:
                return
            region, _new = choice  # in its one spelling; a new region only once the user said so
            self._decide(
                lambda conn: registry.set_region(conn, names, region, who=self.who, why="assigned in the app"),
                f"Region {region} assigned to {plural(len(names), 'entity', 'entities')}; u undoes it.",
            )

        self.app.push_screen(PickRegion(message.known, len(names)), done)
