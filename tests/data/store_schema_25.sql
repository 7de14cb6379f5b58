-- A store as the workbench wrote it at schema version 25, when core migrations 7 to 12 still made
-- the cold-start, identity and entity methods' tables: a few rows in each of those tables
-- (tests/test_method_tables.py). Made with the store's own code (workbench.store.db.connect),
-- dumped by sqlite3's iterdump; loaded with executescript.
PRAGMA application_id = 1096237617;
PRAGMA user_version = 25;
BEGIN TRANSACTION;
CREATE TABLE aliases (
        surface_key TEXT PRIMARY KEY,
        entity_id INTEGER NOT NULL REFERENCES entities(id)
    );
CREATE TABLE catalog_items (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        position INTEGER NOT NULL,
        item TEXT NOT NULL,
        attributes_json TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (study_id, position)
    );
INSERT INTO "catalog_items" VALUES(1,1,'Alien','{"year": 1979}');
INSERT INTO "catalog_items" VALUES(1,2,'Heat','{}');
CREATE TABLE change_counts (what TEXT PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO "change_counts" VALUES('lists',0);
INSERT INTO "change_counts" VALUES('store',7237719268616156616);
INSERT INTO "change_counts" VALUES('names',0);
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
CREATE TABLE entities (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        region TEXT,
        attributes_json TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
    );
CREATE TABLE "entity_decisions" (
        id INTEGER PRIMARY KEY,
        action TEXT NOT NULL CHECK (action IN ('merge', 'split', 'rename', 'forbid', 'region', 'attributes')),
        summary TEXT NOT NULL,
        changes_json TEXT NOT NULL,
        who TEXT NOT NULL,
        why TEXT,
        at TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
CREATE TABLE entity_meta (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        entity TEXT NOT NULL,
        meta_json TEXT NOT NULL,
        PRIMARY KEY (study_id, entity)
    );
INSERT INTO "entity_meta" VALUES(3,'France','{"region": "Europe"}');
CREATE TABLE expert_lists (
        request_key TEXT PRIMARY KEY REFERENCES requests(key),
        response_key TEXT NOT NULL,
        expert INTEGER NOT NULL,
        entities_json TEXT NOT NULL,
        parsed INTEGER NOT NULL
    );
CREATE TABLE forbidden_pairs (
        entity_a INTEGER NOT NULL REFERENCES entities(id),
        entity_b INTEGER NOT NULL REFERENCES entities(id),
        decision_id INTEGER REFERENCES entity_decisions(id),
        PRIMARY KEY (entity_a, entity_b),
        CHECK (entity_a < entity_b)
    );
CREATE TABLE identity_outputs (
        request_key TEXT PRIMARY KEY REFERENCES requests(key),
        study_id INTEGER NOT NULL REFERENCES studies(id),
        model TEXT NOT NULL,
        grp TEXT NOT NULL,
        condition TEXT NOT NULL,
        parsed INTEGER NOT NULL,
        probe_label TEXT
    , probe_rule_label TEXT, probe_judge_label TEXT, probe_label_source TEXT, parse_mode TEXT);
INSERT INTO "identity_outputs" VALUES('r-id1',2,'m1','women','explicit',1,'yes','yes',NULL,'rules','json');
INSERT INTO "identity_outputs" VALUES('r-id2',2,'m1','men','implicit',0,NULL,NULL,'no','judge','list');
CREATE TABLE identity_recommendations (
        request_key TEXT NOT NULL REFERENCES identity_outputs(request_key),
        rank INTEGER NOT NULL,
        item TEXT NOT NULL,
        explanation TEXT,
        PRIMARY KEY (request_key, rank)
    );
INSERT INTO "identity_recommendations" VALUES('r-id1',1,'MIT','strong programme');
INSERT INTO "identity_recommendations" VALUES('r-id1',2,'ETH',NULL);
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
INSERT INTO "label_scores" VALUES('r-ent',3,'m1','urgency','France',0,'en','base','exact','urgent','urgent',1.0,' urgent',-0.5,0.6065);
INSERT INTO "label_scores" VALUES('r-ent',3,'m1','urgency','France',0,'en','base','exact','calm',NULL,1.0,' calm',NULL,NULL);
CREATE TABLE list_changes (list_id INTEGER PRIMARY KEY, at INTEGER NOT NULL);
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
INSERT INTO "match_corrections" VALUES(1,1,'m1',0,'gender','a woman',2,'Unknown Film',NULL,'Heat','ana','2026-01-01T00:00:00.000+00:00',0);
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
        agreement REAL, extracted_json TEXT, ungrounded_json TEXT,
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
INSERT INTO "models" VALUES(1,'m1','m1','openai','m1',NULL,NULL,NULL,'{}','2026-01-01T00:00:00.000+00:00');
CREATE TABLE pending_attributes (
        surface_key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        region TEXT,
        attributes_json TEXT NOT NULL DEFAULT '{}',
        imported_at TEXT NOT NULL
    );
CREATE TABLE plan_marks (
        study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
        model_id INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        study_digest TEXT NOT NULL,
        context_digest TEXT NOT NULL,
        total INTEGER NOT NULL,
        planned_at TEXT NOT NULL,
        PRIMARY KEY (study_id, model_id)
    );
CREATE TABLE plan_units (
        study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
        model_id INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        unit TEXT NOT NULL,
        digest TEXT NOT NULL,
        total INTEGER NOT NULL,
        keys BLOB NOT NULL,
        PRIMARY KEY (study_id, model_id, unit)
    );
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
INSERT INTO "probe_reviews" VALUES(1,'r-id2','ana','yes','no','judge','2026-01-01T00:00:00.000+00:00',0);
CREATE TABLE question_edits (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        topic TEXT NOT NULL,
        cluster TEXT NOT NULL,
        old_text TEXT NOT NULL,
        new_text TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (study_id, topic, cluster, old_text)
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
        verified INTEGER NOT NULL DEFAULT 0, provenance_json TEXT, in_file INTEGER,
        UNIQUE (study_id, topic, cluster, text)
    );
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
INSERT INTO "rankings" VALUES(1,'m1',0,'gender','a woman',1,'Alien','alien',1.0,0);
INSERT INTO "rankings" VALUES(1,'m1',0,'gender','a woman',2,NULL,'Unknown Film',NULL,0);
INSERT INTO "rankings" VALUES(1,'m1',0,'gender','a woman',3,'Alien','Alien',1.0,1);
CREATE TABLE reference_shares (
        study_id INTEGER NOT NULL REFERENCES studies(id),
        item TEXT NOT NULL,
        grp TEXT NOT NULL,
        share REAL NOT NULL,
        count REAL,
        group_total REAL,
        PRIMARY KEY (study_id, item, grp)
    );
INSERT INTO "reference_shares" VALUES(2,'MIT','women',0.4,40.0,100.0);
INSERT INTO "reference_shares" VALUES(2,'MIT','men',0.6,NULL,NULL);
CREATE TABLE request_errors (
        id INTEGER PRIMARY KEY,
        request_key TEXT NOT NULL REFERENCES requests(key),
        attempt INTEGER NOT NULL,
        kind TEXT NOT NULL,
        message TEXT NOT NULL,
        final INTEGER NOT NULL DEFAULT 0,
        at TEXT NOT NULL
    );
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
    , parent_key TEXT, superseded INTEGER NOT NULL DEFAULT 0);
INSERT INTO "requests" VALUES('r-cold',1,1,'answer','done',0,NULL,NULL,NULL,NULL,'{}',NULL,'2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00',NULL,0);
INSERT INTO "requests" VALUES('r-id1',2,1,'answer','done',0,NULL,NULL,NULL,NULL,'{}',NULL,'2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00',NULL,0);
INSERT INTO "requests" VALUES('r-id2',2,1,'answer','done',0,NULL,NULL,NULL,NULL,'{}',NULL,'2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00',NULL,0);
INSERT INTO "requests" VALUES('r-ent',3,1,'score','done',0,NULL,NULL,NULL,NULL,'{}',NULL,'2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00',NULL,0);
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
    , replaced_chars INTEGER NOT NULL DEFAULT 0, shared_from TEXT, parallel INTEGER, endpoint TEXT, served_model TEXT);
