"""A replica answering as another model is seen: each reply's model name is stored, flagged in
the responses export and counted per replica in `workbench status`."""

from __future__ import annotations

import csv
import io

from conftest import rows
from helpers import write_study
from openai_server import ServerConfig

from workbench.cli import main
from workbench.store.requests.served import differs


def test_the_served_name_rule():
    assert differs("gpt-4o", "gpt-4o-2024-08-06") is False  # a dated release of the model asked
    assert differs("Llama3", " llama3 ") is False
    assert differs("llama3", "mistral") is True
    assert differs("m", None) is None and differs(None, "m") is None


def test_a_replica_serving_another_model_is_flagged_and_counted(tmp_path, fake_server, capsys):
    honest, other = fake_server(ServerConfig()), fake_server(ServerConfig(served_model="mistral-7b"))
    spec = f"openai:llama3@{honest.base_url}|{other.base_url},concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=30)
    db = tmp_path / "s.db"
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    capsys.readouterr()
    assert other.stats.ok > 0 and honest.stats.ok > 0
    stored = dict(rows(db, "SELECT served_model, COUNT(*) FROM responses WHERE served_model IS NOT NULL GROUP BY 1"))
    assert stored.get("mistral-7b") == other.stats.ok and stored.get("llama3", 0) >= 1

    assert main(["export", "--db", str(db), "--what", "responses"]) == 0
    exported = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    flagged = [r for r in exported if r["served_model_differs"] == "True"]
    assert flagged and all(r["served_model"] == "mistral-7b" and r["endpoint"] == other.base_url for r in flagged)
    assert all(r["served_model_differs"] == "False" for r in exported if r["served_model"] == "llama3")

    assert main(["status", "--db", str(db)]) == 0
    status = capsys.readouterr().out
    assert "Replies naming another model" in status and "mistral-7b" in status
    assert str(len([r for r in flagged if r["stage"] == "answer"])) in status


def test_the_report_lists_replies_from_another_model(tmp_path, fake_server, capsys):
    honest, other = fake_server(ServerConfig()), fake_server(ServerConfig(served_model="mistral-7b"))
    spec = f"openai:llama3@{honest.base_url}|{other.base_url},concurrency=2"
    study = write_study(tmp_path / "s.toml", models=[spec], questions=12)
    db = tmp_path / "s.db"
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--study", "t", "--format", "md"]) == 0
    report = capsys.readouterr().out
    assert "Replies naming another model than the one asked" in report and "mistral-7b" in report
