"""Cold-start re-ranking (docs/methods.md §3) as a registered method: ranked lists, parsed against the catalog."""

from __future__ import annotations

from workbench.methods.base import lazy
from workbench.methods.coldstart import tables
from workbench.methods.hook_types import ReviewView
from workbench.methods.registry import MethodBase, Stages, example_path, register


@register
class ColdStartMethod(MethodBase):
    name = "coldstart"
    study_reader = lazy("workbench.methods.coldstart.study")  # from_toml, plan_requests
    kind_source = lazy("workbench.methods.coldstart.kinds")  # its import and export kinds
    first_stage = "answer"
    summary = "cold-start re-ranking: top-k of a catalog for neutral vs sensitive-attribute users"
    example_study = example_path("studies/coldstart/movies.toml")
    evidence = lazy("workbench.methods.coldstart.evidence")  # `workbench evidence`: the answers behind a number
    parts = {"catalog matches": lazy("workbench.methods.coldstart.match_reviews")}  # `workbench review matches`
    migrations = tables.MIGRATIONS  # its own tables (workbench.store.method_migrations)
    position, title = 2, "catalog re-ranking"
    export_fields = ("persona_category", "persona")
    waits_for = "its answers are matched against the catalog at the end of the run"
    review_views = (
        ReviewView(
            "c",
            "Matches",
            "workbench.screens.match_review:MatchReviewScreen",
            "Cold-start studies: correct the catalog entry an answer's item was matched to",
            show=False,
        ),
    )
    help_sections = {
        "Review": "  c          cold-start catalog matches: e corrects,\n             x not in catalog, n/p lists, u undo, f filter",
        "Metrics": "  m        cold-start chart: IOU / SERP / PRAG divergence",
    }

    @property
    def decision_kinds(self):
        from workbench.methods.coldstart.match_decisions import MatchCorrections

        return (MatchCorrections(),)

    def held_lists(self, conn, study_id):
        from workbench.methods.coldstart.data import held_rankings

        return held_rankings(conn, study_id)

    async def after_answers(self, stages: Stages) -> None:
        from workbench.methods.coldstart.study import parse_answers

        for m in stages.prepared.models:
            parse_answers(stages.conn, stages.study, stages.study_id, m.model_id, m.resolved.label)

    def metric_records(self, conn, study, convention="paper"):
        from workbench.methods.coldstart.data import metric_records

        return metric_records(conn, study, convention)

    @property
    def metric_filters(self):
        from workbench.methods.coldstart.views import FILTERS

        return FILTERS

    def metric_panels(self, records, choices):
        from workbench.methods.coldstart import views

        return views.panels(records, choices)
