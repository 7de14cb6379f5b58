"""The Review screen's decisions: a verdict (accept, edit, reject) on the list shown, taking
one reviewer's list or one's own to settle a disagreement, undo; each made on the version
shown, a refusal said in one line; none on a list that changed while on screen until the
reviewer has been told (screens/review_changes.py). Mixed into `ReviewScreen`, whose page it
judges."""

from __future__ import annotations

import sqlite3

from rich.console import Group
from rich.text import Text
from textual import work

from workbench.screens.review_changes import MARK_STYLE, change_cause
from workbench.store.db import reading
from workbench.store.errors import UserFacingError
from workbench.store.review import adjudication
from workbench.store.review import aids as review_aids
from workbench.store.review import verdicts as reviews
from workbench.store.review import versions as review_versions
from workbench.text.literal import visible_line
from workbench.widgets.list_editor import ListEditor
from workbench.widgets.pager import PagerScreen
from workbench.widgets.review_text import answer_text, names_table

# How the store says a verdict was the reviewer's standing one already (store/review/repeat.py).
ALREADY = "already recorded:"
# Filters a verdict takes the list out of: the next one moves up, no step needed.
LEAVES = ("unreviewed", "reviewer disagreements")


class ReviewDecisions:
    """Needs the screen's `page`, `filter`, `reviewer`, `blind`, `validators()`, `load()`,
    `write()` and ReviewChanges's `refuse_changed()`, `own_change()` and `take_as_read()`."""

    def _judge(self, change, what: str, item: dict | None = None, vetted: bool = False) -> None:
        """Store a decision on the response on screen (or on `item`, as an editor opened on it
        read it), made on the version shown; refused once if it changed while on screen (not
        when `vetted`: the editor showed the change and kept the typed list, `_vet_edit`)."""
        item = item or self.page
        if item is None or "entities" not in item or self.busy or (not vetted and self.refuse_changed(item)):
            return
        blind = self.blind

        def stored(result) -> None:
            self.own_change(item["id"], result[1])
            # A judged response leaves the "unreviewed" list and the queue; elsewhere, go on to the next.
            self.load(keep=item["id"], advance=0 if self.filter in LEAVES else 1)

        self.write(
            lambda conn: review_versions.with_version(conn, lambda c: change(c, item), item["id"], blind), stored, what
        )

    def on_pager_screen_change_refused(self, message: PagerScreen.ChangeRefused) -> None:
        """Refused (the list changed since it was shown, or is gone; a name that is none):
        said in one line, and the response read again as it is now."""
        message.prevent_default()
        self.busy = self._writing = False
        self.take_as_read(None)  # told why: the list as shown next is the one judged
        if message.reason.startswith(ALREADY):  # the same verdict again: a note, not a refusal
            self.notify(f"{message.reason[0].upper()}{message.reason[1:]}.", timeout=10)
        else:
            self.notify(f"{message.title}: {message.reason}", severity="warning", timeout=10)
        page = self.page
        self.load(keep=page["id"] if page else None)

    def _verdict(
        self, decision: str, names: list[str] | None = None, item: dict | None = None, vetted: bool = False
    ) -> None:
        blind = self.blind
        self._judge(
            lambda conn, item: reviews.review(
                conn,
                item["id"],
                self.reviewer,
                decision,
                names,
                "validation" if blind else None,
                blind=blind,
                if_version=item["version"],
            ),
            "Verdict not saved",
            item,
            vetted,
        )

    def action_verdict(self, decision: str) -> None:
        self._verdict(decision)

    def action_take(self, which: int) -> None:
        validators = self.validators(self.page)
        if which >= len(validators):
            return
        take = validators[which]
        self._judge(
            lambda conn, item: adjudication.adjudicate(
                conn, item["id"], self.reviewer, take, if_version=item["version"]
            ),
            f"Not adjudicated (taking {take}'s list)",
        )

    def action_edit(self) -> None:
        item = self.page
        if item is None or "entities" not in item or self.refuse_changed(item):
            return
        adjudicating = bool(self.validators(item))
        base = {"item": item}  # the version the typed list is saved on (`_vet_edit` moves it on)

        def done(names: list[str] | None) -> None:
            if names is None:
                return
            if adjudicating:  # one's own list, settling the disagreement
                self._judge(
                    lambda conn, it: adjudication.adjudicate(
                        conn, it["id"], self.reviewer, adjudication.OWN, names, if_version=it["version"]
                    ),
                    "Not adjudicated (your own list)",
                    base["item"],
                    vetted=True,
                )
            else:
                self._verdict("edit", names, base["item"], vetted=True)

        machine = [(f"expert {n}", e) for n, e in enumerate(item["experts"], start=1)]
        others = [] if self.blind else [(who, v["list"]) for who, v in item["verdicts"].items()]
        own = sorted({n for _, names in [*machine, *others] for n in names} | set(item["extracted"]))
        editor = ListEditor(
            "Your list, best first" if adjudicating else "The recommended entities, best first",
            item["entities"],
            names_table([*machine, ("extracted", item["extracted"]), *others]),
            own,
            check=lambda name: None if reviews.is_name(name) else f"{name!r} is not a name: it needs a letter or digit",
            vet=lambda names: self._vet_edit(base),
            answer=answer_text(item["answer"], item["extracted"]),  # judged beside the list, not under a box
        )
        self.app.push_screen(editor, done)
        self._read_names()

    def _vet_edit(self, base: dict):
        """On saving an edit: if the list changed since the editor read it (`base`), what it is
        now, for the editor to show above the typed list it keeps; the next save is made on
        this version. None when unchanged (or gone: the store refuses that in one line)."""
        item = base["item"]
        try:
            with reading(self.app.db_path) as conn:
                now = reviews.review_detail(conn, item)
        except (UserFacingError, sqlite3.Error):
            return None
        if now["version"] == item["version"]:
            return None
        base["item"] = now
        what = f"List {item['id']} changed while you edited it ({change_cause(item.get('trail') or [], now['trail'], self.blind)})"
        self.notify(visible_line(f"{what}: your list is kept; read the new one, then save again"), severity="warning")
        stored = [Text(f"  {n}. {visible_line(name)}") for n, name in enumerate(now["entities"], start=1)]
        return Group(
            Text(visible_line(f"{what}. It is now:"), style=MARK_STYLE),
            *(stored or [Text("  (no names: the answer recommends nothing)")]),
            Text("Ctrl+S saves your list below in its place · Esc cancels", style="dim"),
        )

    @work(thread=True, exclusive=True, group="review-names", description="Reading the known names")
    def _read_names(self) -> None:
        try:
            with reading(self.app.db_path) as conn:
                names = review_aids.known_names(conn)
        except (UserFacingError, sqlite3.Error):
            return  # the editor completes from the response's own names
        self.post_message(self.NamesRead(names))

    def on_review_screen_names_read(self, message) -> None:  # ReviewScreen.NamesRead
        editor = self.app.screen
        if isinstance(editor, ListEditor):
            editor.know(message.names)

    def action_undo(self) -> None:
        blind = self.blind

        def undone(outcome) -> None:
            result, version = outcome
            if result is not None:
                self.own_change(result["list_id"], version)
            if result is None:
                self.notify("Nothing to undo.")
                return
            note = f" ({result['note']})" if result["note"] else ""
            self.notify(f"Undid your {result['decision']}{note}.")
            self.load(keep=result["list_id"])

        reviewer = self.reviewer
        self.write(
            lambda conn: review_versions.with_version(
                conn, lambda c: reviews.undo_review(c, reviewer), lambda r: r and r["list_id"], blind
            ),
            undone,
            "Not undone",
        )
