"""The Metrics screen's export (its `e` key): the tables on screen as Markdown headed by what
they are, with every record as CSV and JSON beside it. Kept out of the screen so the files
written are the same whether a test or a person asks, and so the screen stays a view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench import methods
from workbench.files.safe_output import atomic_text_file, check_output_path
from workbench.metrics.records import as_rows, value_of
from workbench.pipeline.run_records import write_records
from workbench.report import markdown as md
from workbench.report.document import Paragraph, Report, Section, TableBlock
from workbench.store.db import connect
from workbench.transfer.export_markdown import header


def export_files(target: str) -> list[Path]:
    """The three files a target names: `x` or `x.md` -> x.md, x.csv, x.json."""
    base = Path(target.strip()).expanduser()
    base = base.with_suffix("") if base.suffix.lower() == ".md" else base
    return [Path(f"{base}.md"), Path(f"{base}.csv"), Path(f"{base}.json")]


def write_on_screen(
    db_path: str | Path,
    target: str,
    records: list[Any],
    tables: list[TableBlock],
    filters: dict[str, str],
    of: int | None = None,
) -> list[Path]:
    """Write the export and return its files: `records` are those the filters select, `of` how
    many the screen holds in all (the header says which part was written). Every path is
    checked before any is written (all three or none: `OutputRefused`), and each is written
    whole or not at all (OSError)."""
    db = Path(db_path)
    files = export_files(target)
    for path in files:
        check_output_path(path, db)
    studies = sorted({str(value_of(r, "study")) for r in records if value_of(r, "study")})
    conn = connect(str(db), False)
    try:
        head = header(conn, "metrics", records, studies[0] if len(studies) == 1 else None, filters)
    finally:
        conn.close()
    head.blocks.append(Paragraph(_covers(len(records), of, filters)))
    document = Report("Metrics", "workbench: the tables on screen", [head, Section("tables", "Tables", tables)])
    with atomic_text_file(files[0], db) as out:
        out.write(md.render(document))
    rows = as_rows(records)  # flat only as the files are written
    with atomic_text_file(files[1], db) as out:
        write_records(rows, "csv", methods.metric_fields(rows), out)
    with atomic_text_file(files[2], db) as out:
        out.write(json.dumps(rows, indent=1))
    return files


def _covers(n: int, of: int | None, filters: dict[str, str]) -> str:
    """What the export holds of the screen's numbers: the tables and the records follow the
    filters, and the sentence says so (a filtered export must not read as the whole study)."""
    records = f"{n} records" if of is None or of == n else f"{n} of the {of} records"
    where = "as the filters above chose them" if filters else "with no filter"  # their values: in the facts
    return (
        f"The tables below and the {records} in the .csv and .json beside this file are those on screen, "
        f"{where}; `workbench metrics --format json` gives every record."
    )
