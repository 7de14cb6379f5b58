"""Audit methods as plugins: one registry, one small protocol.

A method says how its study file reads (`load`), what its first-stage requests
are (`plan`), what else a run does once they are answered (`after_answers`:
extraction, probes, judging, parsing, scoring), and which extra model it needs
(`helper_model`: an extractor or a judge). The pipeline (`workbench.pipeline.audit`)
walks these hooks without knowing any method's name.

The four built-in methods register themselves here; a third-party package adds
one through the entry-point group `workbench.methods`:

    [project.entry-points."workbench.methods"]
    mymethod = "my_package.method:MyMethod"

whose value is a class (or instance) following `Method`. Two optional hooks give
it a section of its own on the Metrics screen: `metric_filters` (a tuple of
`metric_views.Filter`) and `metric_panels(records, choices)` (a list of
`metric_views.Panel`); without them its records show as one table. Its records may be
frozen dataclasses of its own (`workbench.metrics.records`: flattened by `as_rows` only
where JSON, CSV or Markdown is written) or plain dicts. `import_kinds` and
`export_kinds` (tuples of `kinds.ImportKind` / `kinds.ExportKind`) add what `workbench import`
and `workbench export` offer, and `design_screen` (a Textual screen class, or its
"module:Class" path, so that the core never imports the UI) is what the app's Design tab
shows for the method's studies; `migrations` ((name, sql) pairs) make its own tables.
`compare_module` and `planner_module` (optional) name the modules `workbench compare` and
`workbench plan` read the method's studies with. `plan_units` (optional) splits a model's plan into units
marked one by one, so that an edited study plans again only the units it changed. `register` does the same in code (tests register a toy
method that way). docs/writing-a-method.md walks through one.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from workbench.methods.base import MethodBase, check_conflicts, filters_of, hook, panels_of  # noqa: F401  (re-exported)
from workbench.methods.hook_types import screen_class
from workbench.methods.kinds import Kinds
from workbench.metrics.records import as_rows, with_convention

if TYPE_CHECKING:
    from workbench.engines.specs import ModelSpec
    from workbench.store.requests.queue import PlannedRequest

ENTRY_POINT_GROUP = "workbench.methods"


def _shipped() -> tuple[str, ...]:
    """The method packages shipped with the workbench: every package folder under
    workbench/methods/. Found, not listed, so that a new method's folder needs nothing else;
    each registers itself when imported (`register`), in the order of its `position`."""
    from pkgutil import iter_modules

    return tuple(sorted(m.name for m in iter_modules([str(Path(__file__).parent)]) if m.ispkg))


BUILTIN = _shipped()


@runtime_checkable
class Method(Protocol):
    name: str  # the study file's `method`
    first_stage: str  # the stage its planned requests belong to ("answer", "score", ...)
    summary: str  # one line for `--help` and error messages

    def load(self, data: dict[str, Any], path: Path) -> Any:
        """The validated study (StudyError naming file and key otherwise)."""

    def plan_params(self, study: Any, spec: ModelSpec) -> dict[str, Any]:
        """The request parameters for one model: the study's [generation] with the spec's overrides."""

    def plan_context(self, conn: sqlite3.Connection | None, study: Any, study_id: int | None) -> Any:
        """What planning needs beyond the study (ChoiceEval: stored question ids).
        Called with conn=None first, to count the plan before anything is stored."""

    def plan(self, study: Any, model_identity: str, params: dict[str, Any], context: Any) -> Iterable[PlannedRequest]:
        """The first-stage requests for one model, lazily."""

    def helper_model(self, study: Any) -> ModelSpec | None:
        """A model the later stages need besides the audited ones (extractor, judge)."""

    async def after_answers(self, stages: Stages) -> None:
        """Everything after the first stage: plan and run later stages, parse, store."""

    def metric_records(self, conn: sqlite3.Connection, study: str | None, convention: str = "paper") -> list[Any]:
        """Every number of this method's studies (one study, or all) as records: frozen
        dataclasses of the method's own (its views read their attributes), or flat dicts.
        `metrics.records.as_rows` turns either into the flat records JSON and CSV are written
        from: a dataclass's fields in order, the keys of `workbench metrics --format json`.
        `convention`: "paper" (the published definitions) or "original" (the original
        research code's, where it differs); every record says which it follows (a dataclass
        record has a `convention` field; a dict gets the key)."""


def example_path(relative: str) -> str:
    """A study file the workbench ships under its assets (`example_study` of the built-ins)."""
    from importlib.resources import files

    return str(files("workbench.assets").joinpath(relative))


@dataclass
class Stages:
    """What a method's later stages get from the pipeline."""

    conn: sqlite3.Connection
    prepared: Any  # workbench.pipeline.audit.PreparedStudy
    job: Callable[[Any], Any]  # PreparedModel -> runner ModelJob
    run_stage: Callable[[str, list[Any]], Awaitable[Any]]  # (stage, jobs) -> RunSummary, recorded
    extraction: list[Any] = field(default_factory=list)  # extraction reports, for the run summary

    @property
    def study(self) -> Any:
        return self.prepared.study

    @property
    def study_id(self) -> int:
        return self.prepared.study_id


_REGISTRY: dict[str, Method] = {}
REFUSED: dict[str, str] = {}  # entry point name -> why its method could not be loaded
_loaded = False


