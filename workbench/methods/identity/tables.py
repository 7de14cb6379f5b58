"""Identity disclosure's tables, as named migrations (`MethodBase.migrations`): the store applies them in
order and records each. Never edit or rename one that has shipped; append a new one.

Until the methods owned their tables these were the store's core migrations 8, 9, 11, word for word
(`workbench.store.method_migrations.CORE_MADE`: a store they made records them as applied)."""

# outputs (core migration 8 until then): each answer's parsed recommendations, the transparency
# probe's label, and the reference shares alignment is measured against.
OUTPUTS = """
    CREATE TABLE identity_outputs (
        request_key TEXT PRIMARY KEY REFERENCES requests(key),
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        grp TEXT NOT NULL,
        condition TEXT NOT NULL,
        parsed INTEGER NOT NULL,
        probe_label TEXT
    );
    CREATE TABLE identity_recommendations (
        request_key TEXT NOT NULL REFERENCES identity_outputs(request_key),
        rank INTEGER NOT NULL,
        item TEXT NOT NULL,
        explanation TEXT,
        PRIMARY KEY (request_key, rank)
    );
    CREATE TABLE reference_shares (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        item TEXT NOT NULL,
        grp TEXT NOT NULL,
        share REAL NOT NULL,
        count REAL,
        group_total REAL,
        PRIMARY KEY (study_id, item, grp)
    );
    """

# probe_labels (core migration 9 until then): probe labels from rules, an LLM judge and human
# reviewers (the human one wins; undoable).
PROBE_LABELS = """
    ALTER TABLE identity_outputs ADD COLUMN probe_rule_label TEXT;
    ALTER TABLE identity_outputs ADD COLUMN probe_judge_label TEXT;
    ALTER TABLE identity_outputs ADD COLUMN probe_label_source TEXT;
    UPDATE identity_outputs SET probe_rule_label = probe_label, probe_label_source = 'rules'
        WHERE probe_label IS NOT NULL;
    CREATE TABLE probe_reviews (
        id INTEGER PRIMARY KEY,
        request_key TEXT NOT NULL REFERENCES identity_outputs(request_key),
        reviewer TEXT NOT NULL,
        label TEXT NOT NULL,
        previous_label TEXT,
        previous_source TEXT,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX probe_reviews_key ON probe_reviews(request_key);
    """

# parse_mode (core migration 11 until then): how an answer was read: its JSON, or (failing that)
# its list items.
PARSE_MODE = """
    ALTER TABLE identity_outputs ADD COLUMN parse_mode TEXT;
    UPDATE identity_outputs SET parse_mode = 'json' WHERE parsed = 1;
    """

MIGRATIONS = (("outputs", OUTPUTS), ("probe_labels", PROBE_LABELS), ("parse_mode", PARSE_MODE))
