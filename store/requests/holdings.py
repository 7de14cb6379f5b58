"""What a store holds beside requests: lists imported from elsewhere (`workbench import
mentions`, `import rankings`), which `workbench status` names when nothing was asked here."""

from __future__ import annotations

import sqlite3

from workbench.store.current_lists import counts_now


def imported_lists(conn: sqlite3.Connection, study_id: int | None = None) -> list[tuple[str, str, int]]:
    """(study, kind of list, how many) for each study holding lists with no request behind
    them, in study order: "list" for ranked entity lists, "ranking" for cold-start rankings."""
    where = "" if study_id is None else " AND s.id = ?"
    args = () if study_id is None else (study_id,)
    rows = conn.execute(
        "SELECT s.name, 'list', count(*) FROM mention_lists l JOIN studies s ON s.id = l.study_id "
        f"WHERE l.response_key IS NULL AND {counts_now('l')}{where} GROUP BY s.id ORDER BY s.name",
        args,
    ).fetchall()
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rankings'").fetchone():
        rows += conn.execute(
            "SELECT s.name, 'ranking', count(*) FROM (SELECT DISTINCT study_id, model, seed, persona_category, "
            "persona FROM rankings WHERE request_key IS NULL) r JOIN studies s ON s.id = r.study_id "
            f"WHERE 1{where} GROUP BY s.id ORDER BY s.name",
            args,
        ).fetchall()
    return sorted(rows)
