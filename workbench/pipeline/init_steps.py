"""What `workbench init` tells a user to do next: edit the study, run it, and where the study
needs regions (a data file beside it with a `region` column: the demo's brands, say), import
them, or every log-odds of the run is n/a; where it needs reference shares (the identity
example's), import those, or every mean share is n/a."""

from __future__ import annotations

import csv
import shlex
from collections.abc import Iterable
from pathlib import Path


def _header(path: Path) -> set[str]:
    """The column names of a CSV's header (none for another file or one unreadable)."""
    if path.suffix.lower() != ".csv":
        return set()
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return set()
    return {h.strip().lower() for h in header}


def has_regions(path: Path) -> bool:
    """A CSV whose header names a `region` column."""
    return "region" in _header(path)


def has_reference_shares(path: Path) -> bool:
    """A CSV of identity reference shares: item, group, share."""
    return {"item", "group", "share"} <= _header(path)


def _imports_of(method: str | None) -> set[str] | None:
    """The import kinds the method offers (None: any, the method unknown)."""
    from workbench.methods import registry

    if method is None or method not in registry.names():
        return None
    return {kind.name for kind in getattr(registry.get(method), "import_kinds", ())}


def next_steps(target: Path, files: Iterable[Path], db: str = "audit.db", method: str | None = None) -> list[str]:
    study = shlex.quote(str(target))
    steps = [f"Edit {target} (every key is commented), then: workbench run {study} --db {db}"]
    offered = _imports_of(method)
    for path in files:
        # Regions are imported where the method takes an entities file (ChoiceEval's log-odds
        # compare them); the entity example's countries have a region column too, read from
        # the study's own file: nothing to import.
        if has_regions(path) and (offered is None or "entities" in offered):
            steps.append(
                f"and for the regions its log-odds compare (without them every log-odds is n/a): "
                f"workbench import entities {shlex.quote(str(path))} --db {db}"
            )
        if has_reference_shares(path):
            steps.append(
                f"and the reference shares its mean share reads (without them every mean share is n/a): "
                f"workbench import references {shlex.quote(str(path))} --db {db} --study {shlex.quote(target.stem)}"
            )
    return steps
