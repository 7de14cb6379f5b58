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

# 32: the names of a gazetteer list a reviewer should check (workbench/methods/choice/gazetteer_words.py):
# each one whose every match in the answer is a near spelling ("Salomn" as Salomon) or common
# words at a sentence's start ("On" as On Running), as [{"name", "text", "kind", "start",
# "end"}] in list order, the offsets its first match's in the answer. NULL when none (and for
# lists of other extractions, or made before this was kept).
FLAGGED = "ALTER TABLE mention_lists ADD COLUMN flagged_json TEXT;"
