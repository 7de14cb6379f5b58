"""What an entity study may name: its prompt variants and its scoring methods (the study
and its file's schema share them; the schema, which imports pydantic, loads only when a
study file is read)."""

VARIANTS = ("zero_shot_text", "few_shot_text", "zero_shot_numeric", "few_shot_numeric")
SCORING = ("exact", "first_token", "naive")
