"""Pairwise preference: options A and B asked in both orders; the share choosing A and the
position bias (the share choosing whichever was shown first, less one half).

A complete method in one package, registered by its entry point (pyproject.toml:
[project.entry-points."workbench.methods"]); docs/writing-a-method.md walks through it.
"""

from __future__ import annotations

from workbench import plugin
from workbench_pairwise import metrics, study


class PairwiseMethod(plugin.Method):
    api_version = 2  # the plugin API it is written against (workbench.plugin.API_VERSION)
    name = "pairwise"
    first_stage = "answer"
    summary = "pairwise preference: A or B asked in both orders, share choosing A, position bias"
    title = "pairwise preference"
    # Hooks (plugin.Method has a default for each): the responses export's columns from each
    # request's meta, the report's parse rate, the Metrics screen's filter, an empty table's note.
    export_fields = ("topic", "option_a", "option_b", "order")
    parse_metrics = {"parse_rate": "named one option"}
    metric_filters = (plugin.Filter("pair_topic", "g", "Pair topic", lambda records: ["all", *_topics(records)]),)
    waits_for = "its answers are read at the end of the run"
    migrations = metrics.MIGRATIONS  # its own table, made by the store
    help_sections = {"Metrics": "  g        pairwise: next pair topic"}

    def load(self, data, path):
        return study.load(data, path)

    def plan(self, study_, model_identity, params, context):
        return study.plan(study_, model_identity, params)

    async def after_answers(self, stages: plugin.Stages) -> None:
        for m in stages.prepared.models:
            metrics.store_choices(stages.conn, stages.study_id, m.model_id, m.resolved.label)

    def metric_records(self, conn, study_name, convention="paper"):
        return metrics.metric_records(conn, study_name)  # one convention: the records name the one asked

    def metric_panels(self, records, choices):
        topic = choices.get("pair_topic", "all")
        shown = [plugin.as_row(r) for r in records if topic in ("all", r.topic)]
        rows = [[r["model"], r["topic"], r["metric"], plugin.with_interval(r["value"], r), str(r["n"])] for r in shown]
        header = ["model", "topic", "metric", "value [95% interval]", "n"]
        return [plugin.Panel("pairwise-table", "Pairwise preference and position bias", table=(header, rows))]


def _topics(records) -> list[str]:
    return sorted({r.topic for r in records})
