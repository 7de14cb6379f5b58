"""`workbench plan --db`: a model's throughput is found by what the model is (its identity),
not by how the study file spells it: `llama:default,parallel=8` is stored as `llama:default`
(transport options are no part of a model), so the demo's plan said "n/a: not measured"
beside a store full of its timed answers. And --rate refuses what is no rate, in one line."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli, write_study


def test_a_measured_model_is_found_whatever_its_transport_options(tmp_path, fake_server):
    server = fake_server()
    db = tmp_path / "ran.db"
    ran = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url},concurrency=2"], questions=6)
    assert run_cli("run", ran, "--db", db, "--quiet").returncode == 0
    # The same study, the model written with other transport options than the store keeps.
    planned = write_study(tmp_path / "p.toml", models=[f"openai:m@{server.base_url},concurrency=8,timeout=30"])
    out = run_cli("plan", planned, "--db", db, "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    (model,) = result["models"]
    assert model.endswith(",concurrency=8,timeout=30.0")
    assert result["rates"][model] is not None and result["rates"][model] > 0
    assert result["rates_na_reason"] == {}
    (measured,) = result["measured"].values()
    assert measured["answers"] == 6 and measured["model"] == f"openai:m@{server.base_url}"
    table = run_cli("plan", planned, "--db", db)
    assert "requests/s" in table.stdout and "not measured" not in table.stdout


def test_a_model_on_other_replicas_keeps_its_throughput(tmp_path, fake_server):
    server, other = fake_server(), fake_server()
    db = tmp_path / "ran.db"
    ran = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=4)
    assert run_cli("run", ran, "--db", db, "--quiet").returncode == 0
    pooled = write_study(tmp_path / "p.toml", models=[f"openai:m@{server.base_url}|{other.base_url}"])
    result = json.loads(run_cli("plan", pooled, "--db", db, "--format", "json").stdout)
    assert list(result["rates"].values())[0] > 0


def test_a_model_not_asked_in_the_store_says_so(tmp_path, fake_server):
    server = fake_server()
    db = tmp_path / "ran.db"
    assert (
        run_cli("run", write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"]), "--db", db).returncode
        == 0
    )
    other = write_study(tmp_path / "p.toml", models=[f"openai:other@{server.base_url}"])
    table = run_cli("plan", other, "--db", db)
    assert f"Throughput of openai:other@{server.base_url}: n/a: not measured in --db; give --rate." in table.stdout


@pytest.mark.parametrize("given", ["inf", "nan", "0", "-2", "fast", "1e400"])
def test_rate_that_is_no_rate_is_refused_in_one_line(tmp_path, given):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"])
    out = run_cli("plan", study, "--rate", given)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"error: --rate: expected requests per second, a finite number above 0, got {given!r}"
    )
    assert out.stdout == ""


def test_a_rate_given_times_the_plan(tmp_path):
    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=4)
    result = json.loads(run_cli("plan", study, "--rate", "2", "--format", "json").stdout)
    assert result["rates"] == {"openai:m@http://127.0.0.1:9/v1": 2.0}
    assert result["current"]["hours_half_width"] == pytest.approx(4 / 2 / 3600)
