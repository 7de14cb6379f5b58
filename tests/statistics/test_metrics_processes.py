"""`workbench metrics` hands its model x topics to forked processes: the same records as one
thread computing them all, in the same order, under the options the command was given."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli, write_mentions
from workbench.methods.choice import data as choice_data
from workbench.metrics import threads


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "audit.db"
    csv = write_mentions(tmp_path / "m.csv")
    assert run_cli("import", "mentions", str(csv), "--db", str(db), "--study", "s").returncode == 0
    return db


def _metrics(db, cores: int, monkeypatch, *extra: str) -> list[dict]:
    # a test worker may be pinned to one core, where nothing is spread at all
    monkeypatch.setattr(threads, "usable_cores", lambda: cores)
    # as a new command's process: nothing loaded yet (a study held in memory is not read again)
    monkeypatch.setattr(choice_data, "_LOADED", {})
    done = run_cli("metrics", "--db", str(db), "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_forked_processes_give_the_records_of_one_thread(store, monkeypatch):
    seen = []
    real = threads._map_in_processes
    monkeypatch.setattr(threads, "_map_in_processes", lambda *a: seen.append(a[1]) or real(*a))
    spread = _metrics(store, 2, monkeypatch, "--boot", "200")
    # two workers, each reading and computing two of the model x topics
    shares = [sorted(share) for share in seen[0]]
    assert len(shares) == 2 and all(len(share) == 2 for share in shares)
    every = [("gemini", "phones"), ("gemini", "shoes"), ("gpt", "phones"), ("gpt", "shoes")]
    assert sorted(g for share in shares for g in share) == every
    alone = _metrics(store, 1, monkeypatch, "--boot", "200")
    assert spread == alone
    peirs = [r for r in spread if r["metric"] == "peir" and r["cluster"] is None]
    assert {(r["model"], r["entity"]) for r in peirs} == {("gpt", "Nike"), ("gemini", "Adidas")}
    # the command's options reach the workers (a ContextVar each process inherits)
    assert {r["n_boot"] for r in peirs} == {200}
    assert all(r["ci_unit"] == "question" for r in peirs)


def test_the_unit_chosen_reaches_the_workers(store, monkeypatch):
    spread = _metrics(store, 2, monkeypatch, "--ci-unit", "answer")
    alone = _metrics(store, 1, monkeypatch, "--ci-unit", "answer")
    assert spread == alone
    assert {r["ci_unit"] for r in spread if r["metric"] == "peir"} == {"answer"}


def test_the_app_keeps_threads(store, monkeypatch):
    """Outside the command line (the app's refreshes), no process is forked."""
    from workbench import methods
    from workbench.store.db import connect

    monkeypatch.setattr(threads, "usable_cores", lambda: 2)
    monkeypatch.setattr(threads, "_map_in_processes", lambda *a: pytest.fail("forked outside the command line"))
    records = methods.metric_records(connect(store), "s")
    assert any(getattr(r, "metric", None) == "peir" for r in records)


def test_a_commit_between_the_commands_read_and_a_workers_is_not_mixed_in(store, monkeypatch):
    """A worker reads through its own connection: where the store has moved on since the
    command's read began (a reviewer's edit), the command computes everything itself, from
    the commit it read, as it did before any worker."""
    from workbench.store.db import connect
    from workbench.store.reads import groups as group_reads
    from workbench.store.review import verdicts as reviews

    before = _metrics(store, 1, monkeypatch)
    real = group_reads.group_sizes

    def sizes_then_an_edit(conn, study_id):
        sizes = real(conn, study_id)
        other = connect(store)
        list_id = other.execute("SELECT id FROM mention_lists ORDER BY id LIMIT 1").fetchone()[0]
        reviews.review(other, list_id, "ann", "edit", ["Puma"])  # committed elsewhere, now
        other.close()
        return sizes

    monkeypatch.setattr(group_reads, "group_sizes", sizes_then_an_edit)
    assert _metrics(store, 2, monkeypatch) == before  # the commit the command began with
    monkeypatch.setattr(group_reads, "group_sizes", real)
    assert _metrics(store, 2, monkeypatch) != before  # and the edit, read by the next command
