"""The steps of a report's recipe besides running the study: what a person decided and the
entities' regions. A new database gets neither from the study file: the regions come from
`workbench import entities` (the gazetteer's file when it gives them), the verdicts, merges
and region decisions from the decisions export of this database (`import decisions`), else
its log-odds are n/a and its lists read as the machine extracted them."""

from __future__ import annotations

import csv
import shlex
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from workbench.store.entities.regions import DEFAULT_REGIONS
from workbench.store.reads.recipe import has_decisions, regions_named

DECISIONS_FILE = "decisions.json"
REGIONS_PLACEHOLDER = "REGIONS.csv"


@dataclass
class Carried:
    decisions: bool  # a verdict or an entity decision to replay
    regions_file: str | None  # what `import entities` reads (None: the study's entities have no region)
    new_regions: bool  # a region beyond the defaults: the import needs --new-region


def carried(conn: sqlite3.Connection, study_id: int, spec: dict) -> Carried:
    regions = regions_named(conn, study_id)
    return Carried(
        decisions=has_decisions(conn, study_id),
        regions_file=(_gazetteer_with_regions(spec) or REGIONS_PLACEHOLDER) if regions else None,
        new_regions=any(r not in DEFAULT_REGIONS for r in regions),
    )


def _gazetteer_with_regions(spec: dict) -> str | None:
    """The study's gazetteer file when its header has a `region` column (it names the regions)."""
    extraction = spec.get("extraction") or {}
    path = extraction.get("entities") if extraction.get("method") == "gazetteer" else None
    if not path or not Path(path).is_file():
        return None
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return path if "region" in {h.strip().lower() for h in header} else None


def export_commands(database: str, carry: Carried) -> list[str]:
    """What to write from this database before making the new one."""
    if not carry.decisions:
        return []
    return [
        shlex.join(
            ["workbench", "export", "--db", database, "--what", "decisions", "--format", "json", "-o", DECISIONS_FILE]
        )
    ]


def import_commands(database: str, carry: Carried) -> list[str]:
    """After the run: the regions, then the decisions (a merge or region decision replays onto them)."""
    out = []
    if carry.regions_file:
        words = ["workbench", "import", "entities", carry.regions_file, "--db", database]
        out.append(shlex.join(words + (["--new-region"] if carry.new_regions else [])))
    if carry.decisions:
        out.append(shlex.join(["workbench", "import", "decisions", DECISIONS_FILE, "--db", database]))
    return out


def carried_note(carry: Carried) -> str:
    """Why the imports are there, in the recipe's words."""
    parts = []
    if carry.regions_file == REGIONS_PLACEHOLDER:
        parts.append(
            f"`{REGIONS_PLACEHOLDER}` is the file the entities' regions were imported from (`workbench import "
            "entities`); without it every log-odds is n/a"
        )
    elif carry.regions_file:
        parts.append("the regions come from the study's gazetteer file; without them every log-odds is n/a")
    if carry.decisions:
        parts.append(
            "the decisions file carries every verdict, merge and region decision with its who, when and why; "
            "without it the lists read as the machine extracted them"
        )
    return ("What the imports bring a new database: " + "; ".join(parts) + ".") if parts else ""
