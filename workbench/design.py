"""What any method's Design screen shares: a study file's method, a model checked.

A method's own design operations live in its package (ChoiceEval's questions and file:
`workbench.methods.choice.design`); the app finds its screen by the method's hooks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path


def check_model(spec) -> str:
    from workbench.doctor import check_engine

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