CREATE TABLE studies (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        method TEXT NOT NULL,
        source_path TEXT,
        spec_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
INSERT INTO "studies" VALUES(1,'movies','coldstart',NULL,'{}','2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00');
INSERT INTO "studies" VALUES(2,'unis','identity',NULL,'{}','2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00');
INSERT INTO "studies" VALUES(3,'urgency','entity',NULL,'{}','2026-01-01T00:00:00.000+00:00','2026-01-01T00:00:00.000+00:00');
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
    , adjudicates TEXT, took TEXT);
CREATE INDEX requests_status ON requests (study_id, model_id, stage, status);
CREATE INDEX request_errors_key ON request_errors (request_key);
CREATE INDEX aliases_entity ON aliases (entity_id);
CREATE INDEX mentions_surface ON mentions (surface_key);
CREATE INDEX expert_lists_response ON expert_lists (response_key);
CREATE INDEX requests_parent ON requests (parent_key);
CREATE INDEX probe_reviews_key ON probe_reviews(request_key);
CREATE INDEX label_scores_study ON label_scores(study_id, model);
CREATE INDEX mention_lists_response ON mention_lists (response_key);
CREATE INDEX verdicts_scope ON verdicts (study_id, model, topic, question, repetition);
CREATE INDEX verdicts_reviewer ON verdicts (reviewer, undone);
CREATE INDEX entity_decisions_who ON entity_decisions (who, undone);
CREATE TRIGGER lists_insert AFTER INSERT ON mention_lists BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (NEW.id, (SELECT n FROM change_counts WHERE what = 'lists')); END;
CREATE TRIGGER lists_delete AFTER DELETE ON mention_lists BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (OLD.id, (SELECT n FROM change_counts WHERE what = 'lists')); END;
CREATE TRIGGER mentions_delete AFTER DELETE ON mentions BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (OLD.list_id, (SELECT n FROM change_counts WHERE what = 'lists')); END;
CREATE TRIGGER aliases_insert AFTER INSERT ON aliases BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'names'; END;
CREATE TRIGGER aliases_update AFTER UPDATE ON aliases BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'names'; END;
CREATE TRIGGER aliases_delete AFTER DELETE ON aliases BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'names'; END;
CREATE TRIGGER entities_rename AFTER UPDATE OF name ON entities BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'names'; END;
CREATE TRIGGER entities_delete AFTER DELETE ON entities BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'names'; END;
CREATE TRIGGER requests_supersede AFTER UPDATE OF superseded ON requests WHEN OLD.superseded IS NOT NEW.superseded BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes SELECT id, (SELECT n FROM change_counts WHERE what = 'lists') FROM mention_lists WHERE response_key = NEW.key; END;
CREATE TRIGGER lists_update AFTER UPDATE ON mention_lists BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (OLD.id, (SELECT n FROM change_counts WHERE what = 'lists')); UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (NEW.id, (SELECT n FROM change_counts WHERE what = 'lists')); END;
CREATE TRIGGER mentions_update AFTER UPDATE ON mentions BEGIN UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (OLD.list_id, (SELECT n FROM change_counts WHERE what = 'lists')); UPDATE change_counts SET n = n + 1 WHERE what = 'lists'; INSERT OR REPLACE INTO list_changes VALUES (NEW.list_id, (SELECT n FROM change_counts WHERE what = 'lists')); END;
COMMIT;
