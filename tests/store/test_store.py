"""The SQLite store: migrations, WAL, and a reader beside a writer."""

import sqlite3
import threading
import time

import pytest

from workbench.store.db import StoreError, connect
from workbench.store.reads import shared as reads
from workbench.store.requests import questions as question_store
from workbench.store.requests import queue, studies
from workbench.store.schema import SCHEMA_VERSION


def test_new_database_is_migrated_and_in_wal_mode(db_path):
    conn = connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"studies", "models", "questions", "requests", "responses", "request_errors"} <= tables
    conn.close()
    # Opening again applies nothing twice.
    assert connect(db_path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_newer_schema_is_refused_with_a_clear_error(db_path):
    connect(db_path).execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this workbench"):
        connect(db_path)


def test_not_a_database_is_refused(tmp_path):
    bogus = tmp_path / "notes.db"
    bogus.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="not a usable SQLite database"):
        connect(bogus)


def test_reader_and_writer_never_see_database_is_locked(db_path):
    writer = connect(db_path)
    study = studies.upsert_study(writer, "s", "choice", {}, None)
    model = studies.upsert_model(
        writer,
        identity="m",
        spec="m",
        engine="openai",
        name="m",
        base_url=None,
        file_path=None,
        file_hash=None,
        params={},
    )
    errors: list[Exception] = []
    stop = threading.Event()

    def read_loop():
        reader = connect(db_path)
        try:
            while not stop.is_set():
                reader.execute("SELECT status, COUNT(*) FROM requests GROUP BY status").fetchall()
        except sqlite3.OperationalError as exc:
            errors.append(exc)

    def second_writer():
        other = connect(db_path)
        try:
            for i in range(200):
                queue.plan(other, study, model, [queue.PlannedRequest(f"b{i}", "answer", {"i": i})])
        except sqlite3.OperationalError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=read_loop), threading.Thread(target=second_writer)]
    for t in threads:
        t.start()
    for i in range(200):
        queue.plan(writer, study, model, [queue.PlannedRequest(f"a{i}", "answer", {"i": i})])
    threads[1].join()
    time.sleep(0.05)
    stop.set()
    threads[0].join()
    assert errors == []
    assert writer.execute("SELECT COUNT(*) FROM requests").fetchone()[0] == 400


def test_planning_is_idempotent_and_results_are_atomic(db_path):
    conn = connect(db_path)
    study = studies.upsert_study(conn, "s", "choice", {}, None)
    model = studies.upsert_model(
        conn,
        identity="m",
        spec="m",
        engine="openai",
        name="m",
        base_url=None,
        file_path=None,
        file_hash=None,
        params={},
    )
    planned = [queue.PlannedRequest(f"k{i}", "answer", {"i": i}) for i in range(5)]
    assert queue.plan(conn, study, model, planned) == 5
    assert queue.plan(conn, study, model, planned) == 0
    claimed = queue.claim(conn, study, model, "answer", "me:1", 3)
    assert [r["key"] for r in claimed] == ["k0", "k1", "k2"]
    kwargs = dict(
        text="x",
        finish_reason="stop",
        prompt_tokens=1,
        completion_tokens=1,
        logprobs=None,
        latency_s=0.1,
        model_identity="m",
        seed=1,
        started_at="t",
        attempts=1,
    )
    assert queue.complete(conn, "k0", "me:1", **kwargs) is True
    assert queue.complete(conn, "k0", "me:1", **kwargs) is False  # never stored twice
    queue.fail(conn, "k1", 3, "http_500", "server error")
    assert queue.release(conn, ["k2"], "me:1") == 1
    counts = reads.counts(conn)[0]
    assert (counts["done"], counts["failed"], counts["pending"], counts["running"]) == (1, 1, 3, 0)
    assert queue.requeue_failed(conn, study, [model]) == 1


def test_stale_claims_of_dead_processes_are_released(db_path):
    conn = connect(db_path)
    study = studies.upsert_study(conn, "s", "choice", {}, None)
    model = studies.upsert_model(
        conn,
        identity="m",
        spec="m",
        engine="openai",
        name="m",
        base_url=None,
        file_path=None,
        file_hash=None,
        params={},
    )
    queue.plan(conn, study, model, [queue.PlannedRequest(f"k{i}", "answer", {}) for i in range(4)])
    import socket

    dead = f"{socket.gethostname()}:999999"
    queue.claim(conn, study, model, "answer", dead, 2)
    queue.claim(conn, study, model, "answer", queue.claim_owner(), 1)  # alive: this process
    assert queue.release_stale_claims(conn) == 2
    statuses = dict(conn.execute("SELECT status, COUNT(*) FROM requests GROUP BY status").fetchall())
    assert statuses == {"pending": 3, "running": 1}


def test_edited_questions_stay_edited(db_path):
    from workbench.methods.choice.study import Question

    conn = connect(db_path)
    study = studies.upsert_study(conn, "s", "choice", {}, None)
    original = [Question("t", "c", "c", 0, "Old wording?", "inline"), Question("t", "c", "c", 1, "Other?", "inline")]
    question_store.insert_questions(conn, study, original)
    ids = question_store.study_questions(conn, study)
    question_store.edit_question(conn, study, ids["t", "c", "Old wording?"], "New   wording?")
    question_store.edit_question(conn, study, ids["t", "c", "Old wording?"], "Newest wording?")
    # Reading the study file again does not bring the old wording back.
    question_store.insert_questions(conn, study, original)
    texts = sorted(k[2] for k in question_store.study_questions(conn, study))
    assert texts == ["Newest wording?", "Other?"]
    with pytest.raises(ValueError, match="already has a question"):
        question_store.edit_question(conn, study, ids["t", "c", "Other?"], "Newest wording?")
    with pytest.raises(ValueError, match="cannot be empty"):
        question_store.edit_question(conn, study, ids["t", "c", "Other?"], "  ")


def test_progress_speaks_in_tokens_items_or_nothing():
    from workbench.pipeline.run_types import Progress

    def progress(tokens, answered):
        return Progress(
            "m",
            "answer",
            done=5,
            failed=0,
            pending=0,
            running=0,
            tokens=tokens,
            elapsed_s=2.0,
            answered_this_run=answered,
        )

    assert progress(100, 5).rate_text == "50 tok/s"
    assert progress(0, 5).rate_text == "2.5 items/s"  # scoring generates no tokens
    assert progress(0, 0).rate_text == "-"  # a stage finished earlier: no "0 tok/s"
