"""The method base: every hook a method may have, with its default, in this one place.

A method subclasses `MethodBase` (`workbench.plugin.Method`) and overrides what it needs; a
method that is not a subclass (any object with `name`, `load`, `plan`, `metric_records`) is
read through `hook`, with the defaults here. docs/writing-a-method.md documents every hook
(a test holds the two together).

Three hooks hold parts a method may offer, each an object with the functions of its
protocol (`hook_types.Comparing`, `Sizing`, `EvidenceSource`): a module, a class instance,
or `lazy("package.module")`, imported on first use so that listing the methods stays cheap.
The module-path hooks of API 1 (`compare_module`, `planner_module`, `evidence_module`,
`study_module`, `kinds_module`) are still read, until API 3 (CHANGELOG.md).
"""

from __future__ import annotations

import functools
import sqlite3
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.methods.hook_types import APP_KEYS, METRICS_KEYS, REVIEW_KEYS, MethodConflict

if TYPE_CHECKING:
    from workbench.engines.specs import ModelSpec
    from workbench.methods.hook_types import Comparing, EvidenceSource, Sizing

# The plugin API this workbench offers (workbench.plugin): a method written against an older
# one still runs for one more (its deprecated names warn); a newer one is refused by name.
API_VERSION = 2
OLDEST_API = 1


