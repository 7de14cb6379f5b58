"""Provenance in the responses export: from one exported row an auditor rebuilds the request
the server received, knows which model, replica, study and workbench made the answer, and
finds no API key."""

import csv
import hashlib
import io
import json
from collections import Counter

import pytest
from conftest import rows
from helpers import run_cli, write_study
from openai_server import FaultyOpenAIServer, ServerConfig, ServerThread

KEY = "sk-provenance-secret-4242"


class RecordingServer(FaultyOpenAIServer):
    """The fake server, keeping every request body it accepted (what was sent, as received)."""

    def __init__(self, config: ServerConfig | None = None):
        super().__init__(config)
        self.bodies: list[dict] = []

    async def _common(self, request):
        body, early = await super()._common(request)
        if body is not None:
            self.bodies.append(body)
        return body, early


@pytest.fixture
def recording_server():
    thread = ServerThread(ServerConfig(require_key=KEY))
    thread.server = RecordingServer(ServerConfig(require_key=KEY))
    with thread as server:
        yield server


def _canonical(body: dict) -> str:
    return json.dumps(body, sort_keys=True, ensure_ascii=False)


def _run_study(tmp_path, server):
    study = write_study(
        tmp_path / "study.toml",
        models=[f"openai:test-model@{server.base_url},api_key_env=PROVENANCE_KEY"],
        questions=3,
        repetitions=2,
        max_tokens=24,
        temperature=0.4,
        extra_generation='system = "You are a terse shopping assistant."\ntop_p = 0.9\nstop = ["\\n\\n"]\n',
    )
    db = tmp_path / "audit.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet", env={"PROVENANCE_KEY": KEY})
    assert out.returncode == 0, out.stderr
    return study, db


def test_an_exported_row_rebuilds_the_request_the_server_received(tmp_path, recording_server):
    study, db = _run_study(tmp_path, recording_server)
    out = run_cli("export", "--db", str(db), "--what", "responses", "--format", "json")
    assert out.returncode == 0, out.stderr
    records = [r for r in json.loads(out.stdout) if r["stage"] == "answer"]
    assert len(records) == 6 and all(r["status"] == "done" for r in records)

    rebuilt = []
    for record in records:
        messages = json.loads(record["request_messages"])
        settings = json.loads(record["request_settings"])
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[0]["content"] == "You are a terse shopping assistant."
        assert messages[1]["content"] == record["prompt"] == record["question"]
        assert settings == {
            "max_tokens": 24,
            "seed": record["seed"],
            "stop": ["\n\n"],
            "temperature": 0.4,
            "top_p": 0.9,
        }
        rebuilt.append(_canonical({"model": record["model_name"], "messages": messages, **settings}))
    # Every answer's request, exactly as the server received it (messages and settings), once each.
    received = [_canonical(b) for b in recording_server.bodies if "messages" in b]
    assert Counter(rebuilt) == Counter(received)

    first = records[0]
    assert first["model_engine"] == "openai" and first["model_name"] == "test-model"
    assert first["model_base_url"] == recording_server.base_url == first["endpoint"]
    assert first["model_file_hash"] is None and first["parallel"] is None  # a server's answer
    assert first["model_identity"] == f"openai:test-model@{recording_server.base_url}"
    assert first["workbench_version"] == run_cli("--version").stdout.split()[1]
    # The study's hash is of the study as the store keeps it (its parsed spec), on every row.
    [(spec_json,)] = rows(db, "SELECT spec_json FROM studies")
    assert {r["study_sha256"] for r in records} == {hashlib.sha256(spec_json.encode()).hexdigest()}


