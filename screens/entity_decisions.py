"""The Entities screen's decisions: merge the marked entities or a suggested cluster (its
name chosen or typed), forbid a cluster, drop members from it, undo and redo one's own; each
stored in a worker, logged as the reviewer's own, the clusters computed again after it.
Mixed into `EntitiesScreen`, whose marks and suggestions it decides on."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from textual import work

from workbench.entities import dedup
from workbench.store.db import opened
from workbench.store.entities import decisions as registry
from workbench.store.errors import UserFacingError
from workbench.text.literal import visible_line
from workbench.widgets.entity_text import clip, plural
from workbench.widgets.modals import DecisionList, EditText, PickMembers


class EntityDecisions:
    """Needs the screen's `who`, `view`, `marked`, `entities`, `suggestions`, `entity_count`,
    `busy`, `current()`, `_show()`, `action_recluster()`, `_read_decisions()` and `DecisionDone`."""

    def _decide(self, action, note: str | Callable[[Any], str]) -> None:
        """Store a decision in a worker (a store busy with a run never freezes the
        keys), then say what happened and cluster again."""
        if self.busy:  # a second key now would decide on the same cluster twice
            return
        self.busy = True
        self._store(action, note)

    @work(thread=True, group="entity-decisions", description="Saving the decision")
    def _store(self, action, note) -> None:
        try:
            with opened(self.app.db_path) as conn:
                result = action(conn)
        except (UserFacingError, sqlite3.Error) as exc:
            self.post_message(self.DecisionDone(refused=str(exc)))
            return
        self.post_message(self.DecisionDone(note(result) if callable(note) else note))

    def on_entities_screen_decision_done(self, message) -> None:
        if message.refused:  # nothing stored: the next key may decide again
            self.busy = False
            self.notify(message.refused, severity="error")
            return
        self.notify(message.note)
        self.marked = {}  # a decision made: the marks it was made on are done with
        self.action_recluster()
        if isinstance(self.app.screen, DecisionList):
            self._read_decisions()

    def action_accept(self, name: str | None = None) -> None:
        if self.marked and name is None:
            self._merge_marked()
            return
        s = self.current() if self.view == "suggestions" else None
        if s is None:
            if self.view == "all":
                self.notify("Mark two entities or more with space, then a merges them.", severity="warning")
            return
        into = name or s.canonical
        self._decide(
            lambda conn: registry.merge(
                conn, s.members, into, who=self.who, why=f"{s.method} suggestion", include_into=name is not None
            ),
            f"Merged {len(s.members)} into {into}; u undoes it.",
        )

    def _merge_marked(self) -> None:
        names = list(self.marked)
        if len(names) < 2:
            self.notify("Mark two entities or more with space to merge them.", severity="warning")
            return
        counts = {e.name: e.mentions for e in self.entities}
        default = max(names, key=lambda n: counts.get(n, 0))  # the most mentioned (the first marked on a tie)

        def named(name: str | None) -> None:
            into = " ".join((name or "").split())
            if into:
                self._decide(
                    lambda conn: registry.merge(
                        conn, names, into, who=self.who, why="merged by hand", include_into=True
                    ),
                    f"Merged {len(names)} into {into}; u undoes it.",
                )

        shown = ", ".join(clip(visible_line(n), 40) for n in names[:12]) + (" …" if len(names) > 12 else "")
        self.app.push_screen(EditText("Canonical name for the merged entity", default, f"Merging {shown}"), named)

    def action_rename_and_accept(self) -> None:
        if self.marked:
            self._merge_marked()
            return
        s = self.current()
        if s is not None:
            self.app.push_screen(
                EditText("Canonical name for the merged entity", s.canonical),
                lambda name: self.action_accept(name) if name else None,
            )

    def action_forbid(self) -> None:
        s = self.current()
        if s is None:
            return

        def forbid_all(conn) -> None:
            for other in s.members[1:]:
                registry.forbid(conn, s.members[0], other, who=self.who, why="rejected suggestion")

        self._decide(forbid_all, "Marked as different; they will not be suggested together again.")

    def action_drop_members(self) -> None:
        s = self.current()
        if s is None:
            return

        def done(keep: list[str] | None) -> None:
            if keep is None:
                return
            if len(keep) < 2:
                self.notify("Keep at least two members to merge (x marks them all as different).", severity="warning")
                return
            counts = [s.counts[s.members.index(m)] for m in keep]
            reasons = [s.reasons[s.members.index(m)] if s.reasons else "" for m in keep]
            index = self.suggestions.index(s)
            self.suggestions[index] = dedup.Suggestion(keep[0], keep, counts, s.score, s.method, reasons)
            self._show(self.suggestions, self.entity_count)

        notes = [
            f"{plural(c, 'mention')}" + (f", {r}" if r else "")
            for c, r in zip(s.counts, s.reasons or [""] * len(s.members))
        ]
        self.app.push_screen(PickMembers(s.members, notes), done)

    def action_undo(self) -> None:
        self._decide(
            lambda conn: registry.undo(conn, self.who),
            lambda undone: f"Undid: {undone['summary']}" if undone else "Nothing of yours to undo.",
        )

    def action_redo(self) -> None:
        self._decide(
            lambda conn: registry.redo(conn, self.who),
            lambda redone: f"Redid: {redone['summary']}" if redone else "Nothing of yours to redo.",
        )
