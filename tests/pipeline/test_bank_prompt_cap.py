"""A question read from a question bank (a JSON or CSV file, by `import questions` or named by a
study's `questions_file`) is capped at 100,000 characters as a study file's question is: every
request stores its prompt. Over the cap, one line names the file, the key or line and the limit,
exit 2, and nothing is stored."""

from __future__ import annotations

import json

from helpers import run_cli

from workbench.studies.limits import MAX_PROMPT_CHARS

CLUSTERS = [
    "Budget-Conscious",
    "Eco-Conscious",
    "Tech-Savvy",
    "Brand-Loyal",
    "Luxury-Seeker",
    "Adventure",
    "Health",
    "Family",
    "Minimalist",
]
TAIL = "characters, got 100,001 (every request stores its prompt)\n"


def _bank(path, long_item: str):
    data = {name: [f"Which gadget for {name}?"] for name in CLUSTERS}
    data["Tech-Savvy"].append(long_item)
    path.write_text(json.dumps(data, indent=1))
    return path


def test_a_json_bank_question_over_the_cap_is_refused_naming_key_item_and_limit(tmp_path):
    bank, db = _bank(tmp_path / "gadgets.json", "q" * (MAX_PROMPT_CHARS + 1)), tmp_path / "a.db"
    done = run_cli("import", "questions", str(bank), "--db", str(db), "--study", "s")
    assert done.returncode == 2
    assert done.stderr == (
        f"error: {bank}: key 'Tech-Savvy' item 1: expected a question string of at most 100,000 " + TAIL
    )
    assert not db.exists()


def test_a_csv_bank_question_over_the_cap_is_refused_naming_line_and_limit(tmp_path):
    bank, db = tmp_path / "q.csv", tmp_path / "a.db"
    bank.write_text(
        "topic,cluster,question\n"
        "gadgets,Budget-Conscious,Which charger would you buy?\n"
        f"gadgets,Budget-Conscious,{'w' * (MAX_PROMPT_CHARS + 1)}\n"
    )
    done = run_cli("import", "questions", str(bank), "--db", str(db), "--study", "s")
    assert done.returncode == 2
    assert done.stderr == (
        f"error: {bank}: line 3: column 'question': expected a question string of at most 100,000 " + TAIL
    )
    assert not db.exists()


def test_a_bank_a_study_names_is_capped_before_anything_is_asked(tmp_path):
    bank = _bank(tmp_path / "bank.json", "z" * (MAX_PROMPT_CHARS + 1))
    study, db = tmp_path / "s.toml", tmp_path / "s.db"
    study.write_text(
        'name = "s"\nmethod = "choice"\nmodels = ["llama:default"]\n'
        f'[[topics]]\nname = "gadgets"\nquestions_file = "{bank.name}"\n'
    )
    done = run_cli("run", str(study), "--db", str(db))
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert f"{bank}: key 'Tech-Savvy' item 1: expected a question string of at most 100,000 " + TAIL in done.stderr
    assert not db.exists()


def test_a_bank_question_at_the_cap_is_imported_as_written(tmp_path):
    at_cap = "y" * MAX_PROMPT_CHARS
    bank, db = _bank(tmp_path / "gadgets.json", at_cap), tmp_path / "a.db"
    done = run_cli("import", "questions", str(bank), "--db", str(db), "--study", "s")
    assert done.returncode == 0, done.stderr
    import sqlite3

    with sqlite3.connect(db) as conn:
        lengths = [n for (n,) in conn.execute("SELECT length(text) FROM questions")]
    assert MAX_PROMPT_CHARS in lengths and len(lengths) == len(CLUSTERS) + 1
