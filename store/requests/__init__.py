"""Studies, their models and questions, and the request queue: what is asked, claimed, answered,
imported.

Its modules (import the one you need: `from workbench.store.requests import answer_texts`):

    answer_texts    The text of answers by their request keys: what the evidence behind a number ...
    answers         The answers a method reads back from the queue: a study's current requests ...
    endpoints       Replicas of one model (a pool of endpoints): each one's health as the running
    file_questions  A study file's questions in the store: the file is the truth of what is asked.
    holdings        What a store holds beside requests: lists imported from elsewhere ...
    imported        Requests answered elsewhere: a method's import stores them in the queue as ...
    plan_marks      What each model's plan was made from, so a resumed run can skip planning it ...
    plan_reads      What `workbench compare` and `workbench plan` read beside the lists: a ...
    provenance      Where each answer came from, for the responses export: the request as the ...
    questions       A study's questions: stored once per wording, edited with their history, ...
    queue           The persistent request queue: plan, claim, complete, fail, release (the ...
    served          Which model each reply said it came from, against the model asked for.
    staging         Keys an import has seen, with the line that first gave each, kept out of memory.
    studies         The studies and models tables: a study's row as the methods read it (its id, ...
"""

__all__ = [
    "answer_texts",
    "answers",
    "endpoints",
    "file_questions",
    "holdings",
    "imported",
    "plan_marks",
    "plan_reads",
    "provenance",
    "questions",
    "queue",
    "served",
    "staging",
    "studies",
]
