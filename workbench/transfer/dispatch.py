"""Imports and exports by kind, for the command line and the app alike.

The kinds come from the methods (`methods.kinds()`) and the core (`export_kinds`); this
module adds what both front ends promise: an import is one transaction and a refused one
leaves nothing (not even the database it would have created), an export file appears whole
or not at all and never replaces a database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench import methods
from workbench.errors import TransferError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.files.safe_output import OutputRefused, atomic_text_file
from workbench.methods.kinds import Kinds
from workbench.pipeline import run_records as exports
from workbench.store.db import connect, new_store_kept_only_if_used, snapshot
from workbench.store.requests import studies
from workbench.transfer.export_kinds import export_kinds
from workbench.transfer.export_markdown import markdown_export

# A UTF-8 byte-order mark: spreadsheets (Excel above all) read a CSV without one in the
# system's legacy code page, so "María" opens as "MarÃ­a".
EXCEL_MARK = "\ufeff"


def kinds() -> Kinds:
    """Every import and export kind: the methods' (`methods.kinds()`) and the core's own
    imports after them (a core name wins)."""
    from workbench.transfer.decision_import import IMPORTS

    found = methods.kinds()
    for kind in IMPORTS:
        found.imports.pop(kind.name, None)
        found.imports[kind.name] = kind
    return found


def import_kind(name: str):
    found = kinds().imports
    if name not in found:
        raise TransferError(f"no import of {name!r} (known: {', '.join(found)})")
    return found[name]


def import_file(db: str | Path, kind_name: str, path: str | Path, options: dict[str, Any]) -> list[str]:
    """Import `path` as `kind_name` into the database; the lines to tell the user.
    `options` by the kind's option names (`study`, `catalog`, ...)."""
    kind = import_kind(kind_name)
    if kind.needs_study and not (options.get("study") or "").strip():
        options = {**options, "study": _the_only_study(db, kind_name)}
    # An import that fails leaves no trace: not even the database it would have created.
    with new_store_kept_only_if_used(db):
        conn = connect(str(db), kind.creates_store)
        try:
            return kind.run(conn, Path(path), options)
        finally:
            conn.close()


def _the_only_study(db: str | Path, kind_name: str) -> str:
    """The study an import names none of: the database's only one; else it asks for a name."""
    known = []
    if Path(db).is_file():
        conn = connect(str(db), False)
        try:
            known = studies.study_names(conn)
        finally:
            conn.close()
    if len(known) == 1:
        return known[0]
    held = f" (this database holds {len(known)} studies: {', '.join(known)})" if known else " (a new study's name)"
    raise TransferError(f"import {kind_name} needs --study NAME{held}")


def export_records(conn, kind_name: str, study: str | None = None, convention: str = "paper"):
    """(records, CSV columns) of one export kind."""
    kinds = export_kinds(convention)
    if kind_name not in kinds:
        raise TransferError(f"no export of {kind_name!r} (known: {', '.join(kinds)})")
    return kinds[kind_name].records(conn, study)


def markdown_document(conn, kind_name: str, study: str | None, convention: str = "paper") -> tuple[str, int]:
    """One export kind as Markdown for people, and how many records it holds. The metrics are
    computed once, per method (their sections need them so), never a second time as records."""
    by_method = None
    if kind_name == "metrics":
        by_method = methods.metric_records_by_method(conn, study, convention)
        records, fields = [r for found in by_method.values() for r in found], []
    else:
        records, fields = export_records(conn, kind_name, study, convention)
        records = list(records)
    filters = {"filters": f"study {study}" if study else "none (every study)", "convention": convention}
    return markdown_export(conn, kind_name, records, fields, study, filters, by_method), len(records)


def export_file(
    db: str | Path,
    kind_name: str,
    output: str | Path,
    *,
    study: str | None = None,
    fmt: str = "csv",
    convention: str = "paper",
    raw: bool = False,
    excel: bool = False,
    conn=None,
) -> tuple[Path, int]:
    """Write one export kind to `output` (whole or not at all); the file written and how many records.
    The database is opened (never created) unless `conn` is given."""
    if conn is None:
        conn = connect(str(db), False)
    with snapshot(conn):  # every record from one commit's store, while imports and runs write
        return _write_export(conn, db, kind_name, output, study, fmt, convention, raw, excel)


def _write_export(conn, db, kind_name, output, study, fmt, convention, raw, excel) -> tuple[Path, int]:
    if study is not None and studies.study_id(conn, study) is None:
        raise TransferError(
            f"no study named {study!r} in this database (known: {', '.join(studies.study_names(conn)) or 'none'})"
        )
    if fmt == "md":
        text, count = markdown_document(conn, kind_name, study, convention)
    else:
        records, fields = export_records(conn, kind_name, study, convention)
    try:
        with atomic_text_file(output, db) as out:
            if fmt == "md":
                out.write(text)
            else:
                if excel and fmt == "csv":
                    out.write(EXCEL_MARK)
                count = exports.write_records(records, fmt, fields, out, raw=raw)
    except OutputRefused as exc:
        raise TransferError(str(exc)) from None
    except OSError as exc:
        raise TransferError(f"{output}: could not be written ({exc.strerror or exc}); nothing was changed") from None
    return Path(output).expanduser().resolve(), count
