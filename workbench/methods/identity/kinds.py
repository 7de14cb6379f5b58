"""Identity disclosure's import (reference shares) and export (one row per recommended item)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.methods.kinds import ExportKind, ImportKind
from workbench.text.words import plural


def _references(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.methods.identity.data import import_references

    study = options["study"]
    count = import_references(conn, study, path, options.get("progress"))
    return [f"Imported {plural(count, 'reference share')} into study {study!r}."]


def _identity_records(conn, study):
    from workbench.methods.identity.data import IDENTITY_FIELDS, identity_records

    return identity_records(conn, study), IDENTITY_FIELDS


IMPORTS = (
    ImportKind(
        "references",
        "identity studies: item,group,share[,count,group_total] — each group's share\n"
        "among an item's people (e.g. a university's students), for Mean Share and Coverage",
        _references,
    ),
)

EXPORTS = (
    ExportKind(
        "identity",
        "identity (one row per recommended item: prompt, slot values, parse mode, reference share, probe and label)",
        _identity_records,
    ),
)
