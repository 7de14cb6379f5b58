"""What every command shares: the user-error type, consoles, tables, opening the store, arguments."""

from __future__ import annotations

import argparse
import os

from rich.console import Console

from workbench.display.rich_tables import new_table  # noqa: F401  (re-exported for the commands)
from workbench.errors import UserError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.host.locations import DEFAULT_DB
from workbench.store.db import connect


def make_console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, no_color=bool(os.environ.get("NO_COLOR")))


def open_store(path: str, create: bool = True):
    """The store; `create=False` for commands that only read (a wrong path is an
    error, never a new empty database; a StoreError is a UserFacingError main() prints)."""
    return connect(path, create)


def study_id_of(conn, name: str | None) -> int | None:
    if name is None:
        return None
    from workbench.store.requests import studies

    found = studies.study_id(conn, name)
    if found is None:
        known = studies.study_names(conn)
        raise UserError(f"no study named {name!r} in this database (known: {', '.join(known) or 'none'})")
    return found


def the_study(conn, name: str | None, flag: str = "--study") -> str:
    """The study a command is about: the one named (refused if the store lacks it) or, with
    none named, the store's only study; a store of several asks for one by name."""
    from workbench.store.requests import studies

    if name is not None:
        study_id_of(conn, name)
        return name
    known = studies.study_names(conn)
    if len(known) == 1:
        return known[0]
    if not known:
        raise UserError("this database holds no study yet (`workbench run STUDY.toml` or an import makes one)")
    raise UserError(f"this database holds {len(known)} studies: name one with {flag} ({', '.join(known)})")


def bounded_int(low: int, high: int | None):
    """An argparse type: a whole number in [low, high], refused with the range."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            limits = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"expected a number {limits}, got {value}")
        return value

    return parse


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=DEFAULT_DB, help=f"SQLite database (default: ./{DEFAULT_DB})")
