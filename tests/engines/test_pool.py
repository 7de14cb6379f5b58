"""One model on several endpoints: one identity, work spread over the replicas, a dead
replica routed around, and a killed run resumed with each request answered once."""

import asyncio

import pytest
from conftest import rows
from helpers import kill_run_once, run_cli, write_study
from openai_server import ServerConfig

from workbench.engines.base import GenerationRequest
from workbench.engines.openai_http import OpenAIEngine
from workbench.engines.resolve import resolve
from workbench.engines.specs import SpecError, parse_spec

DEAD = "http://127.0.0.1:9/v1"  # nothing listens on the discard port


def test_a_pool_is_one_model_whatever_its_replicas():
    two = resolve(parse_spec("openai:m@http://a:8000/v1|http://b:8000/v1,temperature=0.2"))
    three = resolve(parse_spec("openai:m@http://a:8000/v1|http://b:8000/v1|http://c:8000/v1,temperature=0.2"))
    assert two.identity == three.identity == "openai:m"  # adding a replica re-asks nothing
    named = resolve(parse_spec("openai:m@http://a:8000/v1,identity=m-on-vllm"))
    assert named.identity == "openai:m#m-on-vllm"
    assert resolve(parse_spec("openai:m@http://a:8000/v1")).identity == "openai:m@http://a:8000/v1"  # as before
    with pytest.raises(SpecError, match="listed twice"):
        parse_spec("openai:m@http://a/v1|http://a/v1")
    with pytest.raises(SpecError, match="must start with http"):
        parse_spec("openai:m@http://a/v1|ftp://b")
    with pytest.raises(SpecError, match="must start with http"):
        parse_spec("openai:m@http://a/v1|")  # an empty replica
    with pytest.raises(SpecError, match="at most 64 replicas"):
        parse_spec("openai:m@" + "|".join(f"http://h{i}/v1" for i in range(65)))
    engine = OpenAIEngine(parse_spec("openai:m@http://a/v1|http://b/v1,concurrency=4"))
    assert engine.concurrency == 8  # concurrency is per endpoint


def test_requests_spread_over_replicas_and_route_around_a_dead_one(fake_server):
    first, second = fake_server(ServerConfig(latency_s=0.05)), fake_server(ServerConfig(latency_s=0.05))
    spec = parse_spec(f"openai:m@{first.base_url}|{DEAD}|{second.base_url},concurrency=3,retries=0")
    engine = OpenAIEngine(spec)

    async def ask_all():
        try:
            request = GenerationRequest(messages=[{"role": "user", "content": "Which shoes?"}], max_tokens=8)
            return await asyncio.gather(*(engine.generate(request) for _ in range(30)))
        finally:
            await engine.aclose()

    answers = asyncio.run(ask_all())
    assert len(answers) == 30 and all(a.text for a in answers)  # none failed for the dead replica
    assert first.stats.ok > 0 and second.stats.ok > 0 and first.stats.ok + second.stats.ok == 30
    status = {s["url"]: s for s in engine.endpoint_status()}
    assert status[DEAD]["state"] in ("down", "probing") and status[DEAD]["done"] == 0
    assert DEAD in engine.health_note()


def test_a_study_on_a_pool_runs_once_and_resumes_after_kill(tmp_path, db_path, fake_server):
    first, second = fake_server(ServerConfig(latency_s=0.2)), fake_server(ServerConfig(latency_s=0.2))
    spec = f"openai:test-model@{first.base_url}|{second.base_url},concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=60)
    kill_run_once(study, db_path, "SELECT COUNT(*) FROM responses", at_least=10)
    assert 10 <= rows(db_path, "SELECT COUNT(*) FROM responses")[0][0] < 60
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert rows(db_path, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(60, 60)]
    assert rows(db_path, "SELECT identity FROM models") == [("openai:test-model",)]
    assert first.stats.ok > 0 and second.stats.ok > 0


def test_a_pool_with_every_replica_down_stops_like_one_server(tmp_path, db_path):
    spec = f"openai:m@{DEAD}|http://127.0.0.1:7/v1,retries=0,concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=60)
    result = run_cli("run", str(study), "--db", str(db_path), "--quiet")
    assert result.returncode == 1 and "connection" in result.stdout
    counts = dict(rows(db_path, "SELECT status, COUNT(*) FROM requests GROUP BY status"))
    assert counts["failed"] >= 20 and counts.get("pending", 0) > 0  # gave up early, nothing lost


def test_doctor_checks_every_replica(fake_server):
    live = fake_server()
    result = run_cli("doctor", "--model", f"openai:m@{live.base_url}|{DEAD},retries=0")
    assert f"m@{live.base_url} (replica 1 of 2): ok" in result.stdout
    assert f"m@{DEAD} (replica 2 of 2): FAIL connection" in result.stdout
    assert result.returncode == 1


def test_a_replica_that_lies_is_taken_out(fake_server):
    """A replica answering 200 with garbage costs a few retries, then it is out."""
    liar, good = fake_server(ServerConfig(always_fail="garbage")), fake_server()
    engine = OpenAIEngine(parse_spec(f"openai:m@{liar.base_url}|{good.base_url},concurrency=2"))

    async def ask_all():
        try:
            request = GenerationRequest(messages=[{"role": "user", "content": "Which shoes?"}], max_tokens=8)
            return await asyncio.gather(*(engine.generate(request) for _ in range(40)))
        finally:
            await engine.aclose()

    assert len(asyncio.run(ask_all())) == 40  # every request answered, by the honest replica
    assert good.stats.ok == 40 and liar.stats.requests <= 6
    assert liar.base_url in engine.health_note()


