"""A gazetteer row's topic is the study's, case and spacing aside; any other is refused.

A row whose topic differed from the study's only in case ("Gadgets" for "gadgets") was never
sought, while the run said "names sought: the gazetteer's 3" and stored lists without the
name (exit 0). Topics now match as clusters and regions do; a topic that is none of the
study's (misspelt, or of another study) is refused before anything is asked, naming it and
the study's topics.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from helpers import run_cli, write_study
from openai_server import ServerConfig

REPLY = "1. Nike Air Zoom\n2. Adidas Boston\n3. Asics Novablast"


def _study(tmp_path, base_url: str):
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{base_url},retries=0"], questions=3)
    study.write_text(
        study.read_text().replace(
            "[[clusters]]", '[extraction]\nmethod = "gazetteer"\nentities = "brands.csv"\nk = 5\n[[clusters]]'
        )
    )
    return study


def _found(db) -> list[tuple[str, int]]:
    exported = json.loads(run_cli("export", "--db", db, "--what", "mentions", "--format", "json").stdout)
    return sorted({(r["entity"], r["rank"]) for r in exported if r["entity"]})


@pytest.mark.parametrize("topic", ["Gadgets", " GADGETS ", "gadgets|Gadgets", "gadgets "])
def test_a_topic_written_in_another_case_or_spacing_is_the_studys(tmp_path, fake_server, topic):
    server = fake_server(ServerConfig(reply_text=REPLY))
    (tmp_path / "brands.csv").write_text(
        f'name,spellings,topic\nNike,Nike Air,"{topic}"\nAdidas,,"{topic}"\nAsics,,"{topic}"\n'
    )
    db = tmp_path / "g.db"
    out = run_cli("run", _study(tmp_path, server.base_url), "--db", db, "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "names sought: the gazetteer's 3" in out.stdout
    assert "Extracted ranked lists for 3 answers (0 with no recommendation)" in out.stdout
    assert _found(db) == [("Adidas", 2), ("Asics", 3), ("Nike", 1)]


def test_a_topic_that_is_none_of_the_studys_is_refused_before_anything_is_asked(tmp_path, fake_server):
    server = fake_server(ServerConfig(reply_text=REPLY))
    (tmp_path / "brands.csv").write_text("name,topic\nNike,gadgets\nAdidas,gadjets\nAsics,\n")
    db = tmp_path / "g.db"
    out = run_cli("run", _study(tmp_path, server.base_url), "--db", db, "--quiet")
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1
    assert out.stderr.strip() == (
        f"error: {tmp_path / 'brands.csv'}: line 3: topic 'gadjets' is not one of the study's topics "
        "('gadgets'); case and spacing may differ, the words may not"
    )
    assert server.stats.requests == 0
    if db.exists():
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT COUNT(*) FROM requests").fetchone() == (0,)
        finally:
            conn.close()
