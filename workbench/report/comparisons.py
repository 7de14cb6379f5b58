"""The report's paired model comparisons: a ChoiceEval study with two or more models gets
one table per model against the first (in name order), as `workbench compare` computes it."""

from __future__ import annotations

import sqlite3

from workbench.report.document import Paragraph, Section, TableBlock


def comparison_sections(conn: sqlite3.Connection, study: str) -> list[Section]:
    """No section for a study without ranked lists of two models or more."""
    from workbench.compare import compare_study, study_models
    from workbench.compare_table import comparison_note, comparison_table

    models = study_models(conn, study)  # ranked lists: a ChoiceEval study's
    if len(models) < 2:
        return []
    first, others = models[0], models[1:]
    blocks: list = [
        Paragraph(
            "Each other model (B) against the first in name order (A), over the questions both answered. "
            "Run `workbench compare` for any other pair."
        )
    ]
    note = ""
    for other in others:
        records = compare_study(conn, study, first, other)
        header, rows = comparison_table(records)
        blocks.append(TableBlock(f"{other} (B) - {first} (A)", header, rows))
        note = comparison_note(records)
    blocks.append(Paragraph(note))
    return [Section("model-comparisons", "Paired model comparisons", blocks, level=3)]
