"""The audit question a report answers, in plain words, first in its summary: what was asked
of which models, as a reader who never saw the study file would put it."""

from __future__ import annotations

from workbench.display.metric_views import short_labels

QUESTIONS = {
    "choice": "Which brands {does} {models} recommend{topics}, and does it depend on who asks?",
    "coldstart": "{Does} {models} recommend other items when the user says who they are than when it knows "
    "nothing of them?",
    "identity": "{Does} {models} answer differently when the user says who they are?",
    "entity": "Which labels {does} {models} give each entity, and do they differ between groups of entities?",
}


def _names(items: list[str]) -> str:
    if len(items) > 3:
        return f"each of {len(items)} models"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def audit_question(method: str, models: list[str], topics: list[str]) -> str:
    """ "Which brands does llama:default recommend for running shoes, and does it depend on who asks?"."""
    short = short_labels(models)
    who = _names([short[m] for m in models]) if models else "the model"
    shown = f" for {_names(topics)}" if 0 < len(topics) <= 3 else f" on {len(topics)} topics" if topics else ""
    question = QUESTIONS.get(method, "What does this " + method + " study find about {models}?")
    does = "does" if len(models) <= 1 else "do"
    return "The question: " + question.format(models=who, topics=shown, does=does, Does=does.capitalize())
