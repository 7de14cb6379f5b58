"""An API key is taken out of what a server sends only as a whole token, and only when it is
long enough to be secret: a short key (`Bala`, `Saucony`, vLLM's customary `EMPTY`) that is
part of a brand, or is one, leaves the brand in the answer, the lists and the metrics. A key
echoed whole is replaced, and the run says how many answers it changed."""

from __future__ import annotations

import json

import pytest
from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig

from workbench.store.values import MIN_SECRET_CHARS, redact

LONG_KEY = "sk-live-0123456789abcdefXYZ"
REPLY = "My picks:\n1. New Balance\n2. Saucony\n3. EMPTY Bottle Co\n4. Brooks"


def _run(tmp_path, fake_server, key: str, reply: str):
    server = fake_server(ServerConfig(reply_text=reply, require_key=key))
    db = tmp_path / "k.db"
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:m@{server.base_url},retries=0,api_key_env=WB_KEY"], questions=2
    )
    done = run_cli("run", str(study), "--db", str(db), "--quiet", env={"WB_KEY": key})
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.stats.auth_headers[0] == f"Bearer {key}"
    return db, done.stdout + done.stderr


def _listed(db) -> dict[str, float]:
    """The preferred brands of the topic (PEIR: one, or those tied with it), with their PEIR."""
    out = run_cli("metrics", "--db", str(db), "--study", "t", "--format", "json")
    assert out.returncode == 0, out.stderr
    [peir] = [r for r in json.loads(out.stdout) if r["metric"] == "peir" and r["cluster"] is None]
    return {brand: peir["value"] for brand in [peir["entity"], *peir["tied_with"]]}


@pytest.mark.parametrize("key", ["Bala", "Saucony", "EMPTY"])
def test_a_short_key_inside_or_equal_to_a_word_leaves_every_brand(tmp_path, fake_server, key):
    db, printed = _run(tmp_path, fake_server, key, REPLY)
    assert [text for (text,) in rows(db, "SELECT text FROM responses")] == [REPLY, REPLY]
    assert "[redacted]" not in printed and "held the API key" not in printed
    listed = _listed(db)
    for brand in ("New Balance", "Saucony", "EMPTY Bottle Co", "Brooks"):
        assert listed[brand] == 1.0, (brand, listed)
    review = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", '"new balance"')
    assert "2 lists of t whose answer matches" in " ".join(review.stdout.split()), review.stdout


def test_a_long_key_echoed_whole_is_replaced_and_the_run_says_so(tmp_path, fake_server):
    reply = f"{REPLY}\n(served for {LONG_KEY}; balanced answers)"
    db, printed = _run(tmp_path, fake_server, LONG_KEY, reply)
    texts = [text for (text,) in rows(db, "SELECT text FROM responses")]
    assert texts == [reply.replace(LONG_KEY, "[redacted]")] * 2
    assert "2 answers held the API key (the server echoed it); it is stored as [redacted]." in printed
    assert LONG_KEY not in printed
    assert _listed(db)["New Balance"] == 1.0


def test_what_is_redacted_in_an_error_message():
    """A key too short to be secret is left in text; a header or JSON field that carries a key
    loses its value whatever its length."""
    assert len(LONG_KEY) >= MIN_SECRET_CHARS > len("token-abc123")
    assert redact("New Balance", "Bala") == "New Balance"
    assert redact(f"bad key {LONG_KEY}.", LONG_KEY) == "bad key [redacted]."
    assert redact(f"bad key X{LONG_KEY}", LONG_KEY) == f"bad key X{LONG_KEY}"  # another word: not the key
    assert redact("headers: Authorization: Bearer EMPTY", "EMPTY") == "headers: Authorization: Bearer [redacted]"
    assert redact('{"api_key": "EMPTY", "x": 1}') == '{"api_key": "[redacted]", "x": 1}'
    assert redact("X-API-Key: abc") == "X-API-Key: [redacted]"


def test_the_app_says_it_too(tmp_path, fake_server, monkeypatch):
    """A run started in the app ends with the same line, as a toast."""
    import asyncio

    from helpers import wait_for

    from workbench.app import WorkbenchApp

    monkeypatch.setenv("WB_KEY", LONG_KEY)
    server = fake_server(ServerConfig(reply_text=f"{REPLY}\nkey: {LONG_KEY}"))
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:m@{server.base_url},retries=0,api_key_env=WB_KEY"], questions=3
    )
    said = "3 answers held the API key (the server echoed it); it is stored as [redacted]."

    async def scenario():
        app = WorkbenchApp(tmp_path / "k.db", study)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("s")
            assert await wait_for(pilot, lambda: any(n.message == said for n in app._notifications), timeout=60)

    asyncio.run(scenario())
    assert [text for (text,) in rows(tmp_path / "k.db", "SELECT text FROM responses")] == [
        f"{REPLY}\nkey: [redacted]"
    ] * 3
