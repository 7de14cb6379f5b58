"""Exact means exact: a study's label scores over HTTP are never silently mixed.

Echo support is learnt per replica (a probe), and a refusal of one prompt is a refusal
of that prompt only: it is tried on another replica, and when none can score it
exactly the model's run ends with one line naming it and the option to choose
(`scoring = "first_token"`), never an approximation stored in its place."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from conftest import rows
from helpers import on_screen, run_cli, wait_for
from openai_server import ServerConfig

EXAMPLE = Path(str(files("workbench.assets").joinpath("studies", "entity")))
OPTION = 'scoring = "first_token"'


def study(tmp_path: Path, model: str, templates: int, entities: int, extra: str = "") -> Path:
    path = tmp_path / "urgency.toml"
    path.write_text(
        f'name = "urgency"\nmethod = "entity"\nmodels = ["{model}"]\n'
        f'task = "{EXAMPLE / "urgency.task.json"}"\ntemplates = "{EXAMPLE / "urgency_templates.csv"}"\n'
        f'entities = "{EXAMPLE / "countries.csv"}"\nmax_templates = {templates}\nmax_entities = {entities}\n'
        f"{extra}"
    )
    return path


def methods_stored(db: Path) -> dict[str, int]:
    """Scored prompts per method, as label_scores (what the metrics read) holds them."""
    return dict(rows(db, "SELECT method, COUNT(DISTINCT request_key) FROM label_scores GROUP BY method"))


def statuses(db: Path) -> dict[str, int]:
    return dict(rows(db, "SELECT status, COUNT(*) FROM requests GROUP BY status"))


def closing_lines(output: str, words: str) -> list[str]:
    return [line for line in output.splitlines() if words in line]


def test_a_prompt_the_server_will_not_echo_is_named_and_never_approximated(tmp_path, fake_server):
    # Finland is the tenth entity: 6 templates x 10 entities, 6 prompts name it.
    server = fake_server(ServerConfig(echo_refused_for="Finland"))
    path = study(tmp_path, f"openai:m@{server.base_url},concurrency=4", templates=6, entities=10)
    db = tmp_path / "finland.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 1, out.stdout + out.stderr
    [line] = closing_lines(out.stdout, "could not be scored exactly")
    assert ": 6 prompts could not be scored exactly" in line and "Finland" in line
    assert "and 3 more" in line and OPTION in line
    # Every other prompt is scored exactly, Finland's are not scored at all: none approximated.
    assert methods_stored(db) == {"exact": 54}
    assert rows(db, "SELECT COUNT(*) FROM label_scores WHERE entity = 'Finland'") == [(0,)]
    assert rows(db, "SELECT COUNT(DISTINCT entity) FROM label_scores") == [(9,)]
    assert statuses(db) == {"done": 54, "pending": 6}
    pending = [json.loads(p) for (p,) in rows(db, "SELECT payload_json FROM requests WHERE status = 'pending'")]
    assert {p["meta"]["entity"] for p in pending} == {"Finland"}
    assert all(p["score"]["method"] == "exact" for p in pending)

    # Asked again, the same prompts are named again and nothing else is asked or stored.
    again = run_cli("run", str(path), "--db", str(db), "--quiet")
    assert again.returncode == 1 and len(closing_lines(again.stdout, "6 prompts could not be scored exactly")) == 1
    assert methods_stored(db) == {"exact": 54} and statuses(db) == {"done": 54, "pending": 6}


def test_a_prompt_one_replica_will_not_echo_is_scored_exactly_by_another(tmp_path, fake_server):
    picky, plain = fake_server(ServerConfig(echo_refused_for="Finland")), fake_server()
    path = study(tmp_path, f"openai:m@{picky.base_url}|{plain.base_url},concurrency=2", templates=3, entities=10)
    db = tmp_path / "pool.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 0, out.stdout + out.stderr
    assert "All 30 requests answered" in out.stdout
    assert methods_stored(db) == {"exact": 30}
    # Finland's prompts came from the replica that echoes them, each after the other refused.
    finland = rows(
        db,
        "SELECT DISTINCT r.endpoint FROM responses r JOIN label_scores s ON s.request_key = r.request_key "
        "WHERE s.entity = 'Finland'",
    )
    assert finland == [(plain.base_url,)]
    # Which replica a prompt goes to first depends on timing: every refusal the picky one gave
    # (if the pool sent it any Finland prompt) was survived by asking the other.
    refused = rows(db, "SELECT kind, final, message FROM request_errors")
    assert len(refused) == picky.stats.faults["echo_refused"]
    assert all(kind == "http_400" and not final and "tried on another replica" in m for kind, final, m in refused)


def test_a_pool_with_a_replica_without_echo_scores_every_prompt_exactly(tmp_path, fake_server):
    plain, echoing = fake_server(ServerConfig(echo_logprobs=False)), fake_server()
    path = study(tmp_path, f"openai:m@{plain.base_url}|{echoing.base_url},concurrency=3", templates=6, entities=8)
    db = tmp_path / "pool.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 0, out.stdout + out.stderr
    assert "All 48 requests answered" in out.stdout
    assert methods_stored(db) == {"exact": 48}
    assert rows(db, "SELECT endpoint, COUNT(*) FROM responses GROUP BY endpoint") == [(echoing.base_url, 48)]
    # The replica without echo was found out once (the requests in flight to it then, and one
    # probe), then left alone: a handful of the 48, however the requests were timed.
    assert 1 <= plain.stats.requests <= 8
    metrics = run_cli("metrics", "--db", str(db))
    assert metrics.returncode == 0 and "first_token" not in metrics.stdout


def test_a_server_without_echo_stops_the_model_with_the_option_to_choose(tmp_path, fake_server):
    plain = fake_server(ServerConfig(echo_logprobs=False))
    path = study(tmp_path, f"openai:m@{plain.base_url},concurrency=2", templates=5, entities=6)
    db = tmp_path / "plain.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 1, out.stdout + out.stderr
    [line] = closing_lines(out.stdout, "no prompt can be scored exactly")
    assert ": stopped, no prompt" in line and plain.base_url in line and "30 requests are left pending" in line
    assert "echo with logprobs is not supported" in line and OPTION in line
    assert methods_stored(db) == {} and statuses(db) == {"pending": 30}
    # It stopped at once: the requests in flight and one probe, not one refusal per prompt.
    assert plain.stats.requests <= 2 + 1


def test_the_run_screen_says_why_the_model_stopped(tmp_path, fake_server):
    import asyncio

    from workbench.app import WorkbenchApp

    plain = fake_server(ServerConfig(echo_logprobs=False))
    path = study(tmp_path, f"openai:m@{plain.base_url},concurrency=2", templates=2, entities=3)
    db = tmp_path / "screen.db"

    async def scenario():
        app = WorkbenchApp(db, path)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("s")
            assert await on_screen(pilot, "ErrorModal")
            said = str(app.screen.query_one("#error-message").render())
            assert "no prompt can be scored exactly" in said and OPTION in said
            await pilot.press("escape")
            assert await wait_for(
                pilot, lambda: "6 requests pending" in str(app.screen.query_one("#run-title").render())
            )

    asyncio.run(scenario())
    assert methods_stored(db) == {} and statuses(db) == {"pending": 6}


def test_first_token_chosen_in_the_study_is_stored_and_shown_as_such(tmp_path, fake_server):
    plain = fake_server(ServerConfig(echo_logprobs=False))
    path = study(tmp_path, f"openai:m@{plain.base_url}", templates=3, entities=4, extra=f"{OPTION}\n")
    db = tmp_path / "first.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 0, out.stdout + out.stderr
    assert methods_stored(db) == {"first_token": 12}
    texts = [json.loads(t) for (t,) in rows(db, "SELECT text FROM responses")]
    assert {t["method"] for t in texts} == {"first_token"}
    metrics = run_cli("metrics", "--db", str(db))
    assert metrics.returncode == 0 and "· first_token" in metrics.stdout


def test_a_server_that_echoes_no_prompt_of_the_study_stops_after_a_run_of_them(tmp_path, fake_server):
    # The probe ("Hello world") is echoed, every prompt of the study is refused: each is a
    # refusal of that prompt, and a run of them stops the model instead of asking them all.
    picky = fake_server(ServerConfig(echo_refused_for="Sentence:"))
    path = study(tmp_path, f"openai:m@{picky.base_url},concurrency=2,retries=0", templates=10, entities=10)
    db = tmp_path / "picky.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 1, out.stdout + out.stderr
    [line] = closing_lines(out.stdout, "prompts in a row could not be scored exactly")
    assert ": stopped after 20 prompts in a row" in line and "100 requests are left pending" in line and OPTION in line
    assert methods_stored(db) == {} and statuses(db) == {"pending": 100}
    assert picky.stats.faults["echo_refused"] <= 20 + 2  # and the ones in flight when it stopped


def test_a_server_that_ignores_echo_gives_no_exact_score(tmp_path, fake_server):
    """It answers 200 with the generated token's log-prob alone: summed over the label's
    offsets that would be a silent 0.0 per label; it is a server without echo instead."""
    ignoring = fake_server(ServerConfig(echo_ignored=True))
    path = study(tmp_path, f"openai:m@{ignoring.base_url},concurrency=2", templates=2, entities=3)
    db = tmp_path / "ignoring.db"

    out = run_cli("run", str(path), "--db", str(db), "--quiet")

    assert out.returncode == 1, out.stdout + out.stderr
    [line] = closing_lines(out.stdout, "no prompt can be scored exactly")
    assert "answered without echoed prompt log-probs" in line and OPTION in line
    assert methods_stored(db) == {} and statuses(db) == {"pending": 6}
