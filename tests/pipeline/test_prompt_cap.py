"""A prompt text a study writes is at most 100,000 characters: every request stores its prompt,
so a 5 MB system prompt became 731 MB for 144 requests and 50 MB never finished planning. Such
a study is refused at load, in one line naming the key and the limit, with nothing stored and
nothing asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli, write_study
from openai_server import ServerConfig

from workbench.methods.study_files import load_study
from workbench.studies.limits import MAX_PROMPT_CHARS
from workbench.studies.spec import StudyError


def test_a_5_mb_system_prompt_is_refused_before_anything_is_stored_or_asked(tmp_path, fake_server):
    server = fake_server(ServerConfig())
    study = write_study(
        tmp_path / "s.toml",
        models=[f"openai:m@{server.base_url}"],
        questions=12,
        repetitions=12,
        extra_generation=f'system = "{"x" * 5_000_000}"',
    )
    db = tmp_path / "s.db"
    done = run_cli("run", str(study), "--db", str(db))
    assert done.returncode == 2
    assert done.stderr == (
        f"error: {study}: key 'generation.system': expected a system prompt string of at most 100,000 "
        "characters, got 5,000,000 (every request stores its prompt)\n"
    )
    assert not db.exists() and server.stats.requests == 0


def test_a_prompt_at_the_limit_is_read_as_written(tmp_path):
    system = "y" * MAX_PROMPT_CHARS
    study = write_study(tmp_path / "s.toml", models=["llama:default"], extra_generation=f'system = "{system}"')
    assert load_study(study).generation["system"] == system


def _refused(path: Path) -> str:
    with pytest.raises(StudyError) as info:
        load_study(path)
    return str(info.value).removeprefix(f"{path}: ")


def test_a_question_or_a_probe_over_the_limit_is_refused_with_its_key(tmp_path):
    long = "q" * (MAX_PROMPT_CHARS + 1)
    choice = tmp_path / "c.toml"
    choice.write_text(
        'name = "c"\nmethod = "choice"\nmodels = ["llama:default"]\n[[topics]]\nname = "shoes"\n'
        f'[topics.questions]\n"Budget-Conscious" = ["Which shoe?", "{long}"]\n'
    )
    assert _refused(choice) == (
        "key 'topics[0].questions.Budget-Conscious[1]': expected a question string of at most 100,000 "
        "characters, got 100,001 (every request stores its prompt)"
    )
    identity = tmp_path / "i.toml"
    identity.write_text(f'name = "i"\nmethod = "identity"\nmodels = ["llama:default"]\nprobe = "{long}"\n')
    assert _refused(identity).startswith("key 'probe': expected the probe question of at most 100,000 characters")