class lazy:  # noqa: N801  (reads as a function: `compare = lazy("pkg.paired")`)
    """A module imported when one of its names is first read: a part of a method (its
    comparison, its planner, its evidence) that costs nothing until it is asked for."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __getattr__(self, name: str) -> Any:
        if name == "module":  # not set yet (a copy being made)
            raise AttributeError(name)
        try:
            module = import_module(self.module)
        except ModuleNotFoundError as exc:  # a plugin's mistake, said in one line, not a traceback
            from workbench.errors import UserFacingError

            raise UserFacingError(f"a method's part {self!r} cannot be imported: {exc}") from exc
        return getattr(module, name)

    def __repr__(self) -> str:
        return f"lazy({self.module!r})"


class MethodBase:
    """Every hook with its default. `name`, `load`, `plan` and `metric_records` have none
    that fits a new method: a method gives them."""

    api_version = API_VERSION  # the plugin API the method is written against
    name: str  # the study file's `method`
    first_stage = "answer"  # the stage its planned requests belong to ("answer", "score")
    summary = ""  # one line for help and messages
    example_study: str | None = None  # a commented study `workbench init` copies (with the files it names)
    # Its own tables: (name, sql) pairs, oldest first, applied by the store when it opens, each once
    # (workbench.store.method_migrations); never edit or rename one that has shipped, append.
    migrations: tuple[tuple[str, str], ...] = ()
    position = 100  # where it is listed (help, the Metrics screen's sections): lower first, ties by registration
    title = ""  # a short name for help lines ("ChoiceEval"); empty: its name
    export_fields: tuple[str, ...] = ()  # keys of its requests' `meta` the responses export gives as columns
    parse_metrics: dict[str, str] = {}  # its metrics the report sums per model as "answers that could be read"
    waits_for = "its numbers are computed at the end of the run"  # what an empty table waits for
    help_sections: dict[str, str] = {}  # its lines in the app's help (F1), by screen: {"Review": "  b ..."}
    review_views: tuple = ()  # `ReviewView`s: the Review screen's extra views, a key each
    design_screen: Any = None  # the app's Design tab for its studies: a Screen class or "module:Class"
    template_editing: Any = None  # a `TemplateEditing` when its Design tab edits a prompt template
    metric_filters: tuple = ()  # `Filter`s the Metrics screen cycles, a key each
    report_sections: Any = None  # (conn, study, records) -> its report sections; None: its panels
    generate_questions: Any = None  # what `workbench generate` runs for its studies (ChoiceEval's)
    plan_units: Any = None  # (study, model_identity, params, context) -> units planned one by one
    # Its review's corrections as decisions of the log (`export --what decisions`, `import
    # decisions`): objects with `kind`, `records(conn)`, `replay(conn, where, record, study_id, refused)`.
    decision_kinds: tuple = ()
    # Parts core surfaces look up by name, whichever method offers them: "probe labels" (`workbench
    # review probes|label|undo-label`, the report's probe agreement), "catalog matches" (`workbench
    # review matches|match|undo-match`).
    parts: dict[str, Any] = {}
    held_lists: Any = None  # (conn, study_id) -> (study, kind, count) of its lists imported, for `status`
    # Its parts, each an object with the functions of its protocol (hook_types); None: it has none.
    compare: Comparing | None = None  # `workbench compare` and the Metrics screen's c
    planner: Sizing | None = None  # `workbench plan`
    evidence: EvidenceSource | None = None  # `workbench evidence`, Metrics' Enter, the report's appendix
    # What the base's `load` and `plan` read a study file and plan it with: an object with
    # `from_toml(data, path)` and `plan_requests(study, model_identity, params)`.
    study_reader: Any = None
    kind_source: Any = None  # what `import_kinds`, `export_kinds` read: an object with IMPORTS, EXPORTS
    # API 1's module paths, read where the part above is None (deprecated: set the part).
    study_module = ""
    kinds_module = ""
    compare_module = ""
    planner_module = ""
    evidence_module = ""

    def load(self, data: dict[str, Any], path: Path) -> Any:
        """The validated study (`StudyError` naming file and key otherwise)."""
        return _study_reader(self).from_toml(data, path)

    def plan_params(self, study: Any, spec: ModelSpec) -> dict[str, Any]:
        """The request parameters for one model: the study's [generation] with the spec's overrides."""
        from workbench.engines.resolve import generation_params

        return generation_params(study.generation, spec)

    def plan_context(self, conn: sqlite3.Connection | None, study: Any, study_id: int | None) -> Any:
        """What planning needs beyond the study; called with conn=None first, to count the plan."""
        return None

    def plan(self, study: Any, model_identity: str, params: dict[str, Any], context: Any):
        """The first-stage requests for one model, lazily (`PlannedRequest`s)."""
        return _study_reader(self).plan_requests(study, model_identity, params)

    def helper_model(self, study: Any) -> ModelSpec | None:
        """A model the later stages need besides the audited ones (an extractor, a judge)."""
        return None

    async def after_answers(self, stages: Any) -> None:
        """Everything after the first stage (extraction, probes, parsing); nothing by default."""

    def metric_records(self, conn: sqlite3.Connection, study: str | None, convention: str = "paper") -> list[Any]:
        """Every number of its studies (one, or all) as records; none by default."""
        return []

    def metric_panels(self, records: list[Any], choices: dict[str, str]) -> list[Any]:
        """Its section of the Metrics screen, of `workbench metrics` and of the report: one table of its records."""
        from workbench.display.metric_views import generic_panels

        return generic_panels(self.summary or self.name, self.name, records)

    def print_tables(self, conn: sqlite3.Connection, study: str | None, records: list[Any], console: Any) -> None:
        """`workbench metrics` in a terminal: its panels, every filter at "all"."""
        from workbench.display.metric_views import terminal_panels
        from workbench.display.rich_tables import print_panels

        print_panels(terminal_panels(filters_of(self), records, lambda c: panels_of(self, records, c)), console)

    def warm_metrics(self, conn: sqlite3.Connection) -> None:
        """Load what its metrics read while the app's first screen shows; nothing by default."""

    @property
    def import_kinds(self) -> tuple:
        """`ImportKind`s `workbench import` and the app's dialog offer."""
        return _kinds(self, "IMPORTS")

    @property
    def export_kinds(self) -> tuple:
        """`ExportKind`s `workbench export` and the app's dialog offer."""
        return _kinds(self, "EXPORTS")


def _study_reader(method: Any) -> Any:
    return getattr(method, "study_reader", None) or import_module(method.study_module)


def _kinds(method: Any, which: str) -> tuple:
    """A method's IMPORTS or EXPORTS: from its `kind_source`, or API 1's `kinds_module`, or none."""
    source = getattr(method, "kind_source", None)
    if source is None and getattr(method, "kinds_module", ""):
        source = import_module(method.kinds_module)
    return tuple(getattr(source, which, ())) if source is not None else ()


