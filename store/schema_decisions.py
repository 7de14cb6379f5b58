"""Migrations from 19 on: human decisions kept apart from the rows they judge (see schema.py
for how migrations run; never edit one that has shipped)."""

# A migration starting with this runs with foreign keys off (SQLite's way to rebuild a table
# that others reference); `migrate` checks every key before it commits.
FOREIGN_KEYS_OFF = "-- foreign keys off\n"

DECISION_MIGRATIONS: list[str] = [
    # 19: human decisions that outlive the data they judge. A verdict is kept by what it is about
    # (study, model, topic, question, repetition) and the answer the reviewer read, never by a
    # list's row id: re-extraction and re-imports replace lists, and the verdict is re-applied to
    # the new list when it still judges the same answer. Verdicts are per reviewer; a blind one
    # (a second reviewer's, on the validation sample) is compared, never applied. A list a verdict
    # replaced keeps what the machine extracted (`extracted_json`), so undo restores it exactly.
    # Entity decisions take region and attribute assignments too (the table is rebuilt for its
    # CHECK, hence foreign keys off while it runs; see `migrate`).
    FOREIGN_KEYS_OFF
    + """
    CREATE TABLE verdicts (
        id INTEGER PRIMARY KEY,
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        topic TEXT NOT NULL,
        question TEXT NOT NULL,
        repetition INTEGER NOT NULL,
        answer_key TEXT,
        reviewer TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('accept', 'edit', 'reject')),
        before_json TEXT NOT NULL,
        after_json TEXT NOT NULL,
        blind INTEGER NOT NULL DEFAULT 0,
        why TEXT,
        sample TEXT,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX verdicts_scope ON verdicts (study_id, model, topic, question, repetition);
    CREATE INDEX verdicts_reviewer ON verdicts (reviewer, undone);
    INSERT INTO verdicts (id, study_id, model, topic, question, repetition, answer_key, reviewer, decision,
                          before_json, after_json, blind, sample, at, undone)
        SELECT v.id, l.study_id, l.model, l.topic, l.question, l.repetition, l.response_key, v.reviewer,
               v.decision, v.before_json, v.after_json, 0, v.sample, v.at, v.undone
        FROM reviews v JOIN mention_lists l ON l.id = v.list_id;
    ALTER TABLE mention_lists ADD COLUMN extracted_json TEXT;
    -- a reviewed list's extraction is what its first verdict found
    UPDATE mention_lists SET extracted_json = (
        SELECT json_group_array(json_array(j.value, NULL)) FROM json_each(
            (SELECT before_json FROM reviews v WHERE v.list_id = mention_lists.id ORDER BY v.id LIMIT 1)) j)
        WHERE id IN (SELECT list_id FROM reviews);
    DROP TABLE reviews;

    CREATE TABLE entity_decisions_19 (
        id INTEGER PRIMARY KEY,
        action TEXT NOT NULL CHECK (action IN ('merge', 'split', 'rename', 'forbid', 'region', 'attributes')),
        summary TEXT NOT NULL,
        changes_json TEXT NOT NULL,
        who TEXT NOT NULL,
        why TEXT,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO entity_decisions_19 SELECT id, action, summary, changes_json, who, why, at, undone
        FROM entity_decisions;
    DROP TABLE entity_decisions;
    ALTER TABLE entity_decisions_19 RENAME TO entity_decisions;
    CREATE INDEX entity_decisions_who ON entity_decisions (who, undone);
    """,
]

# 25: adjudication as a state. A non-blind verdict by a third reviewer on a list two reviewers
# judged differently settles it: `adjudicates` names the two (a JSON array; NULL for any other
# verdict) and `took` whose list it took (NULL: the adjudicator's own). Agreement and kappa
# compare the two, never the adjudicator; the disagreement leaves the queue.
ADJUDICATION_MIGRATION = """
ALTER TABLE verdicts ADD COLUMN adjudicates TEXT;
ALTER TABLE verdicts ADD COLUMN took TEXT;
"""

# 31: an adjudication settles the two verdicts it was given on, and only those: `settled` holds
# each party's verdict by id (a JSON object). When either party's verdict changes (a new one,
# or one taken back) the adjudication lapses and the list returns to the queue; undoing that
# change puts it back in force (store/review/base.py, `in_force`). `undone_at`: when a verdict
# was taken back (the decision log dates a lapse an undo caused).
LAPSE_MIGRATION = """
ALTER TABLE verdicts ADD COLUMN settled TEXT;
ALTER TABLE verdicts ADD COLUMN undone_at TEXT;
"""
