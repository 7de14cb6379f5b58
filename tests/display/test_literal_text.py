"""Model text with markup or escape codes is stored exactly and printed literally."""

import json

from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig
from rich.console import Console

from workbench.text.literal import literal_text, visible

NASTY = "Try [bold]Nike[/bold] or [link=http://evil.example]Adidas[/link]\x1b[31m RED\x1b[0m\x07 done"


def test_visible_escapes_controls_but_keeps_newlines():
    assert visible("a\x1b[2Jb\tc\nd\x9b") == "a\\x1b[2Jb\tc\nd\\x9b"


def test_literal_text_renders_markup_as_written():
    console = Console(width=200, record=True, color_system=None)
    console.print(literal_text(NASTY))
    out = console.export_text()
    assert "[bold]Nike[/bold]" in out and "[link=http://evil.example]" in out
    assert "\x1b" not in out and "\\x1b[31m" in out


def test_nasty_model_text_round_trips_and_prints_literally(tmp_path, db_path, fake_server):
    server = fake_server(ServerConfig(reply_text=NASTY))
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=2)
    assert run_cli("run", str(study), "--db", str(db_path), "--quiet").returncode == 0
    # Stored byte for byte.
    assert rows(db_path, "SELECT DISTINCT text FROM responses") == [(NASTY,)]
    # Exported exactly (JSON escapes control characters itself).
    exported = json.loads(run_cli("export", "--db", str(db_path), "--format", "json").stdout)
    assert [r["text"] for r in exported] == [NASTY, NASTY]
    # Names the user or the model supplied are printed without markup or escapes taking effect.
    server.config.always_fail = "500"
    server.config.reply_text = None
    study2 = write_study(
        tmp_path / "s2.toml",
        models=[f"openai:m@{server.base_url},retries=0"],
        questions=1,
        name="[red]x[/red]\\u001b[2J",
    )
    out = run_cli("run", str(study2), "--db", str(db_path), "--quiet")
    assert "\x1b[2J" not in out.stdout and "[red]x[/red]\\x1b[2J" in out.stdout