def test_status_and_the_run_screen_show_each_replica(tmp_path, db_path, fake_server, capsys):
    """Which replica answered is stored with each answer; its health as the run saw it is
    in the store, so `status` (another process) and the Run screen show every replica."""
    import json

    from helpers import table_text, wait_for

    from workbench.app import WorkbenchApp
    from workbench.cli import main

    live = fake_server(ServerConfig(latency_s=0.01))
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:m@{live.base_url}|{DEAD},concurrency=2,retries=2"], questions=12
    )
    assert main(["run", str(study), "--db", str(db_path), "--quiet"]) == 0
    assert rows(db_path, "SELECT endpoint, COUNT(*) FROM responses GROUP BY endpoint") == [(live.base_url, 12)]
    capsys.readouterr()
    assert main(["status", "--db", str(db_path), "--json"]) == 0
    [record] = json.loads(capsys.readouterr().out)
    replicas = {r["url"]: r for r in record["endpoints"]}
    assert replicas[live.base_url]["answered"] == 12 and replicas[live.base_url]["state"] == "up"
    assert replicas[DEAD]["answered"] == 0 and replicas[DEAD]["failed"] >= 1
    assert replicas[DEAD]["state"] in ("down", "probing")
    assert main(["status", "--db", str(db_path)]) == 0
    shown = capsys.readouterr().out
    assert "Replicas" in shown and "127.0.0.1:9/v1" in shown, shown

    async def screen():
        app = WorkbenchApp(db_path)
        async with app.run_test(size=(100, 30)) as pilot:
            assert await wait_for(pilot, lambda: app.screen.query_one("#replica-table").row_count == 2)
            cells = {row[5]: row for row in table_text(app, "#replica-table")}
            assert cells[live.base_url][1] == "12" and cells[DEAD][1] == "0"
            assert cells[DEAD][0] in ("down", "probing")

    asyncio.run(screen())
    # The pool changes: a replica taken out of the spec is gone from the view too.
    other = fake_server()
    pool = f"openai:m@{live.base_url}|{other.base_url},concurrency=2"
    assert main(["run", str(study), "--db", str(db_path), "--quiet", "--model", pool]) == 0
    capsys.readouterr()
    assert main(["status", "--db", str(db_path), "--json"]) == 0
    [record] = json.loads(capsys.readouterr().out)
    assert {r["url"] for r in record["endpoints"]} == {live.base_url, other.base_url}


def test_going_from_one_url_to_a_pool_and_back_asks_nothing_again(tmp_path, db_path, fake_server):
    """One URL is known by that URL (as before pools), a pool by the served name: growing
    one into the other keeps the study's answers, and the label follows the spec."""
    first, second = fake_server(), fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{first.base_url}"], questions=5)
    assert run_cli("run", str(study), "--db", str(db_path), "--quiet").returncode == 0
    for models in (f"openai:m@{first.base_url}|{second.base_url}", f"openai:m@{second.base_url}"):
        again = run_cli("run", str(study), "--db", str(db_path), "--quiet", "--model", models)
        assert again.returncode == 0 and "0 newly planned" in again.stdout, again.stdout
    assert rows(db_path, "SELECT COUNT(*) FROM responses") == [(5,)]
    assert rows(db_path, "SELECT identity FROM models") == [(f"openai:m@{first.base_url}",)]
    # The study grows on the pool: the new answer's list joins the model's others, under one
    # label (one column in the metrics), not a second model.
    study.write_text(study.read_text().replace('recommend?"]', 'recommend?", "And a new question?"]'))
    pool = f"openai:m@{first.base_url}|{second.base_url}"
    grown = run_cli("run", str(study), "--db", str(db_path), "--quiet", "--model", pool)
    assert grown.returncode == 0 and "1 newly planned" in grown.stdout, grown.stdout
    assert rows(db_path, "SELECT model, COUNT(*) FROM mention_lists GROUP BY model") == [
        (f"openai:m@{first.base_url}", 6)
    ]
    # Two servers listed as two models stay two models.
    both = write_study(
        tmp_path / "two.toml", models=[f"openai:m@{first.base_url}", f"openai:m@{second.base_url}"], questions=2
    )
    assert run_cli("run", str(both), "--db", str(tmp_path / "two.db"), "--quiet").returncode == 0
    assert rows(tmp_path / "two.db", "SELECT COUNT(DISTINCT model_identity) FROM responses") == [(2,)]


def test_the_progress_display_shows_each_replica(tmp_path, db_path, fake_server, capsys):
    """Under a pool's bar, one row per replica: its answers, failures, latency and state."""
    from workbench.cli import main

    live = fake_server(ServerConfig(latency_s=0.01))
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:m@{live.base_url}|{DEAD},concurrency=2,retries=2"], questions=12
    )
    assert main(["run", str(study), "--db", str(db_path)]) == 0
    shown = capsys.readouterr().out
    rows_of = {line.split("↳")[1].split()[0]: line for line in shown.splitlines() if "↳" in line}
    live_label = live.base_url.split("://")[1].removesuffix("/v1")
    assert set(rows_of) == {live_label, "127.0.0.1:9"}, shown
    assert "12/12 up · 0 failed" in rows_of[live_label], shown  # fits 80 columns: the state comes first
    assert " 0/12 down · " in rows_of["127.0.0.1:9"] or " 0/12 probing · " in rows_of["127.0.0.1:9"], shown
