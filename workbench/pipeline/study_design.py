"""What any method's Design screen shares: a study file's method, a model checked, the
questions a database holds (the screen opened without a study file).

A method's own design operations live in its package (ChoiceEval's questions and file:
`workbench.methods.choice.design`); the app finds its screen by the method's hooks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any


def check_model(spec) -> str:
    from workbench.pipeline.doctor import check_engine

    return asyncio.run(check_engine(spec))


def study_method(path: str | Path) -> str | None:
    """The `method` of a study file, or None when it cannot be read (the screen then
    shows the full error when it loads the study)."""
    import tomllib

    try:
        method = tomllib.loads(Path(path).read_text("utf-8")).get("method")
    except (OSError, ValueError):
        return None
    return method if isinstance(method, str) else None


def stored_questions(db_path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """Every study's questions the database holds, by study (those with any), for the Design
    screen opened without a study file: read, never changed."""
    from workbench.store.db import reading
    from workbench.store.reads import shared as reads
    from workbench.store.requests import studies

    with reading(db_path) as conn:
        found = {name: reads.question_rows(conn, sid) for sid, name in sorted(studies.study_names_by_id(conn).items())}
    return {name: rows for name, rows in found.items() if rows}


def stored_models(db_path: str | Path) -> list[str]:
    """The specs of the models the database holds, in the order they came (read-only)."""
    from workbench.store.db import reading
    from workbench.store.requests import studies

    with reading(db_path) as conn:
        return studies.model_specs(conn)
