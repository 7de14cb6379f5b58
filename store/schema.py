"""The store's schema as an ordered list of forward migrations.

`PRAGMA user_version` records how many migrations a database has seen. Opening a
database applies the missing ones in order, each inside one transaction, so a
crash mid-migration leaves the previous version intact. Never edit a migration
that has shipped: append a new one.
"""

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
]

SCHEMA_VERSION = len(MIGRATIONS)
