"""What `workbench init` tells a user to do next: edit the study, run it, and where the study
needs regions (a data file beside it with a `region` column: the demo's brands, say), import
them, or every log-odds of the run is n/a."""

from __future__ import annotations

import csv
import shlex
from collections.abc import Iterable
from pathlib import Path


def has_regions(path: Path) -> bool:
    """A CSV whose header names a `region` column."""
    if path.suffix.lower() != ".csv":
        return False
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return "region" in {h.strip().lower() for h in header}


def next_steps(target: Path, files: Iterable[Path], db: str = "audit.db") -> list[str]:
    study = shlex.quote(str(target))
    steps = [f"Edit {target} (every key is commented), then: workbench run {study} --db {db}"]
    for path in files:
        if has_regions(path):
            steps.append(
                f"and for the regions its log-odds compare (without them every log-odds is n/a): "
                f"workbench import entities {shlex.quote(str(path))} --db {db}"
            )
    return steps
