"""What a reviewer judges is the list as they read it.

The Review screen follows the store, so a refresh can change the list on view: another
reviewer's verdict or undo, a re-extraction. The screen then says so (a notice naming what
changed it, a marker over the list) and refuses the next verdict, edit or adjudication key on
that list in one line: the reviewer reads it, then presses again. The refusal, or moving to
another list and back, takes the list as now shown as read. The screen's own decisions leave
the list at a version they know, so they change nothing here.

A blind reviewer is shown the machine's list only: others' verdicts never change it, and a
notice never names them."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from workbench.text.literal import visible_line

MARK_STYLE = "bold reverse yellow"


def change_cause(before: list, after: list, blind: bool) -> str:
    """What changed a list between two trails of its verdicts (store/review/versions.py)."""
    if blind:  # its answer or the machine's extraction: no reviewer's verdict shows here
        return "its answer or the machine's list changed"
    was = {v[0]: v for v in before}
    new = [v for v in after if v[0] not in was]
    if new:
        _id, who, what, undone = new[-1]
        return f"{who}'s {what}" + (", undone since" if undone else "")
    undone = [v for v in after if v[3] and v[0] in was and not was[v[0]][3]]
    if undone:
        _id, who, what, _undone = undone[-1]
        return f"{who}'s undo of their {what}"
    return "an import or a re-extraction"


class ReviewChanges:
    """Needs the screen's `page`, `position`, `blind`, `_where`, `_refresh_from`, `_loading`,
    `notify()` and `show()`; `show()` calls `note_shown(item)` for the list it paints with its
    details, and `say_change()` once no load is under way."""

    _read: dict | None = None  # the list as the reviewer read it: (id, blind), version, trail
    _changed: dict | None = None  # the list on view changed since: id, version, what happened
    _own: tuple | None = None  # (list id, version) this screen's latest decision left a list at
    _arrived: dict | None = None  # the list a refresh put in the place of the one on view: id, what happened

    def note_shown(self, item: dict[str, Any]) -> None:
        """`item` is painted with its details: another list is read as shown (but one a refresh
        put in the place of the list on view); the same list at another version is marked and
        said once, unless this screen's own decision made that version."""
        read, arrived = self._read, self._arrived
        if read is None or read["key"] != (item["id"], bool(item.get("blind"))):
            self.take_as_read(item)
            if arrived is not None and arrived["id"] == item["id"]:  # said when it arrived
                self._changed = {"id": item["id"], "version": item["version"], "what": arrived["what"]}
        elif item["version"] == read["version"]:
            self._changed = None  # as it was read again (an undo elsewhere)
        elif self._own == (item["id"], item["version"]):
            self.take_as_read(item)
        elif self._changed is None or self._changed["version"] != item["version"]:
            cause = change_cause(read["trail"], item.get("trail") or [], bool(item.get("blind")))
            what = f"List {item['id']} changed while on screen ({cause})"
            self._changed = {"id": item["id"], "version": item["version"], "what": what, "unsaid": True}
            if not (self._loading and self._refresh_from == item["id"]):
                self.say_change()
            # else: said once the pages the refresh reads arrive (`say_change`), unless they no
            # longer hold the list: then `gone` says where it went and what is on screen instead

    def say_change(self) -> None:
        """Say the change to the list on view, once (the screen calls it when a load ends)."""
        changed = self._changed
        if changed is not None and changed.pop("unsaid", False):
            self.notify(visible_line(f"{changed['what']}: read it before judging it."), severity="warning", timeout=10)

    def take_as_read(self, item: dict[str, Any] | None) -> None:
        """The list as shown now is the one the reviewer judges (None: the next one shown)."""
        self._changed = self._own = self._arrived = None
        self._read = item and {
            "key": (item["id"], bool(item.get("blind"))),
            "version": item["version"],
            "trail": item.get("trail") or [],
        }

    def own_change(self, list_id: int | None, version: str | None) -> None:
        """This screen's decision left list `list_id` at `version`: showing it is no news."""
        self._own = (list_id, version) if list_id is not None else None

    def refuse_changed(self, item: dict[str, Any] | None) -> bool:
        """Refuse a decision on `item` (the list on view, or as an editor opened on it read it)
        if it changed while on screen, said in one line; the list as shown now is taken as
        read: the next key judges it."""
        changed = self._changed
        if changed is None or item is None or changed["id"] != item["id"]:
            return False
        what = changed["what"]  # "List 1 left this filter (…): list 2 is on screen now" takes a semicolon
        said = f"{what}{'; ' if ': ' in what else ': '}read it, then press again"
        self.notify(visible_line(said), severity="warning", timeout=10)
        shown = self.page
        self.take_as_read(shown if shown is not None and "entities" in shown else None)
        self.show()
        return True

    def change_mark(self, item: dict[str, Any] | None) -> Text | None:
        """The marker over a list that changed while on screen, until it is taken as read."""
        changed = self._changed
        if changed is None or item is None or changed["id"] != item["id"]:
            return None
        return Text(visible_line(f"CHANGED: {changed['what']}; read it before judging it"), style=MARK_STYLE)

    def gone(self, keep: Any, pages: list[dict]) -> int | None:
        """The list on screen (`keep`) is not among the pages read. A verdict took it out of this
        filter (the reviewer's own: nothing to say), or it is no longer stored as it was (an
        import or a re-extraction replaced it, an edited study dropped its answer): show the same
        answer's new list if the filter holds it, else the one that took its place, say so, and
        mark the list now on view as changed while on screen."""
        where, ids = self._where, [p["id"] for p in pages]
        if where is None or where[0] != keep or (where[1] and self._refresh_from != keep):
            return None
        moved = ids.index(where[2]) if not where[1] and where[2] in ids else None
        position = moved if moved is not None else min(self.position, len(pages) - 1)
        self._changed = None  # a change to the list that left: `what` below says it instead
        shown = f"list {ids[position]} is on screen now" if pages else "nothing is left with this filter"
        if where[1]:  # still stored: a verdict elsewhere took it out of this filter
            what = f"List {keep} left this filter ({self._cause(keep, where[3])}): {shown}"
        elif moved is not None:
            what = f"List {keep} was replaced (an import or a re-extraction): its new list {where[2]} is on screen now"
        else:
            what = f"List {keep} is gone (an import, a re-extraction or an edited study): {shown}"
        self.notify(visible_line(f"{what}; read it before judging it." if pages else f"{what}."))
        self._arrived = {"id": ids[position], "what": what} if pages else None
        return moved

    def _cause(self, list_id: int, trail: list) -> str:
        read = self._read
        if read is None or read["key"][0] != list_id:
            return "changed elsewhere"
        return change_cause(read["trail"], trail, self.blind)