def test_the_export_carries_no_api_key(tmp_path, recording_server):
    _study, db = _run_study(tmp_path, recording_server)
    # The key was in use: the server refuses a request without it.
    assert recording_server.stats.auth_headers and set(recording_server.stats.auth_headers) == {f"Bearer {KEY}"}
    for fmt in ("json", "csv"):
        out = run_cli("export", "--db", str(db), "--what", "responses", "--format", fmt, env={"PROVENANCE_KEY": KEY})
        assert out.returncode == 0, out.stderr
        assert out.stdout.count("\n") > 6
        assert KEY not in out.stdout and "Bearer" not in out.stdout
    for stored in tmp_path.glob("audit.db*"):  # the database and its journal, if any
        assert KEY.encode() not in stored.read_bytes()


def test_csv_keeps_the_old_columns_and_adds_provenance_as_json_cells(tmp_path, recording_server):
    _study, db = _run_study(tmp_path, recording_server)
    out = run_cli("export", "--db", str(db), "--what", "responses", "--format", "csv")
    assert out.returncode == 0, out.stderr
    exported = list(csv.DictReader(io.StringIO(out.stdout)))
    header = list(exported[0])
    old = ["request_key", "study", "model", "model_identity", "stage", "status", "prompt", "seed", "text"]
    new = ["request_messages", "request_settings", "parallel", "endpoint", "model_engine", "model_name"]
    new += ["model_base_url", "model_file_hash", "workbench_version", "study_sha256"]
    assert set(old + new) <= set(header)
    assert header[:6] == old[:6]  # the columns readers already had stay first
    answer = next(r for r in exported if r["stage"] == "answer")
    assert json.loads(answer["request_settings"])["temperature"] == 0.4
    assert json.loads(answer["request_messages"])[1]["content"] == answer["prompt"]


def test_a_local_model_is_known_by_its_gguf_hash(tmp_path, monkeypatch):
    """Planning alone stores what a local model is (its file's SHA-256): no weights are loaded."""
    from workbench.methods.study_files import load_study
    from workbench.pipeline.audit import prepare
    from workbench.store.db import opened

    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))  # the hash cache, kept out of $HOME
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    study = write_study(tmp_path / "study.toml", models=[f"llama:{gguf}"], questions=2)
    db = tmp_path / "audit.db"
    with opened(db) as conn:
        prepare(conn, load_study(str(study)))
    out = run_cli("export", "--db", str(db), "--what", "responses", "--format", "json")
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert len(records) == 2
    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()
    for record in records:
        assert record["status"] == "pending" and record["text"] is None
        assert record["model_engine"] == "llama" and record["model_file_hash"] == digest
        assert record["model_identity"] == f"llama:sha256:{digest}" and record["model_base_url"] is None
        assert json.loads(record["request_messages"]) == [{"role": "user", "content": record["prompt"]}]
        assert json.loads(record["request_settings"]) == {"max_tokens": 16, "seed": 3, "temperature": 0.7}


def test_a_scored_request_exports_what_it_scored(tmp_path):
    """An entity study's label scores: no messages; the prompt and the settings (continuations,
    method) rebuild every echoed prompt the server scored."""
    from test_entity import small_study

    thread = ServerThread()
    thread.server = RecordingServer()
    with thread as server:
        study = small_study(tmp_path, models=f'["openai:m@{server.base_url}"]', templates=2, entities=2)
        db = tmp_path / "audit.db"
        out = run_cli("run", str(study), "--db", str(db), "--quiet")
        assert out.returncode == 0, out.stdout + out.stderr
    records = json.loads(run_cli("export", "--db", str(db), "--what", "responses", "--format", "json").stdout)
    assert len(records) == 4 and {r["stage"] for r in records} == {"score"}
    rebuilt = []
    for record in records:
        assert record["request_messages"] is None
        settings = json.loads(record["request_settings"])
        assert set(settings) >= {"continuations", "method"} and "prefix" not in settings
        rebuilt += [record["prompt"] + c for c in settings["continuations"]]
    assert Counter(rebuilt) == Counter(b["prompt"] for b in server.bodies if b.get("echo"))


def test_version_flag():
    from importlib.metadata import version

    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout == f"workbench {version('audit-workbench')}\n"
