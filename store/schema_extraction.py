"""Migrations for what made each extracted list (see schema.py for how migrations run; never
edit one that has shipped)."""

# 30: the extraction that made each machine list (workbench/methods/choice/extraction_marks.py):
# `extracted_with` is a digest of the settings that determine the list (method, k, fuzzy, the
# gazetteer file's content, the experts), the settings themselves kept once per digest in
# `extraction_settings`. A run extracts again the lists whose digest is not the study file's, so
# an edited [extraction] counts as a fresh run of the file would. NULL: imported, or extracted
# before this was recorded (the next run extracts it again, with the same settings or the new).
EXTRACTED_WITH = """
ALTER TABLE mention_lists ADD COLUMN extracted_with TEXT;
CREATE TABLE extraction_settings (
    digest TEXT PRIMARY KEY,
    settings_json TEXT NOT NULL
);
"""
