"""LLM-assisted question generation: adapt clusters, write questions, verify, ask."""

import json

import pytest
from conftest import rows
from helpers import run_cli
from openai_server import ServerConfig

STUDY = """
name = "gen"
method = "choice"
models = ["{model}"]
[generation]
max_tokens = 16
[[clusters]]
name = "Budget-Conscious"
description = "Wants value."
[[clusters]]
name = "Convenience"
description = "Wants ease."
[[topics]]
name = "airlines"
generate = {n}
[[topics]]
name = "hotels"
questions_file = "{bank}"
"""


def write(tmp_path, model, n=3):
    (tmp_path / "bank.csv").write_text("topic,cluster,question\nhotels,Convenience,Which hotel near the airport?\n")
    path = tmp_path / "gen.toml"
    path.write_text(STUDY.format(model=model, n=n, bank=tmp_path / "bank.csv"))
    return path


def test_generate_verify_and_ask(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    study = write(tmp_path, f"openai:m@{server.base_url}")
    db = tmp_path / "g.db"
    out = run_cli("generate", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Adapted 2 clusters (0 kept their general name" in out.stdout
    assert "airlines: 6 new questions" in out.stdout
    generated = rows(
        db,
        "SELECT cluster, cluster_label, text, verified, source, provenance_json FROM questions "
        "WHERE source = 'generated' ORDER BY id",
    )
    assert len(generated) == 6 and {g[0] for g in generated} == {"Budget-Conscious", "Convenience"}
    for _cluster, label, text, verified, _source, provenance in generated:
        assert label.startswith("Name ") and text.endswith(("#1", "#2", "#3")) and verified == 0
        prov = json.loads(provenance)
        assert prov["model"] == f"openai:m@{server.base_url}" and prov["request_key"]
    # The prompt and seed of each generated list are kept in its request.
    payload = json.loads(rows(db, "SELECT payload_json FROM requests WHERE stage = 'generate' LIMIT 1")[0][0])
    assert "airlines" in payload["messages"][0]["content"] and payload["params"]["seed"] == 0

    # Running generate again asks nothing new and stores nothing twice.
    asked = server.stats.requests
    again = run_cli("generate", str(study), "--db", str(db), "--quiet")
    assert "airlines: 0 new questions" in again.stdout
    assert server.stats.requests == asked
    assert rows(db, "SELECT COUNT(*) FROM questions WHERE source = 'generated'") == [(6,)]

    listing = run_cli("questions", "--db", str(db), "--study", "gen").stdout
    assert "Which option would you recommend" in listing and "hotel near the airport" in listing
    first_ids = [str(i) for (i,) in rows(db, "SELECT id FROM questions WHERE source = 'generated' ORDER BY id LIMIT 2")]
    assert (
        "Verified 2 questions" in run_cli("questions", "--db", str(db), "--study", "gen", "--verify", *first_ids).stdout
    )

    # run asks the file's question and the generated ones ...
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert "gen · openai" in out.stdout and ": 7 requests" in out.stdout
    # ... or, with verified_only, just the verified ones.
    study.write_text("verified_only = true\n" + study.read_text())
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert ": 2 requests" in out.stdout
    assert json.loads(run_cli("status", "--db", str(db), "--json").stdout)[0]["done"] == 2


def test_generate_needs_a_generate_topic(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(
        'method = "choice"\nmodels = ["llama:default"]\n[[topics]]\nname = "x"\n'
        '[topics.questions]\n"Convenience" = ["q"]\n'
    )
    out = run_cli("generate", str(study), "--db", str(tmp_path / "x.db"))
    assert out.returncode == 2 and "add `generate = N`" in out.stderr


@pytest.mark.slow
def test_generate_with_the_bundled_model_is_parseable(tmp_path):
    study = write(tmp_path, "llama:default,n_ctx=1024", n=2)
    study.write_text(study.read_text().replace("[generation]", "[question_generation]\nmax_tokens = 200\n[generation]"))
    db = tmp_path / "g.db"
    out = run_cli("generate", str(study), "--db", str(db), "--quiet", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    # The schema grammar keeps a 270M base model's replies parseable JSON.
    texts = [
        t
        for (t,) in rows(
            db,
            "SELECT p.text FROM responses p JOIN requests r ON r.key = p.request_key "
            "WHERE r.stage IN ('adapt', 'generate')",
        )
    ]
    assert len(texts) == 4
    parsed = 0
    for text in texts:
        try:
            json.loads(text)
            parsed += 1
        except ValueError:
            pass  # cut by max_tokens: kept and counted, never dropped
    assert parsed >= 3
    assert rows(db, "SELECT COUNT(*) >= 2 FROM questions WHERE source = 'generated'") == [(1,)]
