"""Tables at 80 columns with a served model's long name: the name folds, every header and
number stays whole."""

from __future__ import annotations

from helpers import run_cli, write_study


def test_status_at_80_columns_keeps_every_header_whole(tmp_path, fake_server):
    server = fake_server()
    study = write_study(tmp_path / "s.toml", models=[f"openai:a-long-model-name@{server.base_url}"], questions=2)
    db = tmp_path / "a.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    out = run_cli("status", "--db", str(db), env={"COLUMNS": "80"}).stdout
    lines = out.splitlines()
    header = next(line for line in lines if "pending" in line)
    assert header.split() == ["study", "model", "stage", "done", "pending", "running", "failed", "recovered"]
    assert max(len(line.rstrip()) for line in lines) <= 80
