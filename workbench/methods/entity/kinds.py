"""The label-probability method's import (scores computed elsewhere) and exports (scores, Delta per entity)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.methods.kinds import ExportKind, ImportKind, Option, missing
from workbench.text.words import plural


def _scores(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.methods.entity.data import import_scores

    if not options.get("task"):
        raise missing("scores", "--study NAME", "--task TASK.task.json")
    study = options["study"]
    entities = options.get("entities")
    got = import_scores(conn, study, path, Path(options["task"]), entities, options.get("group_by"))
    return [
        f"Imported {plural(got['scores'], 'label score')} of {plural(got['prompts'], 'prompt')} "
        f"({plural(got['entities'], 'entity', 'entities')}) into study {study!r}."
    ]


def _score_records(conn, study):
    from workbench.methods.entity.data import SCORE_FIELDS, score_records

    return score_records(conn, study), SCORE_FIELDS


def _bias_records(conn, study):
    from workbench.methods.entity.data import bias_records

    return bias_records(conn, study)


IMPORTS = (
    ImportKind(
        "scores",
        "label log-probs computed elsewhere (vLLM, another harness), as `export --what scores`:\n"
        "entity,template_id,label,logprob[,model,language,variant,method,intended]; --task gives\n"
        "the labels and weights, --entities the metadata, --group-by the columns to compare",
        _scores,
        (
            Option("--task", "scores: the task file (*.task.json) with the labels and their weights"),
            Option("--entities", "scores: entity metadata, a CSV with `name` and any columns"),
            Option(
                "--group-by",
                "scores: compare the groups of this metadata column (repeat for several)",
                metavar="COLUMN",
                repeat=True,
            ),
        ),
    ),
)

EXPORTS = (
    ExportKind("scores", "scores (label log-probs with the exact prompt and label text)", _score_records),
    ExportKind("entity_bias", "entity_bias (Delta per entity with its metadata)", _bias_records),
)
