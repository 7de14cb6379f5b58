import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from openai_server import ServerConfig, ServerThread

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


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`-n`), the slow tests (the bundled model, peer servers, many
    runs) go to one worker, one after another, while the others share the rest: two
    llama.cpp engines decoding at once on a small machine each spin threads for cores the
    other holds, and both crawl (a 50 s test took 410 s beside three others)."""
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.xdist_group("slow"))
