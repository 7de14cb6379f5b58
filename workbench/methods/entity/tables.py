"""Label-probability audits's tables, as named migrations (`MethodBase.migrations`): the store applies them in
order and records each. Never edit or rename one that has shipped; append a new one.

Until the methods owned their tables these were the store's core migrations 10, word for word
(`workbench.store.method_migrations.CORE_MADE`: a store they made records them as applied)."""

# label_scores (core migration 10 until then): one row per (prompt, label), and entity metadata.
LABEL_SCORES = """
    CREATE TABLE label_scores (
        request_key TEXT NOT NULL REFERENCES requests(key),
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        task TEXT NOT NULL,
        entity TEXT NOT NULL,
        template_id INTEGER NOT NULL,
        language TEXT NOT NULL,
        variant TEXT NOT NULL,
        method TEXT NOT NULL,
        label TEXT NOT NULL,
        intended TEXT,
        weight REAL NOT NULL,
        continuation TEXT NOT NULL,
        logprob REAL,
        prob REAL,
        PRIMARY KEY (request_key, label)
    );
    CREATE INDEX label_scores_study ON label_scores(study_id, model);
    CREATE TABLE entity_meta (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        entity TEXT NOT NULL,
        meta_json TEXT NOT NULL,
        PRIMARY KEY (study_id, entity)
    );
    """

MIGRATIONS = (("label_scores", LABEL_SCORES),)
