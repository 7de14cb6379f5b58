"""Which stored ChoiceEval lists are the study's now."""

from __future__ import annotations


def counts_now(alias: str = "l") -> str:
    """SQL true for a list that counts now: imported, or the answer of a request the study
    still asks (a superseded request's list stays stored, for the log and an edit undone,
    but no count, export, review page or report reads it)."""
    return (
        f"({alias}.response_key IS NULL OR {alias}.response_key NOT IN "
        "(SELECT key FROM requests WHERE superseded AND key IS NOT NULL))"
    )
