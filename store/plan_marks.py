"""What each model's plan was made from, so a resumed run can skip planning it again.

Planning a million requests takes most of a minute (every payload built and keyed, every
key looked up); a resume of an unchanged study does not need it. After a model's plan is
stored, its mark (table `plan_marks`, migration 20) holds two digests: of the study as loaded (with every file it reads) with
the model's identity and parameters, and of what planning read from the store (ChoiceEval's
question ids, imported questions included). A run whose digests equal the mark's reuses the
stored plan; any difference plans that model again, as before.
"""

from __future__ import annotations

import sqlite3

from workbench.store.db import utc_now
from workbench.store.queue import transaction


def marks(conn: sqlite3.Connection, study_id: int) -> dict[str, tuple[str, str, int]]:
    """The marks of a study's models: model identity -> (study digest, context digest, requests planned)."""
    return {
        identity: (study_digest, context_digest, total)
        for identity, study_digest, context_digest, total in conn.execute(
            "SELECT m.identity, p.study_digest, p.context_digest, p.total FROM plan_marks p "
            "JOIN models m ON m.id = p.model_id WHERE p.study_id = ?",
            (study_id,),
        )
    }


def mark(conn: sqlite3.Connection, study_id: int, model_id: int, study_digest: str, context_digest: str, total: int):
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO plan_marks VALUES (?, ?, ?, ?, ?, ?)",
            (study_id, model_id, study_digest, context_digest, total, utc_now()),
        )