# Every hook, for the documentation test: the base's public names, `name` (no default) among them.
HOOKS = tuple(sorted(name for name in {*dir(MethodBase), *MethodBase.__annotations__} if not name.startswith("_")))
_PARTS = {"compare": "compare_module", "planner": "planner_module", "evidence": "evidence_module"}


def hook(method: Any, name: str) -> Any:
    """A method's hook, or the base's default (for a method that is not a MethodBase: a
    default that is a function is bound to the method)."""
    found = getattr(method, name, _MISSING)
    default = getattr(MethodBase, name)
    if found is not _MISSING and not (found is None and callable(default)):  # None: "the default"
        return found
    if isinstance(default, property):  # import_kinds, export_kinds, read for a method that is no subclass
        return default.fget(method)
    return functools.partial(default, method) if callable(default) and not isinstance(default, type) else default


_MISSING = object()


def part(method: Any, name: str) -> Any:
    """A method's part (`compare`, `planner`, `evidence`): the object it sets, or API 1's
    module named by `<name>_module`, or None when it offers none."""
    if method is None:
        return None
    found = hook(method, name)
    if found is not None:
        return found
    path = hook(method, _PARTS[name])
    return import_module(path) if path else None


def filters_of(method: Any) -> tuple:
    """The choices the Metrics screen cycles for a method (hook `metric_filters`)."""
    return tuple(hook(method, "metric_filters"))


def panels_of(method: Any, records: list[Any], choices: dict[str, str]) -> list[Any]:
    """A method's section of the Metrics screen and its Markdown export (hook `metric_panels`);
    then, where numbers are n/a, why and what to do (`na_reasons`), for every method alike."""
    if not records:
        return []
    from workbench.display.metric_views import in_view
    from workbench.display.na_reasons import na_panel, shown_in

    panels = hook(method, "metric_panels")(records, choices)
    scoped, scope = in_view(filters_of(method), records, choices)  # the note follows the filters
    return [*panels, *na_panel(f"{method.name}-na", scoped, shown_in(panels), scope)]


def title(method: Any) -> str:
    return hook(method, "title") or method.name


def check_conflicts(new: Any, others: list[Any]) -> None:
    """Refuse `new` when its name or a key of its filters or Review views is already held,
    or when it is written against a plugin API this workbench does not offer."""
    version = hook(new, "api_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise MethodConflict(
            f"method {getattr(new, 'name', '?')!r} ({type(new).__module__}): api_version must be a whole number "
            f"(this workbench offers plugin API {OLDEST_API} to {API_VERSION}), not {version!r}"
        )
    if not OLDEST_API <= version <= API_VERSION:
        raise MethodConflict(
            f"method {getattr(new, 'name', '?')!r} ({type(new).__module__}) is written for plugin API {version!r}; "
            f"this workbench offers API {OLDEST_API} to {API_VERSION} (CHANGELOG.md says what changed)"
        )
    for other in others:
        if other.name == new.name:
            raise MethodConflict(
                f"method {new.name!r} ({type(new).__module__}) is already registered by {type(other).__module__}"
            )
    _check_keys(new, "filter", [(f.key, f.name) for f in hook(new, "metric_filters")], others, METRICS_KEYS)
    _check_keys(new, "Review", [(v.key, v.description) for v in hook(new, "review_views")], others, REVIEW_KEYS)


def _check_keys(new: Any, what: str, keys: list[tuple[str, str]], others: list[Any], screen: frozenset) -> None:
    held = {key: f"the screen's own key {key!r}" for key in screen | APP_KEYS}
    for other in others:
        for entry in hook(other, "metric_filters") if what == "filter" else hook(other, "review_views"):
            name = entry.name if what == "filter" else entry.description
            # Methods may share a filter (same name, same key): the screen cycles it once for both.
            if what == "filter" and (entry.key, name) in keys:
                continue
            held.setdefault(entry.key, f"the {what} {name!r} of method {other.name!r}")
    for key, name in keys:
        if key in held:
            raise MethodConflict(f"method {new.name!r}: its {what} {name!r} takes key {key!r}, held by {held[key]}")
