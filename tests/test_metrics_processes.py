"""`workbench metrics` hands its model x topics to forked processes: the same records as one
thread computing them all, in the same order, under the options the command was given."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli, write_mentions
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
    done = run_cli("metrics", "--db", str(db), "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_forked_processes_give_the_records_of_one_thread(store, monkeypatch):
    seen = []
    real = threads._map_in_processes
    monkeypatch.setattr(threads, "_map_in_processes", lambda *a: seen.append(len(a[1])) or real(*a))
    spread = _metrics(store, 2, monkeypatch, "--boot", "200")
    assert seen == [4]  # two models x two topics, on the forked processes
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
