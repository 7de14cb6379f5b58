"""What ChoiceEval's Design screen reads and writes: a study's questions, models and file.

Kept outside the UI so the CLI and tests use the same operations.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from workbench.methods.choice.study import ChoiceStudy
from workbench.methods.choice.writer import study_to_toml
from workbench.methods.study_files import load_study
from workbench.store.db import opened
from workbench.store.reads import shared as reads
from workbench.store.requests import questions as question_store
from workbench.store.requests import studies
from workbench.store.requests.file_questions import sync_file_questions


def register(db_path: str | Path, study_path: str | Path) -> tuple[ChoiceStudy, int]:
    """Load the study file and store it with its questions (no requests planned)."""
    study = load_study(study_path)
    if not isinstance(study, ChoiceStudy):
        raise ValueError(
            f"{study_path}: the Design screen edits ChoiceEval studies; edit {study.method} studies in their file"
        )
    with opened(db_path) as conn:
        study_id = studies.upsert_study(conn, study.name, study.method, study.to_json(), study.path)
        sync_file_questions(conn, study_id, study.questions)
        return study, study_id


def question_rows(db_path: str | Path, study_id: int) -> list[dict[str, Any]]:
    with opened(db_path) as conn:
        return reads.question_rows(conn, study_id)


def toggle_verified(db_path: str | Path, study_id: int, question_id: int) -> bool:
    with opened(db_path) as conn:
        current = reads.is_verified(conn, question_id)
        question_store.set_verified(conn, study_id, [question_id], verified=not current)
        return not current


def edit_question(db_path: str | Path, study_id: int, question_id: int, text: str) -> None:
    with opened(db_path) as conn:
        question_store.edit_question(conn, study_id, question_id, text)


def add_question(db_path: str | Path, study_id: int, topic: str, cluster: str, text: str) -> None:
    from workbench.methods.choice.study import Question

    with opened(db_path) as conn:
        position = reads.next_position(conn, study_id, topic, cluster)
        question_store.insert_questions(
            conn, study_id, [Question(topic, cluster, cluster, position, " ".join(text.split()), "added")]
        )


def save_study(db_path: str | Path, study: ChoiceStudy, study_id: int, path: str | Path) -> Path:
    """Write the study with its current questions; the previous file is kept as .bak."""
    grouped: dict[str, dict[str, list[str]]] = {}
    for row in question_rows(db_path, study_id):
        grouped.setdefault(row["topic"], {}).setdefault(row["cluster"], []).append(row["text"])
    path = Path(path)
    original, text = None, None
    if path.exists():
        from workbench.studies.spec import read_toml

        original = read_toml(path)  # every key the user wrote is kept
        text = path.read_bytes().decode("utf-8")  # and its comments and layout: the save edits this text
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(study_to_toml(study, grouped, original, text).encode("utf-8"))
    try:
        load_study(tmp)  # never replace a good file with one that does not load
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if path.exists():
        shutil.copy2(path, path.with_suffix(path.suffix + ".bak"))
    tmp.replace(path)
    return path
