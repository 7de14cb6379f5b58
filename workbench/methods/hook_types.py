"""The hooks' types and defaults, and the checks at registration: imports nothing of the
workbench, so that the registry and every method can import it (`hooks` reads them all)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

# Keys the screens keep for themselves: a method's filter or Review view may not take them.
APP_KEYS = frozenset({"1", "2", "3", "4", "5", "q", "f1", "question_mark", "escape", "ctrl+p"})
# screens/metrics.py COMMANDS: recompute, export, compare two models, leave the comparison, evidence
METRICS_KEYS = frozenset({"r", "e", "c", "escape", "enter"})
REVIEW_KEYS = frozenset(  # screens/review.py
    {
        "a",
        "e",
        "x",
        "n",
        "right",
        "p",
        "left",
        "u",
        "f",
        "t",
        "o",
        "left_square_bracket",
        "right_square_bracket",
        "slash",
    }
)


class MethodConflict(ValueError):
    """A method refused at registration: its name or one of its keys is another's."""


@dataclass(frozen=True)
class ReviewView:
    """A view of the Review screen a method adds, opened with one key (its probe labels,
    its catalog matches): `screen` is a Textual Screen class's "module:Class" path, so the
    core never imports the UI."""

    key: str  # "b"
    description: str  # "Probes", in the footer and the palette
    screen: str  # "workbench.screens.probe_review:ProbeReviewScreen"
    tooltip: str = ""
    show: bool = True  # in the footer (the palette lists it either way)


class TemplateEditing(Protocol):
    """What the app's template editor (a method's Design tab) needs of the method whose
    studies are made from a prompt template."""

    def template_text(self, study: Any) -> tuple[str, str]:
        """The template's text and where it comes from (a file, or a bundled name)."""

    def preview(self, text: str, study: Any, seed: int) -> tuple[str, list[tuple[str, str]]]:
        """A heading and sampled prompts (title, text) rendered from `text`, as the run would
        send them; a `UserFacingError` naming the line or placeholder at fault otherwise."""

    def save(self, study_path: str, source: str, text: str) -> Any:
        """Write the edited template (the Path written); refused with a UserFacingError."""


_DEFAULTS: dict[str, Any] = {
    "position": 100,
    "title": "",
    "export_fields": (),
    "parse_metrics": {},
    "waits_for": "its numbers are computed at the end of the run",
    "help_sections": {},
    "review_views": (),
    "design_screen": None,
    "template_editing": None,
    "metric_filters": (),
    "compare_module": "",
    "planner_module": "",
    "evidence_module": "",
}


def hook(method: Any, name: str) -> Any:
    """A method's hook, or its default (for a method that is not a MethodBase)."""
    return getattr(method, name, _DEFAULTS[name])


def title(method: Any) -> str:
    return hook(method, "title") or method.name


def screen_class(path: Any) -> Any:
    """A Screen class given as itself or as its "module:Class" path (imported only when needed)."""
    if not isinstance(path, str):
        return path
    from importlib import import_module

    module, _, attribute = path.partition(":")
    return getattr(import_module(module), attribute)


def check_conflicts(new: Any, others: list[Any]) -> None:
    """Refuse `new` when its name or a key of its filters or Review views is already held."""
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
            held.setdefault(entry.key, f"method {other.name!r}'s {what} {name!r}")
    for key, name in keys:
        if key in held:
            raise MethodConflict(f"method {new.name!r}: its {what} {name!r} takes key {key!r}, held by {held[key]}")
