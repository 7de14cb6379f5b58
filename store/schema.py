"""The store's schema as an ordered list of forward migrations.

`PRAGMA user_version` records how many migrations a database has seen. Opening a
database applies the missing ones in order, each inside one transaction, so a
crash mid-migration leaves the previous version intact. Never edit a migration
that has shipped: append a new one.
"""

from workbench.store import schema_decisions, schema_entities_search, schema_extraction
from workbench.store.schema_decisions import DECISION_MIGRATIONS, FOREIGN_KEYS_OFF  # noqa: F401


def _bump(what: str) -> str:
    return f"UPDATE change_counts SET n = n + 1 WHERE what = '{what}';"


def _logged(changed: str | None) -> str:
    """Migration 17's trigger body: a names change bumps 'names'; a list change bumps
    'lists' and logs the list at the counter's new value (`changed`: the list's id, or
    'supersede' for the lists of a superseded request)."""
    if changed is None:
        return _bump("names")
    at = "(SELECT n FROM change_counts WHERE what = 'lists')"
    if changed == "supersede":
        log = f"INSERT OR REPLACE INTO list_changes SELECT id, {at} FROM mention_lists WHERE response_key = NEW.key;"
    else:
        log = f"INSERT OR REPLACE INTO list_changes VALUES ({changed}, {at});"
    return _bump("lists") + " " + log


# (trigger, event, what it changes): what moves migration 16's counter and 17's log
_EVENTS = (
    ("lists_insert", "INSERT ON mention_lists", "NEW.id"),
    ("lists_update", "UPDATE ON mention_lists", "NEW.id"),
    ("lists_delete", "DELETE ON mention_lists", "OLD.id"),
    ("mentions_delete", "DELETE ON mentions", "OLD.list_id"),
    ("aliases_insert", "INSERT ON aliases", None),
    ("aliases_update", "UPDATE ON aliases", None),
    ("aliases_delete", "DELETE ON aliases", None),
    ("entities_rename", "UPDATE OF name ON entities", None),
    ("entities_delete", "DELETE ON entities", None),
    ("requests_supersede", "UPDATE OF superseded ON requests WHEN OLD.superseded IS NOT NEW.superseded", "supersede"),
)
_COUNTED = [(name, event, _bump("lists")) for name, event, _ in _EVENTS]
_COUNTED_17 = [(name, event, _logged(changed)) for name, event, changed in _EVENTS]

