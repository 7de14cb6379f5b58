"""Entity x template label probabilities (docs/methods.md §4) as a registered method: scored, not generated."""

from __future__ import annotations

from workbench.methods.base import lazy
from workbench.methods.entity import tables
from workbench.methods.registry import MethodBase, Stages, example_path, register


@register
class EntityMethod(MethodBase):
    name = "entity"
    study_reader = lazy("workbench.methods.entity.study")  # from_toml, plan_requests
    kind_source = lazy("workbench.methods.entity.kinds")  # its import and export kinds
    compare = lazy("workbench.methods.entity.paired")  # `workbench compare`: its units paired
    first_stage = "score"
    summary = "entity x template label probabilities: exact label log-probs, normalised bias per entity"
    example_study = example_path("studies/entity/countries_urgency.toml")
    evidence = lazy("workbench.methods.entity.evidence")  # `workbench evidence`: the answers behind a number
    migrations = tables.MIGRATIONS  # its own tables (workbench.store.method_migrations)
    position, title = 4, "entity x template label probabilities"
    export_fields = ("entity", "template_id", "language", "variant")
    waits_for = "its label scores are read at the end of the run"

    def plan_params(self, study, spec):
        from workbench.engines.registry import takes

        if not takes(spec.engine, "precision"):  # an engine without a choice of scoring precision
            return {}
        from workbench.engines.llama_model import score_precision

        # What computes the labels' numbers is part of each request, so scores made another way
        # never mix (docs/methods.md §4): a dequantized copy's precision, or on the native weights
        # the kernels (the fast ones round by batch layout). Native requests keep the keys they had.
        precision = score_precision(spec)
        if precision != "native":
            return {"precision": precision}
        return {"kernels": "invariant" if spec.options.get("invariant", True) else "fast"}

    async def after_answers(self, stages: Stages) -> None:
        from workbench.methods.entity.study import store_scores

        for m in stages.prepared.models:
            store_scores(stages.conn, stages.study, stages.study_id, m.model_id, m.resolved.label)

    def metric_records(self, conn, study, convention="paper"):
        from workbench.methods.entity.data import metric_records

        return metric_records(
            conn, study, convention
        )  # the paper's and the framework's code agree (sample std, ddof = 1)

    @property
    def metric_filters(self):
        from workbench.methods.entity.views import FILTERS

        return FILTERS

    def metric_panels(self, records, choices):
        from workbench.methods.entity import views

        return views.panels(records, choices)
