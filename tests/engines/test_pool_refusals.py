"""A replica that refuses the model (404 "model not found", 401/403, a 400 naming the model
as unknown) is down for that model, with the reply as its reason, and its requests go to
the other replicas; when every replica refuses, the model stops with one line per replica
and its requests stay pending. Every failure routed to another replica is recorded."""

import asyncio
import json

import pytest
from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig

from workbench.engines.base import EngineError, GenerationRequest, routed_failures
from workbench.engines.openai_http import OpenAIEngine
from workbench.engines.openai_replies import refusal
from workbench.engines.specs import parse_spec


def statuses(db_path) -> dict[str, int]:
    return dict(rows(db_path, "SELECT status, COUNT(*) FROM requests GROUP BY status"))


def test_what_refuses_the_model_and_what_refuses_one_request():
    assert refusal(404, "The model `m` does not exist.", "m")
    assert refusal(401, "Invalid API key provided", "m") and refusal(403, "forbidden", "m")
    assert refusal(400, "model 'llama-3' not found, try pulling it first", "llama-3")
    # A 400 about this one request (too long, a bad parameter) is no refusal of the model,
    # nor one whose unknown thing is not the model ("m" is no word of "max").
    assert not refusal(400, "This model's maximum context length is 4096 tokens", "m")
    assert not refusal(400, "unknown parameter: max_tokenz", "m")
    assert not refusal(400, "model 'other' not found", "llama-3")
    assert not refusal(500, "The model `m` does not exist.", "m")
    assert not refusal(429, "rate limited", "m")


def test_a_replica_that_refuses_is_routed_around_by_the_engine(fake_server):
    good, missing = fake_server(), fake_server(ServerConfig(refuse=404))
    engine = OpenAIEngine(parse_spec(f"openai:m@{missing.base_url}|{good.base_url},concurrency=2"))
    noted: list[tuple[str, str]] = []

    async def ask_all():
        token = routed_failures.set(noted)
        try:
            request = GenerationRequest(messages=[{"role": "user", "content": "Which shoes?"}], max_tokens=8)
            return await asyncio.gather(*(engine.generate(request) for _ in range(20)))
        finally:
            routed_failures.reset(token)
            await engine.aclose()

    answers = asyncio.run(ask_all())
    assert len(answers) == 20 and {a.endpoint for a in answers} == {good.base_url}
    assert good.stats.ok == 20 and 1 <= missing.stats.requests <= 2  # refused once (or twice, in flight), then out
    state = {s["url"]: s["state"] for s in engine.endpoint_status()}
    assert state[good.base_url] == "up"
    assert state[missing.base_url] == "down: 404: The model `m` does not exist."
    assert len(noted) == missing.stats.requests and all(kind == "http_404" for kind, _ in noted)
    assert missing.base_url in noted[0][1] and "sent to another replica" in noted[0][1]


def test_a_study_on_a_pool_with_a_replica_that_refuses_is_answered_by_the_others(tmp_path, db_path, fake_server):
    first, missing, second = fake_server(), fake_server(ServerConfig(refuse=404)), fake_server()
    spec = f"openai:m@{first.base_url}|{missing.base_url}|{second.base_url},concurrency=2,retries=0"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=30)
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(db_path) == {"done": 30}  # none failed, in one run
    assert rows(db_path, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(30, 30)]
    answered_by = dict(rows(db_path, "SELECT endpoint, COUNT(*) FROM responses GROUP BY endpoint"))
    assert set(answered_by) == {first.base_url, second.base_url}
    # The refusing replica is down for the model, with its reply as the reason.
    health = dict(rows(db_path, "SELECT url, state FROM endpoint_health"))
    assert health[missing.base_url] == "down: 404: The model `m` does not exist."
    assert health[first.base_url] == health[second.base_url] == "up"
    # Each refusal is an error the request survived (routed to another replica), not a failure.
    errors = rows(db_path, "SELECT kind, final, message FROM request_errors")
    assert len(errors) == missing.stats.requests >= 1
    assert all(kind == "http_404" and final == 0 and missing.base_url in message for kind, final, message in errors)
    [record] = json.loads(run_cli("status", "--db", str(db_path), "--json").stdout)
    assert record["failed"] == 0 and record["errors_survived"] == len(errors) and record["errors_final"] == 0
    replicas = {r["url"]: r for r in record["endpoints"]}
    assert replicas[missing.base_url]["state"].startswith("down: 404") and replicas[missing.base_url]["answered"] == 0