MIGRATIONS: list[str] = [
    # 1: the audit spine — studies, models, the request queue and its responses.
    """
    CREATE TABLE studies (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        method TEXT NOT NULL,
        source_path TEXT,
        spec_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

    -- One row per distinct model identity: what makes answers comparable (file
    -- hash of a GGUF, or model name and base URL of a server, plus the options
    -- that change answers). `spec` is how the user named it, without transport
    -- options or secrets.
    CREATE TABLE models (
        id INTEGER PRIMARY KEY,
        identity TEXT NOT NULL UNIQUE,
        spec TEXT NOT NULL,
        engine TEXT NOT NULL,
        name TEXT NOT NULL,
        base_url TEXT,
        file_path TEXT,
        file_hash TEXT,
        params_json TEXT NOT NULL,
        created_at TEXT NOT NULL
    );

    CREATE TABLE questions (
        id INTEGER PRIMARY KEY,
        study_id INTEGER NOT NULL REFERENCES studies(id),
        topic TEXT NOT NULL,
        cluster TEXT NOT NULL,
        cluster_label TEXT,
        position INTEGER NOT NULL,
        text TEXT NOT NULL,
        source TEXT NOT NULL,
        verified INTEGER NOT NULL DEFAULT 0,
        UNIQUE (study_id, topic, cluster, text)
    );

    -- The queue is the database: planning inserts with INSERT OR IGNORE on the
    -- deterministic key, running claims pending rows, and a result commits
    -- together with its status change.
    CREATE TABLE requests (
        key TEXT PRIMARY KEY,
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model_id INTEGER NOT NULL REFERENCES models(id),
        stage TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'running', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        question_id INTEGER REFERENCES questions(id),
        repetition INTEGER,
        seed INTEGER,
        payload_json TEXT NOT NULL,
        claimed_by TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX requests_status ON requests (study_id, model_id, stage, status);

    CREATE TABLE responses (
        id INTEGER PRIMARY KEY,
        request_key TEXT NOT NULL UNIQUE REFERENCES requests(key),
        text TEXT NOT NULL,
        finish_reason TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        logprobs_json TEXT,
        latency_s REAL NOT NULL,
        model_identity TEXT NOT NULL,
        seed INTEGER,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL
    );

    -- Every error a request met, including the ones a retry survived, so that
    -- `status` can show what a run went through.
    CREATE TABLE request_errors (
        id INTEGER PRIMARY KEY,
        request_key TEXT NOT NULL REFERENCES requests(key),
        attempt INTEGER NOT NULL,
        kind TEXT NOT NULL,
        message TEXT NOT NULL,
        final INTEGER NOT NULL DEFAULT 0,
        at TEXT NOT NULL
    );
    CREATE INDEX request_errors_key ON request_errors (request_key);
    """,
    # 2: ChoiceEval results — entities, surface forms, ranked lists per response.
    """
    CREATE TABLE entities (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        region TEXT,
        attributes_json TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
    );

    -- Surface form (normalised) -> entity. Metrics always join through here, so
    -- a reviewer's merge changes every table at once.
    CREATE TABLE aliases (
        surface_key TEXT PRIMARY KEY,
        entity_id INTEGER NOT NULL REFERENCES entities(id)
    );
    CREATE INDEX aliases_entity ON aliases (entity_id);

    -- One ranked list per answer (question x repetition x model): voted from the
    -- experts, parsed by the list extractor, or imported.
    CREATE TABLE mention_lists (
        id INTEGER PRIMARY KEY,
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        topic TEXT NOT NULL,
        cluster TEXT,
        question TEXT NOT NULL,
        repetition INTEGER NOT NULL,
        source TEXT NOT NULL,
        response_key TEXT,
        n_experts INTEGER,
        agreement REAL,
        UNIQUE (study_id, model, topic, question, repetition)
    );

    CREATE TABLE mentions (
        list_id INTEGER NOT NULL REFERENCES mention_lists(id) ON DELETE CASCADE,
        rank INTEGER NOT NULL,
        surface TEXT NOT NULL,
        surface_key TEXT NOT NULL,
        votes INTEGER,
        PRIMARY KEY (list_id, rank)
    );
    CREATE INDEX mentions_surface ON mentions (surface_key);

    -- What each extraction expert returned for an answer; unparseable replies
    -- are kept (parsed = 0) and counted, their text stays in responses.
    CREATE TABLE expert_lists (
        request_key TEXT PRIMARY KEY REFERENCES requests(key),
        response_key TEXT NOT NULL,
        expert INTEGER NOT NULL,
        entities_json TEXT NOT NULL,
        parsed INTEGER NOT NULL
    );
    CREATE INDEX expert_lists_response ON expert_lists (response_key);

    -- An extraction request points at the answer it reads.
    ALTER TABLE requests ADD COLUMN parent_key TEXT;
    CREATE INDEX requests_parent ON requests (parent_key);

    -- Requests planned by an earlier version of a study file (another question
    -- text, temperature, ...) stay stored but no longer count or run.
    ALTER TABLE requests ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: where a generated question came from (model, request, adapted cluster).
    """
    ALTER TABLE questions ADD COLUMN provenance_json TEXT;
    """,
    # 4: reviewers' edits of question texts, so that re-reading the study file
    # does not bring the old wording back.
    """
    CREATE TABLE question_edits (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        topic TEXT NOT NULL,
        cluster TEXT NOT NULL,
        old_text TEXT NOT NULL,
        new_text TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (study_id, topic, cluster, old_text)
    );
    """,
    # 5: reviewers' decisions on entities (merge, split, rename, forbid), with who,
    # when and why, and what each changed, so any of them can be undone and redone.
    """
    CREATE TABLE entity_decisions (
        id INTEGER PRIMARY KEY,
        action TEXT NOT NULL CHECK (action IN ('merge', 'split', 'rename', 'forbid')),
        summary TEXT NOT NULL,
        changes_json TEXT NOT NULL,
        who TEXT NOT NULL,
        why TEXT,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );

    -- Pairs a reviewer said are different entities: never suggested again.
    CREATE TABLE forbidden_pairs (
        entity_a INTEGER NOT NULL REFERENCES entities(id),
        entity_b INTEGER NOT NULL REFERENCES entities(id),
        decision_id INTEGER REFERENCES entity_decisions(id),
        PRIMARY KEY (entity_a, entity_b),
        CHECK (entity_a < entity_b)
    );
    """,
    # 6: reviewers' verdicts on extracted lists (accept, edit, reject), undoable,
    # optionally within a named validation sample for a second reviewer.
    """
    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY,
        list_id INTEGER NOT NULL REFERENCES mention_lists(id),
        reviewer TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('accept', 'edit', 'reject')),
        before_json TEXT NOT NULL,
        after_json TEXT NOT NULL,
        sample TEXT,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX reviews_list ON reviews (list_id);
    """,
    # 7 to 12 made the built-in methods' tables until each method owned its own (their SQL is now
    # the methods' named migrations, word for word: workbench/methods/*/tables.py). Their numbers
    # stay, as no-ops, so a store of any earlier version still upgrades in order; a store they
    # made records those methods' migrations as applied (store/method_migrations.py).
    "",  # 7: cold-start rankings and catalog (coldstart: rankings)
    "",  # 8: identity outputs, recommendations, reference shares (identity: outputs)
    "",  # 9: identity probe labels and probe reviews (identity: probe_labels)
    "",  # 10: label scores and entity metadata (entity: label_scores)
    "",  # 11: how an identity answer was read (identity: parse_mode)
    "",  # 12: cold-start match corrections (coldstart: match_corrections)
    # 13: replies kept whole although a server sent unencodable text (how many characters
    # were replaced), and answers one study shares with another that asked the same thing
    """
    ALTER TABLE responses ADD COLUMN replaced_chars INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE responses ADD COLUMN shared_from TEXT;
    """,
    # 14: regions and attributes imported for names no entity has yet (a region table is
    # usually imported first); applied to the entity as soon as one appears under that name
    """
    CREATE TABLE pending_attributes (
        surface_key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        region TEXT,
        attributes_json TEXT NOT NULL DEFAULT '{}',
        imported_at TEXT NOT NULL
    );
    """,
    # 15: how many sequences the local engine decoded together when it made an answer (NULL:
    # one at a time, or a server's answer; above 1 a seeded answer may differ in the last
    # bits), which replica of a pool answered, and each replica's health as the run saw it
    """
    ALTER TABLE responses ADD COLUMN parallel INTEGER;
    ALTER TABLE responses ADD COLUMN endpoint TEXT;
    CREATE TABLE endpoint_health (
        model_id INTEGER NOT NULL REFERENCES models(id),
        url TEXT NOT NULL,
        state TEXT NOT NULL,
        done INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        in_flight INTEGER NOT NULL,
        latency_s REAL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (model_id, url)
    );
    """,
    # 16: a counter of every change to what ranked lists are made of (lists, their mentions,
    # the alias registry, entity names, superseded requests), kept by triggers so that no
    # writer, in any process, can change a list without it: the Metrics screen reuses the
    # lists it loaded while the counter stands still (a region assignment does not move it).
    """
    CREATE TABLE change_counts (what TEXT PRIMARY KEY, n INTEGER NOT NULL);
    INSERT INTO change_counts VALUES ('lists', 0);
    -- which store this is: a file deleted and made again at the same path starts a new one
    INSERT INTO change_counts VALUES ('store', abs(random()));
    """
    + "".join(f"CREATE TRIGGER {name} AFTER {event} BEGIN {body} END;\n" for name, event, body in _COUNTED),
    # 17: which lists changed, and a counter of their own for names. A reviewer's edit
    # changes one list of a million: the Metrics screen re-reads the lists logged since it
    # last looked, not all of them. A merge or a rename changes no list, only which entity
    # a spelling resolves to ('names'), which costs a look-up table, not a reload.
    """
    INSERT INTO change_counts VALUES ('names', 0);
    CREATE TABLE list_changes (list_id INTEGER PRIMARY KEY, at INTEGER NOT NULL);
    CREATE INDEX mention_lists_response ON mention_lists (response_key);
    """
    + "".join(f"DROP TRIGGER {name};\n" for name, _event, _body in _COUNTED)
    + "".join(f"CREATE TRIGGER {name} AFTER {event} BEGIN {body} END;\n" for name, event, body in _COUNTED_17),
    # 18: the log misses no change by hand either: a mention updated in place (its list, old
    # and new, is logged) and a list renumbered (its old id too). A mention inserted into an
    # existing list must touch the list (UPDATE mention_lists SET id = id), as a review edit
    # does: a trigger on every inserted mention would double the cost of an import.
    f"""
    DROP TRIGGER lists_update;
    CREATE TRIGGER lists_update AFTER UPDATE ON mention_lists BEGIN {_logged("OLD.id")} {_logged("NEW.id")} END;
    CREATE TRIGGER mentions_update AFTER UPDATE ON mentions BEGIN {_logged("OLD.list_id")} {_logged("NEW.list_id")} END;
    """,
]
MIGRATIONS += DECISION_MIGRATIONS
MIGRATIONS += [
    # 20: what each model's plan was made from (store/requests/plan_marks.py): a resumed run of an
    # unchanged study starts asking at once instead of planning a million requests again.
    """
    CREATE TABLE plan_marks (
        study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
        model_id INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        study_digest TEXT NOT NULL,
        context_digest TEXT NOT NULL,
        total INTEGER NOT NULL,
        planned_at TEXT NOT NULL,
        PRIMARY KEY (study_id, model_id)
    );
    """,
    # 21: the model name each reply carried: a replica serving another model than the one
    # asked for is seen (and counted per replica) instead of mixed in unseen.
    "ALTER TABLE responses ADD COLUMN served_model TEXT;",
    # 22: the entities a majority of experts named that the answer's text does not contain
    # (grounding): dropped from the list or kept and flagged, either way counted and shown.
    "ALTER TABLE mention_lists ADD COLUMN ungrounded_json TEXT;",
    # 23: what each unit of a model's plan was made from (a ChoiceEval question; see
    # store/requests/plan_marks.py): an edited study plans again only the units it changed. `keys`
    # are the unit's planned request keys, so that a unit that goes away can supersede them;
    # an empty digest marks a unit being planned again (a run killed there redoes it).
    """
    CREATE TABLE plan_units (
        study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
        model_id INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        unit TEXT NOT NULL,
        digest TEXT NOT NULL,
        total INTEGER NOT NULL,
        keys BLOB NOT NULL,
        PRIMARY KEY (study_id, model_id, unit)
    );
    """,
    # 24: whether the study file has a question (store/requests/questions.py, `sync_file_questions`):
    # 1 it has it now, 0 it had it and dropped it (kept for its answers, asked no more),
    # NULL never from the file (imported, generated, added in the app).
    "ALTER TABLE questions ADD COLUMN in_file INTEGER;",
    schema_decisions.ADJUDICATION_MIGRATION,  # 25
    schema_entities_search.MERGED_INTO,  # 26
    schema_entities_search.ANSWER_SEARCH,  # 27
    # 28: mentions counted per spelling from an index alone (store/entities/counts.py): the
    # Entities screen, following the store, read every mention row through its alias each
    # time (5.6 s at 1,080,000 rows). The surface key's own index is this one's prefix.
    """
    DROP INDEX mentions_surface;
    CREATE INDEX mentions_spelling ON mentions (surface_key, surface);
    """,
    # 29: the superseded requests alone (current_lists.counts_now asks for them in every read of
    # lists that count): read from this index, not from every request (67 ms -> 6 ms for a page
    # of 50 review items at a million requests).
    "CREATE INDEX requests_superseded ON requests (key) WHERE superseded;",
    schema_extraction.EXTRACTED_WITH,  # 30
    schema_decisions.LAPSE_MIGRATION,  # 31
    schema_extraction.FLAGGED,  # 32
]

SCHEMA_VERSION = len(MIGRATIONS)
