"""Entity x template label probabilities (docs/methods.md §4) as a registered method: scored, not generated."""

from __future__ import annotations

from workbench.methods.registry import MethodBase, Stages, register


@register
class EntityMethod(MethodBase):
    name = "entity"
    study_module = "workbench.methods.entity.study"
    first_stage = "score"
    summary = "entity x template label probabilities: exact label log-probs, normalised bias per entity"
    kinds_module = "workbench.methods.entity.kinds"

    def plan_params(self, study, spec):
        from workbench.engines.registry import takes

        if not takes(spec.engine, "invariant"):  # an engine without a choice of scoring kernels
            return {}
        # Which kernels score the labels is part of each request: the fast ones round by batch
        # layout and moved the bundled study's ranking (docs/methods.md §4); invariant is the default.
        return {"kernels": "invariant" if spec.options.get("invariant", True) else "fast"}

    def plan(self, study, model_identity, params, context):
        from workbench.methods.entity.study import plan_requests

        return plan_requests(study, model_identity, params)

    async def after_answers(self, stages: Stages) -> None:
        from workbench.methods.entity.study import store_scores

        for m in stages.prepared.models:
            store_scores(stages.conn, stages.study, stages.study_id, m.model_id, m.resolved.label)

    def metric_records(self, conn, study, convention="paper"):
        from workbench.methods.entity.data import metric_records

        return metric_records(conn, study)  # the paper's and the framework's code agree (sample std, ddof = 1)

    @property
    def metric_filters(self):
        from workbench.methods.entity.views import FILTERS

        return FILTERS

    def metric_panels(self, records, choices):
        from workbench.methods.entity import views

        return views.panels(records, choices)
