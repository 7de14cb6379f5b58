import os
import sqlite3
import sys
from pathlib import Path

import pytest

# The shared builders (helpers.py, openai_server.py, the simulations) and, since the suites live
# in folders by package, each folder: a test module reuses another's builders by its name
# (`from test_decisions import verdict`), wherever the two are filed.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.extend(sorted({str(p.parent) for p in Path(__file__).resolve().parent.rglob("test_*.py")} - {sys.path[0]}))

from openai_server import ServerConfig, ServerThread

from workbench.engines.llama_cpu import plain_layout_on_amx

# Tests that load the bundled model through llama_cpp.Llama themselves get the engine's guard
# against llama.cpp's AMX kernels (workbench/engines/llama_cpu.py) too.
plain_layout_on_amx()

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


@pytest.fixture(autouse=True)
def _one_reviewer_name(monkeypatch):
    """The reviewer a test runs as when it names none ($USER differs between machines, and
    the app shows it in its top line)."""
    monkeypatch.setenv("USER", "reviewer")
    monkeypatch.delenv("USERNAME", raising=False)


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "audit.db"


@pytest.fixture
def fake_server():
    """Start a fault-injecting OpenAI-compatible server; call with a ServerConfig."""
    threads = []

    def start(config: ServerConfig | None = None):
        thread = ServerThread(config)
        server = thread.__enter__()
        threads.append(thread)
        return server

    yield start
    for thread in threads:
        thread.__exit__(None, None, None)


def rows(db: Path, sql: str, *args):
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


@pytest.fixture
def shared_data() -> Path:
    data = SHARED / "data"
    if not data.exists():
        pytest.skip("../shared/data is not present (only in the development checkout)")
    return data


@pytest.fixture
def metrics_db(tmp_path) -> Path:
    """A store with ChoiceEval lists of two models (imported, study "ext") and regions."""
    from helpers import run_cli, write_mentions

    db = tmp_path / "audit.db"
    imported = run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", str(db), "--study", "ext")
    assert imported.returncode == 0
    (tmp_path / "e.csv").write_text("name,region\nNike,United States\nAdidas,Europe\nAsics,Asia\nPuma,Europe\n")
    assert run_cli("import", "entities", str(tmp_path / "e.csv"), "--db", str(db)).returncode == 0
    return db


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: a worker per core and one more. Many tests wait (a screen to settle, a
    server to answer) more than they compute, so a third worker on two cores fills those waits
    (the fast part: 100 s against 125 s with two)."""
    from workbench.host.cores import usable_cores

    return usable_cores() + 1


def pytest_configure(config):
    """Under pytest-xdist each worker runs on one core of its own (round robin when there
    are more workers than cores). llama.cpp sizes its threads by the cores a process may
    use (`workbench.host.cores`): pinned, a worker's engine decodes on one thread, instead of two
    engines' spinning threads fighting over two cores (a 90 s test took 334 s that way)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) > 1:
        os.sched_setaffinity(0, {cores[int(worker[2:]) % len(cores)]})