def register(method: Method | type) -> Method | type:
    """Add a method (a class is instantiated); usable as a class decorator.

    Refused with `hooks.MethodConflict` (naming both methods) when another method holds its
    name, or one of its filter or Review keys is taken (by another method, or by the screen
    itself): the screens would otherwise drop one of them without a word. The same class
    registered again (a module imported twice, an entry point of a self-registering
    module), or a subclass of the one holding the name, replaces it."""
    instance = method() if isinstance(method, type) else method
    if not isinstance(instance, Method):
        lacks = [name for name in _PROTOCOL if not hasattr(instance, name)]
        raise TypeError(f"{method!r} does not follow the Method protocol: it lacks {', '.join(lacks)}")
    held = _REGISTRY.get(instance.name)
    others = [m for n, m in _REGISTRY.items() if n != instance.name]
    if held is not None and not (
        isinstance(instance, type(held)) or type(held).__qualname__ == type(instance).__qualname__
    ):
        others.append(held)
    check_conflicts(instance, others)
    _REGISTRY[instance.name] = instance
    _ORDER.setdefault(instance.name, len(_ORDER))
    return method


_ORDER: dict[str, int] = {}  # registration order, ties of `position` keep it
# What a method that is no subclass of the base must have (the protocol's members).
_PROTOCOL = ("name", "first_stage", "summary", "load", "plan_params", "plan_context", "plan", "helper_model",
             "after_answers", "metric_records")  # fmt: skip


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from importlib import import_module
    from importlib.metadata import entry_points

    for name in BUILTIN:  # by name, like plugins: the registry depends on no method
        import_module(f"{__package__}.{name}")

    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            register(point.load())
        except Exception as exc:  # a broken plugin must not break the built-in methods
            # One line, as every refusal (a warning would add its file, line and source); a
            # study naming the method then says why it is not there (`refused`).
            REFUSED[point.name] = " ".join(str(exc).split()) or type(exc).__name__
            print(
                f"workbench: method plugin {point.name!r} could not be loaded: {REFUSED[point.name]}", file=sys.stderr
            )


def get(name: str) -> Method:
    _load()
    return _REGISTRY[name]


def names() -> tuple[str, ...]:
    """Every method, by `position` (the built-ins 1 to 4), then in registration order."""
    _load()
    return tuple(sorted(_REGISTRY, key=lambda n: (getattr(_REGISTRY[n], "position", 100), _ORDER[n])))


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


CONVENTIONS = ("paper", "original")


def metric_records_by_method(
    conn: sqlite3.Connection, study: str | None = None, convention: str = "paper"
) -> dict[str, list[Any]]:
    """Every metric of one study (or all) as records, per method, each naming the convention
    (flat rows only where a file is written: `metrics.records.as_rows`)."""
    return {
        name: [with_convention(record, convention) for record in get(name).metric_records(conn, study, convention)]
        for name in names()
    }


def warm_metrics(conn: sqlite3.Connection) -> None:
    """Let each method load what its metrics read (optional hook `warm_metrics`), so that the
    first computation finds it ready. A failure here is left to that computation to report."""
    for name in names():
        warm = hook(get(name), "warm_metrics")
        if warm is not None:
            try:
                warm(conn)
            except Exception:  # noqa: BLE001 (the Metrics screen shows the same error, with its context)
                pass


def metric_records(conn: sqlite3.Connection, study: str | None = None, convention: str = "paper") -> list[Any]:
    """Every metric of one study (or all), method by method, as records (`as_rows`: flat)."""
    return [record for records in metric_records_by_method(conn, study, convention).values() for record in records]


def kinds() -> Kinds:
    """Every method's import and export kinds (optional hooks `import_kinds`, `export_kinds`).
    Two methods offering one name is a plugin's mistake: the first registered keeps it."""
    found = Kinds()
    for name in names():
        method = get(name)
        for kind in hook(method, "import_kinds"):
            found.imports.setdefault(kind.name, kind)
        for kind in hook(method, "export_kinds"):
            found.exports.setdefault(kind.name, kind)
    return found


def design_screen(method_name: str | None) -> Any:
    """The Design screen a method's studies get (optional hook `design_screen`): a class, a
    "module:Class" path to import, or None when the method has none (its file is edited by hand)."""
    if method_name is None or method_name not in names():
        return None
    return screen_class(hook(get(method_name), "design_screen"))


def print_tables_of(method: Method, conn: sqlite3.Connection, study: str | None, records, console: Any) -> None:
    """`workbench metrics` in a terminal: the method's `print_tables` (by default the panels
    the Metrics screen shows, with every filter at "all")."""
    hook(method, "print_tables")(conn, study, records, console)


# The columns of a metrics CSV, in a fixed order so files compare across versions.
METRIC_FIELDS = [
    "study",
    "metric",
    "convention",
    "model",
    "topic",
    "cluster",
    "persona_category",
    "persona",
    "group",
    "condition",
    "probe_label",
    "word",
    "difference",
    "u",
    "region",
    "region_a",
    "region_b",
    "repetition_a",
    "repetition_b",
    "entity",
    "attribute",
    "value_label",
    "value",
    "mean",
    "std",
    "exp_mean",
    "statistic",
    "t",
    "p",
    "n",
    "n_groups",
    "rank",
    "task",
    "language",
    "variant",
    "method",
    "between",
    "condition_a",
    "condition_b",
    "d",
    "r",
    "study_b",
]


def metric_fields(records: list[Any]) -> list[str]:
    """CSV columns for metric records (flat rows, or records `as_rows` flattens): the usual
    ones, then any a plugin's records add."""
    return list(dict.fromkeys([*METRIC_FIELDS, *(k for r in as_rows(records) for k in r)]))
