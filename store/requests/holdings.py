"""What a store holds beside requests: lists imported from elsewhere (`workbench import
mentions`; a method's own, as cold-start's `import rankings`, through its `held_lists`), which
`workbench status` names when nothing was asked here."""

from __future__ import annotations

import sqlite3

from workbench.store.current_lists import counts_now


def imported_lists(conn: sqlite3.Connection, study_id: int | None = None) -> list[tuple[str, str, int]]:
    """(study, "list", how many) for each study holding ranked entity lists with no request
    behind them, in study order (a method's own imported lists: its `held_lists`)."""
    where = "" if study_id is None else " AND s.id = ?"
    args = () if study_id is None else (study_id,)
    rows = conn.execute(
        "SELECT s.name, 'list', count(*) FROM mention_lists l JOIN studies s ON s.id = l.study_id "
        f"WHERE l.response_key IS NULL AND {counts_now('l')}{where} GROUP BY s.id ORDER BY s.name",
        args,
    ).fetchall()
    return rows
