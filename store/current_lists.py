"""Which stored rows are the study's now: the one condition every method's reads share."""

from __future__ import annotations


def counts_now(alias: str = "l", column: str = "response_key") -> str:
    """SQL true for a row that counts now: imported (no request behind it, or one no plan
    supersedes), or read from the answer of a request the study still asks. A superseded
    request's rows stay stored, for the log and an edit undone (a model or a question put
    back counts again, unasked), but no count, export, review page or report reads them.
    `column` holds the row's request key: ChoiceEval's lists `response_key`, cold-start's
    rankings, identity's outputs and entity's label scores `request_key`."""
    return (
        f"({alias}.{column} IS NULL OR {alias}.{column} NOT IN "
        "(SELECT key FROM requests WHERE superseded AND key IS NOT NULL))"
    )


def answer_units(stage: str, meta: tuple[str, ...], table: str) -> str:
    """SQL of a stage's requests in the studies with rows in `table`: their study (`study_id`),
    key, model label (`model`) and the payload meta fields named, `nth` 1 for the one that counts
    now (else the latest) of each study, model and meta. How rows read from answers before they
    held their request's key are given it (a method's migration)."""
    fields = ", ".join(f"json_extract(r.payload_json, '$.meta.{name}')" for name in meta)
    named = ", ".join(f"json_extract(r.payload_json, '$.meta.{name}') AS {name}" for name in meta)
    return (
        f"SELECT r.key, r.study_id, m.spec AS model, {named}, ROW_NUMBER() OVER ("
        f"PARTITION BY r.study_id, m.spec, {fields} ORDER BY r.superseded, r.rowid DESC) AS nth "
        f"FROM requests r JOIN models m ON m.id = r.model_id WHERE r.stage = '{stage}' "
        f"AND r.study_id IN (SELECT study_id FROM {table})"
    )
