"""Cold-start's imports (rankings, raw responses against a catalog) and export (rankings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.methods.kinds import ExportKind, ImportKind, Option, missing
from workbench.text.words import plural


def _rankings(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.files.csv_input import ImportError_
    from workbench.methods.coldstart.catalog import load_catalog
    from workbench.methods.coldstart.data import import_rankings

    study, catalog = options["study"], None
    if options.get("catalog"):  # read before anything is stored: a bad catalog leaves nothing
        try:
            catalog = load_catalog(Path(options["catalog"]))
        except (OSError, ValueError) as exc:
            raise ImportError_(str(exc)) from None  # names the file
    got = import_rankings(conn, study, path, catalog, progress=options.get("progress"))  # one transaction
    with_catalog = f" with its catalog of {plural(len(catalog.items), 'item')}." if catalog else "."
    ranked = f"{plural(got['rows'], 'ranked item')} in {plural(got['lists'], 'list')}"
    return [f"Imported {ranked} into study {study!r}{with_catalog}"]


def _responses(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.methods.coldstart.data import import_responses

    if not options.get("catalog"):
        raise missing("responses", "--catalog CATALOG (JSON list or CSV)")
    study = options["study"]
    got = import_responses(conn, study, path, Path(options["catalog"]), progress=options.get("progress"))
    return [
        f"Parsed {plural(got['lists'], 'response')} into {plural(got['rows'], 'line')}: "
        f"{plural(got['out_of_catalog'], 'item')} out of the catalog, {plural(got['repeats'], 'repeat')} and "
        f"{plural(got['not_items'], 'line')} naming no item (all kept and counted apart) in study {study!r}."
    ]


def _ranking_records(conn, study):
    from workbench.methods.coldstart.data import RANKING_FIELDS, ranking_records

    return ranking_records(conn, study), RANKING_FIELDS


CATALOG = Option(
    "--catalog",
    "responses, rankings: the catalog (JSON list or CSV with attribute columns); "
    "with rankings it enables mean catalog rank and group shares",
)

IMPORTS = (
    ImportKind(
        "rankings",
        "cold-start top-k lists: model,seed,persona_category,persona,rank,item (persona\n"
        "`neutral` for the baseline); metrics gives IOU, SERP-MS and PRAG divergences",
        _rankings,
        (CATALOG,),
    ),
    ImportKind(
        "responses",
        "raw cold-start answers model,seed,persona_category,persona,response, parsed\n"
        "against --catalog (exact, then fuzzy); out-of-catalog items are kept and counted",
        _responses,
        (CATALOG,),
    ),
)

EXPORTS = (ExportKind("rankings", "rankings (cold-start lists)", _ranking_records),)
