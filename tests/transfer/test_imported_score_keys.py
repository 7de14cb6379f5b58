"""Imported label scores are requests of their study: a store whose imported prompts were
keyed before imports used `request_key` takes a re-import in place, and two studies
importing the same file each keep their own prompts."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

from test_entity import EXAMPLE

from workbench.methods.entity.data import import_scores, score_records
from workbench.store.db import connect

TASK = EXAMPLE / "urgency.task.json"
LABELS = ("low_urgency", "moderate_urgency", "high_urgency", "critical_urgency")
SURE_LOW = (-0.1, -3.0, -4.0, -5.0)
SURE_CRITICAL = (-5.0, -4.0, -3.0, -0.1)


def scores_csv(path: Path, prompts: dict[str, tuple[float, ...]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["entity", "template_id", "label", "logprob"])
        for entity, logprobs in prompts.items():
            writer.writerows((entity, 0, label, lp) for label, lp in zip(LABELS, logprobs, strict=True))
    return path


def logprobs_of(conn, study: str, entity: str) -> tuple[float, ...]:
    stored = {r["label"]: r["logprob"] for r in score_records(conn, study) if r["entity"] == entity}
    return tuple(stored[label] for label in LABELS)


def key_written_before(study_id: int, entity: str) -> str:
    """How imports keyed a prompt of the default model, language, variant and method before."""
    prompt = [study_id, "imported", "english", "zero_shot_text", "exact", entity, 0]
    return hashlib.sha256(json.dumps(prompt).encode()).hexdigest()[:32]


def test_a_store_written_before_takes_a_reimport_in_place(tmp_path):
    conn = connect(tmp_path / "e.db")
    import_scores(conn, "e", scores_csv(tmp_path / "first.csv", {"France": SURE_LOW, "Chad": SURE_CRITICAL}), TASK)
    # The store as the earlier imports left it: the same rows, under the keys they gave.
    conn.execute("PRAGMA foreign_keys = OFF")
    for key, study_id, entity in conn.execute("SELECT DISTINCT request_key, study_id, entity FROM label_scores"):
        old = key_written_before(study_id, entity)
        conn.execute("UPDATE requests SET key = ? WHERE key = ?", (old, key))
        conn.execute("UPDATE label_scores SET request_key = ? WHERE request_key = ?", (old, key))
    conn.execute("PRAGMA foreign_keys = ON")
    before = {key for (key,) in conn.execute("SELECT key FROM requests")}

    import_scores(conn, "e", scores_csv(tmp_path / "again.csv", {"France": SURE_CRITICAL}), TASK)

    assert {key for (key,) in conn.execute("SELECT key FROM requests")} == before  # no second France
    assert logprobs_of(conn, "e", "France") == SURE_CRITICAL and logprobs_of(conn, "e", "Chad") == SURE_CRITICAL
    assert len(list(score_records(conn, "e"))) == 8


def test_two_studies_importing_one_file_keep_their_own_prompts(tmp_path):
    conn = connect(tmp_path / "e.db")
    path = scores_csv(tmp_path / "scores.csv", {"France": SURE_LOW})
    import_scores(conn, "a", path, TASK)
    import_scores(conn, "b", path, TASK)
    import_scores(conn, "b", scores_csv(tmp_path / "b.csv", {"France": SURE_CRITICAL}), TASK)

    assert logprobs_of(conn, "a", "France") == SURE_LOW and logprobs_of(conn, "b", "France") == SURE_CRITICAL
    per_study = dict(conn.execute("SELECT study_id, COUNT(*) FROM requests GROUP BY study_id").fetchall())
    assert sorted(per_study.values()) == [1, 1]
    assert conn.execute("SELECT COUNT(*) FROM requests WHERE status = 'done' AND stage = 'score'").fetchone()[0] == 2
