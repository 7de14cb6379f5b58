"""Cold-start re-ranking (docs/methods.md §3) as a registered method: ranked lists, parsed against the catalog."""

from __future__ import annotations

from workbench.methods.registry import Stages, register


@register
class ColdStartMethod:
    name = "coldstart"
    first_stage = "answer"
    summary = "cold-start re-ranking: top-k of a catalog for neutral vs sensitive-attribute users"

    def load(self, data, path):
        from workbench.studies.coldstart import from_toml

        return from_toml(data, path)

    def plan_context(self, conn, study, study_id):
        return None

    def plan(self, study, model_identity, params, context):
        from workbench.studies.coldstart import plan_requests

        return plan_requests(study, model_identity, params)

    def helper_model(self, study):
        return None

    async def after_answers(self, stages: Stages) -> None:
        from workbench.studies.coldstart import parse_answers

        for m in stages.prepared.models:
            parse_answers(stages.conn, stages.study, stages.study_id, m.model_id, m.resolved.label)

    def metric_records(self, conn, study, convention="paper"):
        from workbench.coldstart_io import metric_records

        return metric_records(conn, study, convention)

    def print_tables(self, conn, study, records, console):
        from workbench.methods.coldstart_tables import print_coldstart_table

        print_coldstart_table(records, console)
