"""A study file of any registered method: read, its `method` checked against the registry,
loaded by that method (`Method.load`)."""

from __future__ import annotations

from pathlib import Path

from workbench.studies.spec import Where, read_toml


def load_study(path: str | Path):
    """Load and validate a study file of any registered method."""
    from workbench import methods
    from workbench.methods import registry

    path = Path(path)
    data = read_toml(path)
    where = Where(str(path))
    known = methods.names()
    method = data.get("method")
    if method is None:
        raise where.child("method").error(f"missing; expected one of: {', '.join(known)}")
    if isinstance(method, str) and method not in known and method in registry.REFUSED:
        raise where.child("method").error(
            f"method {method!r} is installed but could not be loaded: {registry.REFUSED[method]}"
        )
    if not isinstance(method, str) or method not in known:
        raise where.child("method").error(f"expected one of: {', '.join(known)}, got {method!r:.40}")
    return methods.get(method).load(data, path)
