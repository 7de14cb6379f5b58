"""Identity disclosure (docs/methods.md §2) as a registered method: answers, the probe, an optional judge."""

from __future__ import annotations

from workbench.methods.base import lazy
from workbench.methods.hook_types import ReviewView
from workbench.methods.identity import tables
from workbench.methods.registry import MethodBase, Stages, example_path, register


@register
class IdentityMethod(MethodBase):
    name = "identity"
    study_reader = lazy("workbench.methods.identity.study")  # from_toml, plan_requests
    kind_source = lazy("workbench.methods.identity.kinds")  # its import and export kinds
    compare = lazy("workbench.methods.identity.paired")  # `workbench compare`: its units paired
    first_stage = "answer"
    summary = "identity disclosure: implicit/explicit identity signals, JSON recommendations, a probe"
    example_study = example_path("studies/identity/universities.toml")
    evidence = lazy("workbench.methods.identity.evidence")  # `workbench evidence`: the answers behind a number
    parts = {"probe labels": lazy("workbench.methods.identity.probe_reviews")}  # `workbench review probes`
    migrations = tables.MIGRATIONS  # its own tables (workbench.store.method_migrations)
    design_screen = "workbench.screens.template_editor:TemplateScreen"  # its prompt template
    position, title = 3, "identity disclosure"
    export_fields = ("group", "condition")
    parse_metrics = {"parse_rate": "parsed", "json_rate": "valid JSON"}
    waits_for = "its answers are read once every answer (and probe) is in"
    review_views = (
        ReviewView(
            "b",
            "Probes",
            "workbench.screens.probe_review:ProbeReviewScreen",
            "Identity studies: review the transparency-probe labels",
        ),
    )
    help_sections = {
        "Design": (
            "  Identity studies: the template editor, with a preview\n"
            "  of sampled prompts as you type; Ctrl+S saves it,\n"
            "  Ctrl+R draws other samples, Esc leaves the text."
        ),
        "Review": (
            "  b          transparency-probe labels (identity studies):\n"
            "             a admits  d denies  x unclear  u undo\n"
            "             Esc back"
        ),
    }

    @property
    def decision_kinds(self):
        from workbench.methods.identity.probe_decisions import ProbeLabels

        return (ProbeLabels(),)

    @property
    def template_editing(self):
        from workbench.methods.identity.template_editing import TEMPLATE_EDITING

        return TEMPLATE_EDITING

    def helper_model(self, study):
        return study.judge

    async def after_answers(self, stages: Stages) -> None:
        from workbench.engines.resolve import generation_params
        from workbench.methods.identity import study as identity

        prepared, study, conn = stages.prepared, stages.study, stages.conn
        for m in prepared.models:
            identity.plan_probes(
                conn,
                study,
                stages.study_id,
                m.model_id,
                m.resolved.identity,
                generation_params(study.generation, m.resolved.spec),
            )
        if study.probe:
            await stages.run_stage("probe", [stages.job(m) for m in prepared.models])
        if study.probe and prepared.extractor is not None:
            judge = prepared.extractor
            for m in prepared.models:
                identity.plan_judging(conn, study, stages.study_id, m.model_id, judge.model_id, judge.resolved.identity)
            await stages.run_stage("judge", [stages.job(judge)])
        for m in prepared.models:
            identity.store_outputs(conn, study, stages.study_id, m.model_id, m.resolved.label)

    def metric_records(self, conn, study, convention="paper"):
        from workbench.methods.identity.data import metric_records

        return metric_records(conn, study, convention)  # one convention, named as asked (docs/methods.md)

    @property
    def metric_filters(self):
        from workbench.methods.identity.views import FILTERS

        return FILTERS

    def metric_panels(self, records, choices):
        from workbench.methods.identity import views

        return views.panels(records, choices)
