"""The hooks' types: the screens' own keys, a Review view, and the protocols of the parts a
method may offer (its template editing, comparison, planner, evidence). Imports nothing of the
workbench, so that every method can import it; the defaults are the method base's
(workbench/methods/base.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from workbench.errors import MethodConflict  # noqa: F401  (raised here; the family is workbench.errors)

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


def screen_class(path: Any) -> Any:
    """A Screen class given as itself or as its "module:Class" path (imported only when needed)."""
    if not isinstance(path, str):
        return path
    from importlib import import_module

    module, _, attribute = path.partition(":")
    return getattr(import_module(module), attribute)


class Comparing(Protocol):
    """`workbench compare` and the Metrics screen's c for a method's studies (docs/writing-a-method.md,
    "Comparing two models")."""

    def models(self, conn: Any, study_id: int) -> list[str]:
        """The models whose answers count now in the study, in name order."""

    def paired_records(self, conn: Any, study_id: int, pairing: Any) -> list[dict[str, Any]]:
        """Every difference between the two models of `pairing`, as a flat record."""


class Sizing(Protocol):
    """`workbench plan` for a method's studies ("Sizing a study"); `strata(study)` is optional."""

    def topics(self, study: Any) -> dict[str, int]:
        """The questions the study file asks per topic."""

    def pilot_scopes(self, conn: Any, study_id: int, outcome: str) -> dict[tuple[str, str], Any]:
        """A pilot study's stored answers per (model, topic)."""


class EvidenceSource(Protocol):
    """The answers behind each of a method's numbers ("Evidence behind a number");
    `record_query(row)` is optional."""

    METRICS: dict[str, str]
    OPTIONS: dict[str, tuple[str, ...]]

    def evidence(self, conn: Any, study_id: int, query: Any) -> list[Any]:
        """One `Evidence` per model: the answers of the query, with how they count."""

    def cell_query(self, panel_id: str, header: list[str], row: list[str], column: int, choices: dict) -> Any:
        """Which number a cell of its Metrics table shows (a `Query`), or None."""
