"""What every surface asks of a method instead of naming one.

Each hook has a default on the method base (workbench/methods/base.py); a method that is
not a MethodBase is read with the same defaults. The responses export's columns, the
report's parse rates, the app's help, the Review screen's extra views, what an empty
Metrics table waits for and the help lines that name the methods all come from here, so
that a new method shows on every surface without an edit outside its package.
docs/writing-a-method.md documents each hook.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

from workbench.methods import registry
from workbench.methods.base import hook, part, title
from workbench.methods.hook_types import (
    APP_KEYS,
    METRICS_KEYS,
    REVIEW_KEYS,
    MethodConflict,
    ReviewView,
    TemplateEditing,
    screen_class,
)

__all__ = [
    "APP_KEYS",
    "METRICS_KEYS",
    "REVIEW_KEYS",
    "MethodConflict",
    "ReviewView",
    "TemplateEditing",
    "hook",
    "part",
    "screen_class",
    "title",
]


def _all() -> list[Any]:
    return [registry.get(name) for name in registry.names()]


def offered(name: str) -> Any:
    """The part named `name` ("probe labels", "catalog matches") of the first installed method
    that offers it (the method base's `parts`), or None when none does."""
    return next((found for m in _all() if (found := hook(m, "parts").get(name)) is not None), None)


def methods_line() -> str:
    """The methods as help names them: "choice (ChoiceEval), coldstart (catalog re-ranking), ..."."""
    return ", ".join(f"{m.name} ({title(m)})" if title(m) != m.name else m.name for m in _all())


def export_fields() -> list[str]:
    """The columns the responses export takes from requests' `meta`: every method's, in order."""
    return list(dict.fromkeys(field for m in _all() for field in hook(m, "export_fields")))


def parse_metrics(method_name: str) -> dict[str, str]:
    """Metric name -> the measure the report names ("parsed", "valid JSON") for a method's
    studies (a method not installed here: none)."""
    return dict(hook(registry.get(method_name), "parse_metrics")) if method_name in registry.names() else {}


def waits_for(method_name: str) -> str:
    """What an empty table of the method's waits for (a method not installed here: the default)."""
    return hook(registry.get(method_name) if method_name in registry.names() else None, "waits_for")


def review_views(methods: Iterable[str] | None = None) -> list[ReviewView]:
    """The Review screen's extra views, of every method (or of the `methods` named), in order."""
    wanted = None if methods is None else set(methods)
    return [view for m in _all() if wanted is None or m.name in wanted for view in hook(m, "review_views")]


def help_sections(methods: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Every method's (or the `methods` named) lines for the app's help, by the screen they
    belong to, in order."""
    wanted = None if methods is None else set(methods)
    found: dict[str, list[str]] = {}
    for m in _all():
        if wanted is not None and m.name not in wanted:
            continue
        for section, text in hook(m, "help_sections").items():
            found.setdefault(section, []).append(text.rstrip("\n"))
    return found


def no_numbers_lines(conn: Any, study: str | None, db: str | None = None) -> list[str]:
    """Why `workbench metrics` (or the Metrics screen) has nothing to show, per study (or for
    the one asked), with what to do: nothing asked yet, a run under way, or an empty store."""
    from workbench.store.reads.report_asked import study_progress

    rows = study_progress(conn, study)
    if not rows:
        return [
            "No studies yet: run a study file (`workbench run STUDY.toml --db DB`) or import data "
            "(`workbench import KIND FILE --db DB --study NAME`)."
        ]
    return [_study_line(*row, db=db) for row in rows]


def _study_line(name: str, method: str, source: str | None, asked: int, answered: int, db: str | None = None) -> str:
    # The commands name the database (`db`): without --db they would run into ./workbench.db.
    on = f" --db {shlex.quote(str(db))}" if db else ""
    run = f"`workbench run {shlex.quote(source)}{on}`" if source else f"`workbench run STUDY.toml{on}`"
    head = f"{name} ({method}): no numbers yet"
    if method not in registry.names():  # its numbers come from a method this installation lacks
        why = registry.REFUSED.get(method)
        installed = f"is installed but could not be loaded ({why})" if why else "is not installed here"
        return f"{head}: its method {method!r} {installed}; install the package that provides it to read them."
    if not asked:
        return f"{head}: nothing asked or imported. Run it ({run}) or import its data (`workbench import`)."
    waits = waits_for(method)  # the method's hook: where its numbers come from once answers are in
    if answered < asked:
        return f"{head}: {answered} of {asked} requests answered, and {waits}. {run} resumes the run."
    return (
        f"{head}: all {asked} requests are answered, but nothing could be scored ({waits}). "
        f"Finish the run ({run} resumes its last stages) and read the answers (`workbench export{on} --what responses`)."
    )
