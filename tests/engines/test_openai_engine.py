"""The openai engine against a real aiohttp server on 127.0.0.1 that misbehaves."""

import json

from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig


def test_run_survives_a_faulty_server(tmp_path, db_path, fake_server):
    server = fake_server(ServerConfig(fault_rate=0.3, retry_after=0.05, slow_s=1.5, seed=11))
    spec = f"openai:test-model@{server.base_url},timeout=0.5,concurrency=8,retries=8"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=200)

    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "All 200 requests answered" in result.stdout
    # Every request answered exactly once.
    assert rows(db_path, "SELECT status, COUNT(*) FROM requests GROUP BY status") == [("done", 200)]
    assert rows(db_path, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(200, 200)]
    # The server really injected every kind of fault, and status shows what was survived.
    assert set(server.stats.faults) == {"429", "500", "slow", "drop", "garbage"}
    status = json.loads(run_cli("status", "--db", str(db_path), "--json").stdout)
    assert status[0]["done"] == 200 and status[0]["failed"] == 0 and status[0]["pending"] == 0
    kinds = status[0]["error_kinds"]
    assert {"http_429", "http_500", "timeout", "connection", "bad_response"} <= set(kinds)
    assert status[0]["errors_survived"] == sum(server.stats.faults.values())
    table = run_cli("status", "--db", str(db_path)).stdout
    assert "http_429" in table and "timeout" in table


def test_always_failing_server_fails_with_reasons_and_exit_status(tmp_path, db_path, fake_server):
    server = fake_server(ServerConfig(always_fail="500"))
    spec = f"openai:test-model@{server.base_url},retries=2,concurrency=4"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=6)

    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")

    assert result.returncode == 1
    last_line = result.stdout.strip().splitlines()[-1]
    assert "6 requests failed" in last_line and "http_500" in last_line
    failed = rows(db_path, "SELECT status, attempts, last_error FROM requests")
    assert len(failed) == 6
    for status, attempts, error in failed:
        assert status == "failed" and attempts == 3 and "500" in error
    # Running again retries only the failed ones: with the server healthy they all pass.
    server.config.always_fail = None
    again = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert again.returncode == 0, again.stdout
    assert rows(db_path, "SELECT status, COUNT(*) FROM requests GROUP BY status") == [("done", 6)]


def test_unreachable_server_stops_early_with_one_line(tmp_path, db_path):
    spec = "openai:m@http://127.0.0.1:9,retries=0,concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=60)

    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")

    assert result.returncode == 1
    assert "connection" in result.stdout
    counts = dict(rows(db_path, "SELECT status, COUNT(*) FROM requests GROUP BY status"))
    # It gave up after a run of failures instead of trying all 60.
    assert counts["failed"] >= 20 and counts.get("pending", 0) > 0


def test_api_key_comes_from_env_and_is_never_stored(tmp_path, db_path, fake_server):
    secret = "sk-test-secret-value-123"
    server = fake_server(ServerConfig(require_key=secret))
    spec = f"openai:test-model@{server.base_url},api_key_env=WB_TEST_KEY"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=3)

    missing = run_cli("run", str(study), "--db", str(tmp_path / "other.db"), "--quiet", env={"WB_TEST_KEY": ""})
    assert missing.returncode == 2 and "WB_TEST_KEY" in missing.stderr

    result = run_cli("run", str(study), "--db", str(db_path), "--quiet", env={"WB_TEST_KEY": secret})
    assert result.returncode == 0, result.stdout + result.stderr
    assert server.stats.auth_headers[-1] == f"Bearer {secret}"
    exported = run_cli("export", "--db", str(db_path), "--what", "responses", "--format", "json").stdout
    status = run_cli("status", "--db", str(db_path), "--json").stdout
    for text in (db_path.read_bytes(), exported.encode(), status.encode(), result.stdout.encode()):
        assert secret.encode() not in text
