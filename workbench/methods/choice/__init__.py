"""ChoiceEval (docs/methods.md §1) as a registered method: questions x repetitions, then extraction."""

from __future__ import annotations

from workbench.methods.base import lazy
from workbench.methods.registry import MethodBase, Stages, example_path, register
from workbench.store.requests import questions as question_store
from workbench.store.requests.file_questions import sync_file_questions


@register
class ChoiceMethod(MethodBase):
    name = "choice"
    kind_source = lazy("workbench.methods.choice.kinds")  # its import and export kinds
    first_stage = "answer"
    summary = "ChoiceEval: personas x topics, repeated answers, multi-expert or gazetteer extraction"
    example_study = example_path("studies/demo.toml")
    design_screen = "workbench.screens.design:DesignScreen"  # questions, clusters and models
    compare = lazy("workbench.methods.choice.paired")  # `workbench compare`: its questions paired
    planner = lazy("workbench.methods.choice.planning")  # `workbench plan`: questions x repetitions
    evidence = lazy("workbench.methods.choice.evidence")  # `workbench evidence`: the answers behind a number
    position, title = 1, "ChoiceEval"
    waits_for = "its answers' lists are extracted at the end of the run"
    help_sections = {
        "Design": (
            "  ChoiceEval studies: questions, clusters and models\n"
            "  ] / \\[   next / previous tab: questions, clusters,\n"
            "           models\n"
            "  v        verify / unverify the question\n"
            "  e        edit the question, definition or model\n"
            "  a        add a question or a model    d   drop a model\n"
            "  n        new topic (its questions are generated with g)\n"
            "  g        generate questions    t   test the model\n"
            "  w        save the study file (the old one becomes .bak)"
        ),
        "Metrics": (
            "  t / k    ChoiceEval: next topic / next cluster\n  ChoiceEval's PEIR is Eq. 5-6, its log-odds alpha 0.5."
        ),
    }

    def report_sections(self, conn, study, records):
        from workbench.methods.choice.report_charts import report_panels  # its charts drawn, one per topic

        return report_panels(self, conn, study, records)

    def load(self, data, path):
        from workbench.methods.choice.study import from_toml

        return from_toml(data, path)

    def plan_context(self, conn, study, study_id):
        if conn is None:  # counting: the questions of the file
            return {(q.topic, q.cluster, q.text): 0 for q in study.questions}
        if study.extraction.method == "gazetteer":  # before anything is stored or asked
            from workbench.methods.choice.extraction import check_gazetteer_topics

            stored = {topic for topic, _cluster, _text in question_store.study_questions(conn, study_id)}
            check_gazetteer_topics(study, stored)
        sync_file_questions(conn, study_id, study.questions)  # the file's now: moved, dropped, added
        return question_store.study_questions(conn, study_id, study.verified_only)  # with imported and generated ones

    def plan(self, study, model_identity, params, context):
        from workbench.methods.choice.study import plan_requests

        return plan_requests(study, model_identity, params, context)

    def plan_units(self, study, model_identity, params, context):
        """The plan by question, so that an edited study plans again only the questions it changed."""
        from workbench.methods.choice.study import plan_units

        return plan_units(study, model_identity, params, context)

    async def generate_questions(self, conn, study, spec, options, on_progress=None, notify=None):
        """`workbench generate` and the Design screen's g: questions for topics with generate = N."""
        from workbench.methods.choice.generation import generate_questions

        return await generate_questions(conn, study, spec, options, on_progress, notify)

    def helper_model(self, study):
        x = study.extraction
        return x.model if x.method == "experts" else None

    async def after_answers(self, stages: Stages) -> None:
        from workbench.methods.choice import extraction as choice_extraction

        prepared, settings = stages.prepared, stages.study.extraction
        if settings.method == "list":
            for m in prepared.models:
                stages.extraction.append(
                    choice_extraction.extract_with_list_parser(
                        stages.conn, stages.study_id, m.model_id, m.resolved.label, settings.k
                    )
                )
            return
        if settings.method == "gazetteer":
            for m in prepared.models:
                stages.extraction.append(
                    choice_extraction.extract_with_gazetteer(
                        stages.conn, stages.study_id, m.model_id, m.resolved.label, settings
                    )
                )
            return
        extractor_jobs = {}
        for m in prepared.models:
            x = prepared.extractor or m  # without an extraction model, each model extracts its own answers
            choice_extraction.plan_experts(
                stages.conn, stages.study_id, m.model_id, x.model_id, x.resolved.identity, settings
            )
            extractor_jobs[x.model_id] = stages.job(x)
        await stages.run_stage("extract", list(extractor_jobs.values()))
        for m in prepared.models:
            x = prepared.extractor or m
            stages.extraction.append(
                choice_extraction.vote(
                    stages.conn, stages.study_id, m.model_id, m.resolved.label, settings, x.resolved.identity
                )
            )

    def metric_records(self, conn, study, convention="paper"):
        from workbench.methods.choice.data import choice_metric_records_of

        return choice_metric_records_of(conn, study, convention)  # the log-odds differ (docs/methods.md)

    def warm_metrics(self, conn):
        from workbench.methods.choice.data import warm

        warm(conn)

    def print_tables(self, conn, study, records, console):
        """The panels (MethodBase), then how to give regions to the entities that lack one."""
        from workbench.methods.choice.views import region_hint
        from workbench.text.literal import literal_text

        super().print_tables(conn, study, records, console)
        hint = region_hint(conn, study)
        if hint:
            console.print(literal_text(hint), style="dim", soft_wrap=True)

    @property
    def metric_filters(self):
        from workbench.methods.choice.views import FILTERS

        return FILTERS

    def metric_panels(self, records, choices):
        from workbench.methods.choice import views

        return views.panels(records, choices)
