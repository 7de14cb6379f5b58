"""Cold-start re-ranking's tables, as named migrations (`MethodBase.migrations`): the store applies them in
order and records each. Never edit or rename one that has shipped; append a new one.

Until the methods owned their tables these were the store's core migrations 7, 12, word for word
(`workbench.store.method_migrations.CORE_MADE`: a store they made records them as applied)."""

from workbench.store.current_lists import answer_units

# rankings (core migration 7 until then): ranked catalog items per model, seed and user persona,
# and the catalog.
RANKINGS = """
    -- item is NULL for an out-of-catalog item; duplicate marks a repeat.
    CREATE TABLE rankings (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        seed INTEGER NOT NULL,
        persona_category TEXT NOT NULL,
        persona TEXT NOT NULL,
        rank INTEGER NOT NULL,
        item TEXT,
        surface TEXT,
        match_score REAL,
        duplicate INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (study_id, model, seed, persona_category, persona, rank)
    );

    -- The catalog a study ranks from, in its given order (position = catalog rank).
    CREATE TABLE catalog_items (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        position INTEGER NOT NULL,
        item TEXT NOT NULL,
        attributes_json TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (study_id, position)
    );
    """

# match_corrections (core migration 12 until then): reviewers' corrections of catalog matches, re-
# applied whenever answers are re-parsed.
MATCH_CORRECTIONS = """
    CREATE TABLE match_corrections (
        id INTEGER PRIMARY KEY,
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        seed INTEGER NOT NULL,
        persona_category TEXT NOT NULL,
        persona TEXT NOT NULL,
        rank INTEGER NOT NULL,
        surface TEXT,
        old_item TEXT,
        new_item TEXT,
        reviewer TEXT NOT NULL,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    """

# ranking_keys: the answer (request) a ranking was read from, so that a ranking counts only while
# its request does (`workbench.store.current_lists.counts_now`): a model removed from the study
# file, or a seed dropped, stops counting, its rankings kept. NULL for an imported ranking, which
# always counts. Rankings parsed before are given the key of their study's answer to the same
# model, seed and persona (a current one first).
RANKING_KEYS = f"""
    ALTER TABLE rankings ADD COLUMN request_key TEXT;
    UPDATE rankings SET request_key = asked.key
    FROM ({answer_units("answer", ("seed", "persona_category", "persona"), "rankings")}) AS asked
    WHERE asked.nth = 1 AND asked.study_id = rankings.study_id AND asked.model = rankings.model
        AND asked.seed = rankings.seed AND asked.persona_category = rankings.persona_category
        AND asked.persona = rankings.persona;
    """

MIGRATIONS = (("rankings", RANKINGS), ("match_corrections", MATCH_CORRECTIONS), ("ranking_keys", RANKING_KEYS))
