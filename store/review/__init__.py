"""Human review of what was extracted: verdicts per reviewer, versions, the blind validation
sample, adjudication, and the corrections a method's review makes (probe labels, catalog
matches).

Its modules (import the one you need: `from workbench.store.review import adjudication`):

    adjudication      Adjudication as a state: a third reviewer settles a list two reviewers ...
    adjudication_log  The lapses of adjudications, as decisions of the log (store/decisions/log.py).
    aids              What the Review screen reads besides its items: where a list on screen ...
    base              What every part of the review of extracted lists reads: a list's names, ...
    match_reviews     Reviewers' corrections of cold-start catalog matches.
    pages             The Review screen's pages (one per list, for a filter) and the progress on ...
    probe_reviews     Human review of transparency-probe labels (identity studies).
    reads             What reviewers and scripts read of the extracted lists: the details of the ...
    repeat            A verdict given twice: the same reviewer, the same list as it reads now, ...
    reviewer_names    A reviewer's name: one rule for every way a name enters, one key wherever ...
    state             The state of a list's review that adjudication reads: who validated it, ...
    validation        Two reviewers as a validation: a stable seeded sample, agreement on the ...
    verdicts          Human review of extracted lists: accept, edit or reject, per reviewer, ...
    versions          What you saw is what you judge: a list's version names what a reviewer is ...
"""

__all__ = [
    "adjudication",
    "adjudication_log",
    "aids",
    "base",
    "match_reviews",
    "pages",
    "probe_reviews",
    "reads",
    "repeat",
    "reviewer_names",
    "state",
    "validation",
    "verdicts",
    "versions",
]
