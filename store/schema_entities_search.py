"""Migrations for merged entities and answer search (see schema.py for how migrations run;
never edit one that has shipped)."""

# merged_into: an entity a merge emptied (it holds no spelling any more) keeps its row, so that
# the merge can be undone and its id never goes to another entity; SQL over `entities` counted
# it as an entity of its own. Triggers on the alias registry keep the column whatever writes it
# (a merge, an undo, a redo, a split, an import): an entity that loses its last spelling points
# at the entity that took it; one that gets a spelling again points nowhere. A store from before
# is filled from its decision log: the latest decision that took spellings away from the emptied
# entity (a standing one's "to", or an undone one's "from": undoing a split empties the entity
# it made); a later decision id is a later event (an undone decision was made, and undone,
# after every standing one it could clash with).
MERGED_INTO = """
ALTER TABLE entities ADD COLUMN merged_into INTEGER REFERENCES entities(id);
CREATE TEMP TABLE merge_moves AS
    SELECT d.id AS decision, json_extract(c.value, '$.from') AS entity, json_extract(c.value, '$.to') AS target
    FROM entity_decisions d, json_each(d.changes_json) c
    WHERE d.undone = 0 AND json_extract(c.value, '$.op') = 'alias'
    UNION ALL
    SELECT d.id, json_extract(c.value, '$.to'), json_extract(c.value, '$.from')
    FROM entity_decisions d, json_each(d.changes_json) c
    WHERE d.undone != 0 AND json_extract(c.value, '$.op') = 'alias';
CREATE INDEX temp.merge_moves_entity ON merge_moves (entity, decision);
UPDATE entities SET merged_into = (
    SELECT m.target FROM temp.merge_moves m WHERE m.entity = entities.id ORDER BY m.decision DESC LIMIT 1)
    WHERE NOT EXISTS (SELECT 1 FROM aliases x WHERE x.entity_id = entities.id);
DROP TABLE temp.merge_moves;
CREATE TRIGGER entities_merged_away AFTER UPDATE OF entity_id ON aliases
    WHEN OLD.entity_id IS NOT NEW.entity_id BEGIN
    UPDATE entities SET merged_into = NULL WHERE id = NEW.entity_id AND merged_into IS NOT NULL;
    UPDATE entities SET merged_into = NEW.entity_id
        WHERE id = OLD.entity_id AND NOT EXISTS (SELECT 1 FROM aliases WHERE entity_id = OLD.entity_id);
END;
CREATE TRIGGER entities_spelling_added AFTER INSERT ON aliases BEGIN
    UPDATE entities SET merged_into = NULL WHERE id = NEW.entity_id AND merged_into IS NOT NULL;
END;
-- One row per entity that holds a spelling: what metrics count as an entity.
CREATE VIEW live_entities AS
    SELECT e.id, e.name, e.region, e.attributes_json, e.created_at FROM entities e
    WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id);
-- Every emptied entity with the live entity its spellings are in now, following merged_into
-- (Puma into Nike, then Nike into Adidas: Puma is in Adidas).
CREATE VIEW merged_entities AS
    WITH RECURSIVE chain (id, name, merged_into, at, depth) AS (
        SELECT id, name, merged_into, merged_into, 1 FROM entities WHERE merged_into IS NOT NULL
        UNION ALL
        SELECT c.id, c.name, c.merged_into, e.merged_into, c.depth + 1 FROM chain c
        JOIN entities e ON e.id = c.at WHERE e.merged_into IS NOT NULL AND c.depth < 64)
    SELECT c.id, c.name, c.merged_into, l.id AS live_id, l.name AS live_name
    FROM chain c LEFT JOIN live_entities l ON l.id = c.at
    WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = c.at AND e.merged_into IS NOT NULL);
"""

# Full-text search over the models' answers (stage 'answer'; extraction replies are not
# answers) for reviewers. The index is external-content (it stores no second copy of the
# text) and follows `responses` through triggers, so every writer keeps it: a run, an answer
# shared from another study, whatever comes later. Diacritics are ignored ("Puma" finds "Pumá").
ANSWER_SEARCH = """
CREATE VIRTUAL TABLE answer_search USING fts5(
    text, content = 'responses', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO answer_search (rowid, text)
    SELECT p.id, p.text FROM responses p JOIN requests r ON r.key = p.request_key WHERE r.stage = 'answer';
CREATE TRIGGER answer_search_insert AFTER INSERT ON responses
    WHEN (SELECT stage FROM requests WHERE key = NEW.request_key) = 'answer' BEGIN
    INSERT INTO answer_search (rowid, text) VALUES (NEW.id, NEW.text);
END;
CREATE TRIGGER answer_search_delete AFTER DELETE ON responses
    WHEN (SELECT stage FROM requests WHERE key = OLD.request_key) = 'answer' BEGIN
    INSERT INTO answer_search (answer_search, rowid, text) VALUES ('delete', OLD.id, OLD.text);
END;
CREATE TRIGGER answer_search_update AFTER UPDATE OF text ON responses
    WHEN (SELECT stage FROM requests WHERE key = NEW.request_key) = 'answer' BEGIN
    INSERT INTO answer_search (answer_search, rowid, text) VALUES ('delete', OLD.id, OLD.text);
    INSERT INTO answer_search (rowid, text) VALUES (NEW.id, NEW.text);
END;
"""
