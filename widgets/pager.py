"""What the review screens share: pages read from the store, a position, a filter that
cycles, and decisions written back, all off the UI thread.

Reading and writing run in thread workers and their results come back as messages,
so a store busy with a headless run (SQLite waits up to its busy timeout for a
lock) never freezes the keyboard: keys keep working, the page follows when the
store answers. A worker only reads and writes the store: every attribute of the
screen changes on the UI thread, in the handlers of those messages. Subclasses say
how to fetch the pages, how to name a page (to stay on it after a reload) and how
to show the current one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import work
from textual.message import Message
from textual.screen import Screen

from workbench.store.db import opened, reading
from workbench.store.errors import UserFacingError


class PagerScreen(Screen):
    FILTERS: tuple[str, ...] = ("all",)

    @dataclass
    class Loaded(Message):
        """The pages arrived from the store and are shown (tests and subclasses may wait on it)."""

        count: int

    @dataclass
    class PagesRead(Message, bubble=False):
        """A worker read the pages (and what the screen shows with them) from the store."""

        pages: list[Any]
        more: Any
        keep: Any
        advance: int
        serial: int  # which load read them: only the latest one's are shown

    @dataclass
    class ChangeStored(Message, bubble=False):
        """A worker stored a decision; `then` says what the screen does next."""

        then: Callable[[Any], None]
        result: Any

    @dataclass
    class ChangeRefused(Message, bubble=False):
        """The store refused a decision (a lock held too long, a rule it breaks)."""

        title: str
        reason: str

    def __init__(self) -> None:
        super().__init__()
        self.filter = self.FILTERS[0]
        self.pages: list[Any] = []
        self.position = 0
        self.loads = 0  # finished loads, for anyone waiting on the store
        # A decision is being stored (and the pages read again): a second key press now
        # would judge the same page twice, so decisions wait until it is done.
        self.busy = False
        self._loading = False
        self._writing = False  # a decision is being stored (a load ending meanwhile leaves `busy` set)
        self._serial = 0  # loads begun; a load overtaken by a later one shows nothing

    # -- what a subclass says --------------------------------------------------------

    def fetch(self, conn: sqlite3.Connection) -> tuple[list[Any], Any]:
        """The pages for the current filter, and whatever else the screen shows with them
        (counts, the values a filter cycles through), for `adopt`. Runs in a worker
        thread: it reads the store and sets nothing on the screen."""
        raise NotImplementedError

    def adopt(self, more: Any) -> None:
        """Take what `fetch` read besides the pages (on the UI thread, before the pages show)."""

    def page_key(self, page: Any) -> Any:
        """What names a page across reloads."""
        return page

    def show(self) -> None:
        """Show the current page (on the UI thread)."""
        raise NotImplementedError

    def gone(self, keep: Any, pages: list[Any]) -> int | None:
        """The position to show when the page named `keep` is no longer among `pages`
        (None: the same position, the next page on)."""
        return None

    # -- shared behaviour ------------------------------------------------------------

    @property
    def page(self) -> Any | None:
        return self.pages[self.position] if self.pages else None

    def load(self, keep: Any = None, advance: int = 0) -> None:
        """Read the pages again, staying on the page named `keep` when it is still there
        (then `advance` pages on: after a verdict in a filter that keeps reviewed pages)."""
        self._loading = True
        self._serial += 1
        self._load(keep, advance, self._serial)

    @work(thread=True, exclusive=True, group="pager-load", description="Reading the store")
    def _load(self, keep: Any, advance: int, serial: int) -> None:
        with reading(self.app.db_path) as conn:
            pages, more = self.fetch(conn)
        self.post_message(self.PagesRead(pages, more, keep, advance, serial))

    def on_pager_screen_pages_read(self, message: PagesRead) -> None:
        if message.serial != self._serial:  # a later load is under way: its pages are the ones to show
            return
        self.adopt(message.more)
        self._loaded(message.pages, message.keep, message.advance)

    def _loaded(self, pages: list[Any], keep: Any, advance: int = 0) -> None:
        keys = [self.page_key(p) for p in pages]
        if keep is not None and keep in keys:
            self.position = keys.index(keep)
        elif keep is not None and (moved := self.gone(keep, pages)) is not None:
            self.position = moved
        self.pages = pages
        self.position = max(0, min(self.position + advance, len(pages) - 1))
        self.loads += 1
        self._loading = False
        self.busy = self._writing
        self.show()
        self.post_message(self.Loaded(len(pages)))

    def write(
        self, change: Callable[[sqlite3.Connection], Any], then: Callable[[Any], None], failed: str = "Not saved"
    ) -> bool:
        """Run `change(conn)` in a worker; `then(result)` on the UI thread when it is
        stored, or the error shown when the store refuses it. False (and nothing
        done) while the previous decision is still being stored."""
        if self.busy:
            return False
        self.busy = self._writing = True
        self._write(change, then, failed)
        return True

    @work(thread=True, group="pager-write", description="Saving")
    def _write(self, change, then, failed: str) -> None:
        try:
            with opened(self.app.db_path) as conn:
                result = change(conn)
        except (UserFacingError, ValueError, sqlite3.Error) as exc:
            self.post_message(self.ChangeRefused(failed, str(exc)))
            return
        self.post_message(self.ChangeStored(then, result))

    def on_pager_screen_change_stored(self, message: ChangeStored) -> None:
        self._writing = False
        message.then(message.result)
        if not self._loading:  # `then` read nothing again: the next decision may come
            self.busy = False

    def on_pager_screen_change_refused(self, message: ChangeRefused) -> None:
        self.busy = self._writing = False
        self.app.show_error(message.title, message.reason)

    def action_move(self, step: int) -> None:
        if self.pages:
            self.position = max(0, min(len(self.pages) - 1, self.position + step))
            self.show()

    def action_next_filter(self) -> None:
        self.filter = self.FILTERS[(self.FILTERS.index(self.filter) + 1) % len(self.FILTERS)]
        self.position = 0
        self.load()
