"""What a method brings to `workbench import` and `workbench export`.

A method lists its `ImportKind`s and `ExportKind`s; the command line builds its choices,
its options and its help from them and never names a kind itself. The app's import and
export dialogs offer the same kinds. Nothing here knows a method.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.files.csv_input import ImportError_

Records = tuple[list[dict[str, Any]], list[str]]  # the rows, and the columns of a CSV in order


@dataclass(frozen=True)
class Option:
    """A command-line option an import kind reads, besides the file, --db and --study.
    Kinds of several methods may share one (the first declaration gives its help)."""

    flag: str  # "--catalog"
    help: str
    metavar: str | None = None
    flag_only: bool = False  # a switch (store_true)
    repeat: bool = False  # may be given several times (a list)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class ImportKind:
    """`workbench import NAME FILE`: reads FILE into the store, in one transaction.

    `run(conn, path, options)` gets the options by their `dest` (`study`, `catalog`, ...;
    absent ones are None) and returns the lines to tell the user; it raises `ImportError_`
    (or `missing`'s) with a message naming the file, line and key of anything refused."""

    name: str
    describe: str  # the lines under `import --help` (wrapped by hand, indented by the CLI)
    run: Callable[[sqlite3.Connection, Path, dict[str, Any]], list[str]]
    options: tuple[Option, ...] = ()
    needs_study: bool = True  # most imports go into a study: --study NAME is then required
    creates_store: bool = True  # False: only into a database that exists (decisions need its lists)


@dataclass(frozen=True)
class ExportKind:
    """`workbench export --what NAME`: records and their CSV columns, for one study or all."""

    name: str
    describe: str  # a phrase for `export --help`: "mentions (ranked lists)"
    records: Callable[[sqlite3.Connection, str | None], Records]


@dataclass
class Kinds:
    """Import and export kinds by name, in the order the methods list them."""

    imports: dict[str, ImportKind] = field(default_factory=dict)
    exports: dict[str, ExportKind] = field(default_factory=dict)

    def options(self) -> list[Option]:
        """Every import option once, in the order kinds declare them."""
        seen: dict[str, Option] = {}
        for kind in self.imports.values():
            for option in kind.options:
                seen.setdefault(option.flag, option)
        return list(seen.values())


def missing(what: str, *flags: str) -> ImportError_:
    """The refusal of an import run without an option it needs: "import scores needs --study NAME"."""
    return ImportError_(f"import {what} needs {' and '.join(flags)}")
