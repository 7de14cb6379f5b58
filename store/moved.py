"""Modules by their paths in 0.1, before the core was grouped into packages and the store by
domain: importing one by its old path (`workbench.store.queue`, `from workbench.store import
answers`, `workbench.keys`) gives the module at its new path, with a DeprecationWarning, so that
a plugin written against 0.1 keeps running through plugin API 2 (CHANGELOG.md). Nothing in the
workbench imports an old path. Three modules of 0.1 are packages now and cannot be aliased:
`workbench.transfer`, `workbench.store.entities`, `workbench.store.reads`; one was split in two
between the methods that own its tables: `workbench.store.decision_replay_corrections`."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

OLD_PATHS = {
    "workbench.audit": "workbench.pipeline.audit",
    "workbench.audit_limits": "workbench.pipeline.queue_limits",
    "workbench.compare": "workbench.analysis.compare",
    "workbench.compare_table": "workbench.analysis.compare_table",
    "workbench.cores": "workbench.host.cores",
    "workbench.csv_input": "workbench.files.csv_input",
    "workbench.csv_records": "workbench.files.csv_records",
    "workbench.decision_import": "workbench.transfer.decision_import",
    "workbench.dedup": "workbench.entities.dedup",
    "workbench.dedup_pairs": "workbench.entities.dedup_pairs",
    "workbench.design": "workbench.pipeline.study_design",
    "workbench.doctor": "workbench.pipeline.doctor",
    "workbench.evidence": "workbench.analysis.evidence",
    "workbench.export_kinds": "workbench.transfer.export_kinds",
    "workbench.export_markdown": "workbench.transfer.export_markdown",
    "workbench.export_on_screen": "workbench.transfer.export_on_screen",
    "workbench.exports": "workbench.pipeline.run_records",
    "workbench.extract": "workbench.asking.extract",
    "workbench.gazetteer": "workbench.methods.choice.gazetteer",
    "workbench.gazetteer_words": "workbench.methods.choice.gazetteer_words",
    "workbench.init_steps": "workbench.pipeline.init_steps",
    "workbench.json_input": "workbench.files.json_input",
    "workbench.keys": "workbench.asking.keys",
    "workbench.literal": "workbench.text.literal",
    "workbench.locations": "workbench.host.locations",
    "workbench.metric_views": "workbench.display.metric_views",
    "workbench.models": "workbench.engines.resolve",
    "workbench.monitor": "workbench.pipeline.monitor",
    "workbench.na_catalog": "workbench.display.na_catalog",
    "workbench.na_reasons": "workbench.display.na_reasons",
    "workbench.name_keys": "workbench.entities.name_keys",
    "workbench.numbers": "workbench.text.numbers",
    "workbench.plan": "workbench.analysis.sizing",
    "workbench.plan_power": "workbench.analysis.sizing_power",
    "workbench.prompts": "workbench.asking.prompts",
    "workbench.replan": "workbench.pipeline.queue_build",
    "workbench.run_control": "workbench.pipeline.run_control",
    "workbench.run_types": "workbench.pipeline.run_types",
    "workbench.runner": "workbench.pipeline.runner",
    "workbench.safe_output": "workbench.files.safe_output",
    "workbench.specs": "workbench.engines.specs",
    "workbench.starter": "workbench.pipeline.starter",
    "workbench.store.adjudication": "workbench.store.review.adjudication",
    "workbench.store.adjudication_log": "workbench.store.review.adjudication_log",
    "workbench.store.answer_search": "workbench.store.reads.answer_search",
    "workbench.store.answer_texts": "workbench.store.requests.answer_texts",
    "workbench.store.answers": "workbench.store.requests.answers",
    "workbench.store.change_log": "workbench.store.reads.change_log",
    "workbench.store.decision_log": "workbench.store.decisions.log",
    "workbench.store.decision_portable": "workbench.store.decisions.portable",
    "workbench.store.decision_replay": "workbench.store.decisions.replay",
    "workbench.store.decision_replay_entities": "workbench.store.decisions.replay_entities",
    "workbench.store.endpoints": "workbench.store.requests.endpoints",
    "workbench.store.entity_changes": "workbench.store.entities.changes",
    "workbench.store.entity_counts": "workbench.store.entities.counts",
    "workbench.store.entity_list": "workbench.store.entities.listing",
    "workbench.store.entity_merges": "workbench.store.entities.merges",
    "workbench.store.entity_names": "workbench.store.entities.names",
    "workbench.store.entity_retired": "workbench.store.entities.retired",
    "workbench.store.entity_undo": "workbench.store.entities.undo",
    "workbench.store.extraction_reads": "workbench.store.reads.extraction",
    "workbench.store.file_questions": "workbench.store.requests.file_questions",
    "workbench.store.gazetteer_flags": "workbench.store.entities.gazetteer_flags",
    "workbench.store.grounding": "workbench.store.entities.grounding",
    "workbench.store.group_reads": "workbench.store.reads.groups",
    "workbench.store.holdings": "workbench.store.requests.holdings",
    "workbench.store.imported": "workbench.store.requests.imported",
    "workbench.store.match_reviews": "workbench.methods.coldstart.match_reviews",
    "workbench.store.mention_export": "workbench.store.entities.mention_export",
    "workbench.store.mentions": "workbench.store.entities.mentions",
    "workbench.store.plan_marks": "workbench.store.requests.plan_marks",
    "workbench.store.plan_reads": "workbench.store.requests.plan_reads",
    "workbench.store.probe_reviews": "workbench.methods.identity.probe_reviews",
    "workbench.store.provenance": "workbench.store.requests.provenance",
    "workbench.store.questions": "workbench.store.requests.questions",
    "workbench.store.queue": "workbench.store.requests.queue",
    "workbench.store.recipe_reads": "workbench.store.reads.recipe",
    "workbench.store.regions": "workbench.store.entities.regions",
    "workbench.store.report_asked": "workbench.store.reads.report_asked",
    "workbench.store.report_reads": "workbench.store.reads.report",
    "workbench.store.review_aids": "workbench.store.review.aids",
    "workbench.store.review_base": "workbench.store.review.base",
    "workbench.store.review_pages": "workbench.store.review.pages",
    "workbench.store.review_reads": "workbench.store.review.reads",
    "workbench.store.review_repeat": "workbench.store.review.repeat",
    "workbench.store.review_state": "workbench.store.review.state",
    "workbench.store.review_validation": "workbench.store.review.validation",
    "workbench.store.review_versions": "workbench.store.review.versions",
    "workbench.store.reviewer_names": "workbench.store.review.reviewer_names",
    "workbench.store.reviews": "workbench.store.review.verdicts",
    "workbench.store.served": "workbench.store.requests.served",
    "workbench.store.staging": "workbench.store.requests.staging",
    "workbench.store.studies": "workbench.store.requests.studies",
    "workbench.tables": "workbench.display.rich_tables",
    "workbench.words": "workbench.text.words",
}


class _Loader(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec):
        return importlib.import_module(self.new)  # the module itself, under both names

    def exec_module(self, module) -> None:
        return None


class OldPaths(importlib.abc.MetaPathFinder):
    """Finds a module by its 0.1 path as the module it became."""

    def find_spec(self, fullname, path=None, target=None):
        new = OLD_PATHS.get(fullname)
        if new is None:
            return None
        warnings.warn(
            f"{fullname} is deprecated: it is {new}; a plugin imports workbench.plugin",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.util.spec_from_loader(fullname, _Loader(new))


def install() -> None:
    if not any(isinstance(finder, OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(OldPaths())