def test_a_failure_routed_to_another_replica_is_recorded(tmp_path, db_path, fake_server):
    """A transient failure (a 500) tried on another replica is an error met and survived:
    `status` counts it, as it counts a retry."""
    broken, good = fake_server(ServerConfig(always_fail="500")), fake_server()
    spec = f"openai:m@{broken.base_url}|{good.base_url},concurrency=2,retries=0"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=12)
    assert run_cli("run", str(study), "--db", str(db_path), "--quiet").returncode == 0
    assert statuses(db_path) == {"done": 12}
    errors = rows(db_path, "SELECT kind, final FROM request_errors")
    assert broken.stats.requests >= 1 and errors == [("http_500", 0)] * broken.stats.requests
    [record] = json.loads(run_cli("status", "--db", str(db_path), "--json").stdout)
    assert record["errors_survived"] == broken.stats.requests


@pytest.mark.parametrize("refusals", [(404, 401), (400, 403, 404)])
def test_a_pool_every_replica_of_which_refuses_stops_with_its_requests_pending(
    tmp_path, db_path, fake_server, refusals
):
    servers = [fake_server(ServerConfig(refuse=status)) for status in refusals]
    spec = "openai:m@" + "|".join(s.base_url for s in servers) + ",concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=20)
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    said = {
        404: "404: The model `m` does not exist.",
        400: "400: model 'm' not found, try pulling it first",
        401: "401: Invalid API key provided",
        403: "403: You do not have access to the model `m`",
    }
    lines = result.stdout.splitlines()
    for server, status in zip(servers, refusals):
        # One line per replica: its URL and its reply.
        assert lines.count(f"  {server.base_url} answered {said[status]}") == 1, result.stdout
    assert "every replica refused the model" in result.stdout and "20 requests still pending" in result.stdout
    assert statuses(db_path) == {"pending": 20}  # nothing failed, for good or otherwise
    assert rows(db_path, "SELECT COUNT(*) FROM request_errors WHERE final = 1") == [(0,)]
    assert rows(db_path, "SELECT COUNT(*) FROM responses") == [(0,)]
    assert sum(s.stats.requests for s in servers) <= 2 * 2 * len(servers)  # stopped at once, not 20 times over
    # The servers are fixed: the same command answers everything.
    for server in servers:
        server.config.refuse = None
    again = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert again.returncode == 0, again.stdout + again.stderr
    assert statuses(db_path) == {"done": 20}
    assert {state for (state,) in rows(db_path, "SELECT state FROM endpoint_health")} == {"up"}


def test_one_server_that_refuses_stops_the_model_without_failing_its_requests(tmp_path, db_path, fake_server):
    server = fake_server(ServerConfig(refuse=404))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},concurrency=2"], questions=10)
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{server.base_url}/chat/completions" not in result.stdout  # the replica's URL, not the path asked
    assert f"{server.base_url} answered 404: The model `m` does not exist." in result.stdout
    assert statuses(db_path) == {"pending": 10} and server.stats.requests <= 2
    server.config.refuse = None
    assert run_cli("run", str(study), "--db", str(db_path), "--quiet").returncode == 0
    assert statuses(db_path) == {"done": 10}


def test_the_error_that_stops_a_model_is_not_retried(fake_server):
    """The engine's answer when every replica refused: a stop, not a retryable failure."""
    engine = OpenAIEngine(parse_spec(f"openai:m@{fake_server(ServerConfig(refuse=401)).base_url}"))

    async def ask():
        try:
            await engine.generate(GenerationRequest(messages=[{"role": "user", "content": "Hi"}], max_tokens=4))
        finally:
            await engine.aclose()

    with pytest.raises(EngineError) as raised:
        asyncio.run(ask())
    assert raised.value.stops_model and not raised.value.retryable and raised.value.code == "http_401"
