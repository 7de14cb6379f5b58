"""ChoiceEval's imports (questions, mentions, entities) and exports (mentions, entities)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.methods.kinds import ExportKind, ImportKind, Option
from workbench.text.words import plural


def _more(names: list[str], limit: int = 20) -> str:
    return ", ".join(names[:limit]) + (" ..." if len(names) > limit else "")


def _questions(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.methods.choice.data import import_questions

    study = options["study"]
    added = import_questions(conn, study, path, options.get("topic"))
    return [
        f"Imported {plural(added, 'new question')} into study {study!r}; "
        "the next `workbench run` of that study asks them."
    ]


def _mentions(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.methods.choice.data import import_mentions

    study = options["study"]
    got = import_mentions(conn, study, path, options.get("progress"))
    return [
        f"Imported {plural(got['responses'], 'response')} with {plural(got['mentions'], 'mention')} "
        f"({got['empty']} with no recommendation) into study {study!r}."
    ]


def _entities(conn, path: Path, options: dict[str, Any]) -> list[str]:
    from workbench.methods.choice.data import import_entities

    got = import_entities(conn, path, new_regions=bool(options.get("new_region")))
    lines = [f"Assigned region and attributes to {plural(got['updated'], 'entity', 'entities')}."]
    if got["unmatched"]:
        lines.append(
            f"{plural(len(got['unmatched']), 'name matches', 'names match')} no entity yet; "
            "they are kept and applied when mentions "
            f"name them: {_more(got['unmatched'])}"
        )
    if got["without_region"]:
        names = [f"{n} ({c})" for n, c in got["without_region"]]
        still = plural(len(names), "mentioned entity still has", "mentioned entities still have")
        lines.append(f"{still} no region: {_more(names)}")
    return lines


def _mention_records(conn, study):
    from workbench.methods.choice.data import MENTION_FIELDS, mention_records

    return mention_records(conn, study), MENTION_FIELDS


def _entity_records(conn, study):
    from workbench.methods.choice.data import ENTITY_FIELDS, entity_records

    return entity_records(conn), ENTITY_FIELDS


TOPIC = Option("--topic", "questions: the topic of a ChoiceEval JSON bank")
NEW_REGION = Option(
    "--new-region",
    "entities: accept regions that are not known yet (the defaults and those already in the "
    "database) as new regions; without it a region not known is refused, so a typo is not a region",
    flag_only=True,
)

IMPORTS = (
    ImportKind(
        "questions",
        'a ChoiceEval JSON bank ({"<cluster>": [questions]}, topic from --topic or the file\n'
        "name) or a CSV topic,cluster,question; asked by the next `workbench run`",
        _questions,
        (TOPIC,),
    ),
    ImportKind(
        "mentions",
        "top-K lists extracted elsewhere: model,topic,cluster,question_id,repetition,rank,entity\n"
        "(a response with no recommendation: one row with empty rank and entity); each row is a\n"
        "slot: a name at two ranks of one list counts twice in the log-odds (once in PEIR)",
        _mentions,
    ),
    ImportKind(
        "entities",
        "name,region plus any attribute columns (country, sector, ...); regions drive the\n"
        "geographic log-odds: United States (also USA, US, U.S.), Europe, Asia, Other, or one\n"
        "already in the database, in any case and spacing; a new one needs --new-region. One\n"
        "row per entity (rows that agree are one); an empty cell keeps the stored value",
        _entities,
        (NEW_REGION,),
        needs_study=False,
    ),
)

EXPORTS = (
    ExportKind("mentions", "mentions (ranked lists)", _mention_records),
    ExportKind("entities", "entities (with regions and attributes)", _entity_records),
)
