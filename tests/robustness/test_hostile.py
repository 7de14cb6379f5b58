"""Hostile input and faults: every case ends in one clear line and an intact store.

The CLI is called in-process (`main([...])`) where a child process is not the
point; servers are real aiohttp peers on 127.0.0.1 (tests/openai_server.py).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import time
import tomllib
from pathlib import Path

import pytest
from conftest import rows
from helpers import run_cli, settled, wait_for, write_study
from openai_server import ServerConfig

from workbench.cli import main


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def answered_db(
    tmp_path, fake_server, capsys, reply_text: str | None = None, questions: int = 3, name: str = "t"
) -> tuple[Path, Path, object]:
    server = fake_server(ServerConfig(reply_text=reply_text))
    db = tmp_path / "a.db"
    study = write_study(
        tmp_path / f"{name}.toml",
        models=[f"openai:test-model@{server.base_url},retries=0"],
        questions=questions,
        name=name,
    )
    code, out, err = cli(capsys, "run", study, "--db", db, "--quiet")
    assert code == 0, out + err
    return db, study, server


# -- 1. exports never destroy a database, and are all or nothing ------------------


def test_export_refuses_the_database_and_its_companions(tmp_path, fake_server, capsys):
    db, _, _ = answered_db(tmp_path, fake_server, capsys)
    size = db.stat().st_size
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.commit()
    for target in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), other, tmp_path, tmp_path / "missing" / "x.csv"):
        code, out, err = cli(capsys, "export", "--db", db, "--what", "responses", "--format", "csv", "-o", target)
        assert code == 2, target
        assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "that is the database being exported" in cli(capsys, "export", "--db", db, "-o", db)[2]
    assert "an export never overwrites one" in cli(capsys, "export", "--db", db, "-o", other)[2]
    assert db.stat().st_size >= size
    assert rows(db, "SELECT COUNT(*) FROM responses") == [(3,)]
    assert rows(other, "SELECT name FROM sqlite_master") == [("notes",)]


def test_a_failed_export_leaves_the_previous_file(tmp_path):
    from workbench.files.safe_output import atomic_text_file

    target = tmp_path / "out.csv"
    target.write_text("previous\n")
    with pytest.raises(RuntimeError), atomic_text_file(target) as out:
        out.write("half of a new file")
        raise RuntimeError("disk full, Ctrl-C, a bug: anything")
    assert target.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no temporary file left behind


def test_export_to_a_file_writes_it_whole(tmp_path, fake_server, capsys):
    db, _, _ = answered_db(tmp_path, fake_server, capsys)
    target = tmp_path / "responses.json"
    code, _, err = cli(capsys, "export", "--db", db, "--format", "json", "-o", target)
    assert code == 0 and f"Wrote 3 records to {target}" in err
    assert len(json.loads(target.read_text())) == 3


# -- 9. spreadsheet-safe CSV ------------------------------------------------------------


def test_csv_cells_are_neutralised_unless_raw(tmp_path, fake_server, capsys):
    hostile = "=cmd|' /C calc'!A0 \x1b[31mred\x07 \u202etxt.exe"
    db, _, _ = answered_db(tmp_path, fake_server, capsys, reply_text=hostile)
    _, out, _ = cli(capsys, "export", "--db", db, "--format", "csv")
    texts = [row["text"] for row in csv.DictReader(io.StringIO(out))]
    assert texts and all(t == "'=cmd|' /C calc'!A0 \\x1b[31mred\\x07 \\u202etxt.exe" for t in texts)
    _, raw, _ = cli(capsys, "export", "--db", db, "--format", "csv", "--raw")
    assert {row["text"] for row in csv.DictReader(io.StringIO(raw))} == {hostile}
    _, as_json, _ = cli(capsys, "export", "--db", db, "--format", "json")
    assert {r["text"] for r in json.loads(as_json)} == {hostile}  # JSON stays exact


@pytest.mark.parametrize(
    "cell, safe",
    [
        ("+SUM(A1:A9)", "'+SUM(A1:A9)"),
        ('@HYPERLINK("x")', '\'@HYPERLINK("x")'),
        ("-1+1", "'-1+1"),
        ("\tTAB", "'\tTAB"),
        ("-0.25", "-0.25"),
        ("1e-3", "1e-3"),
        ("Nike", "Nike"),
        ("", ""),
    ],
)
def test_spreadsheet_cell(cell, safe):
    from workbench.files.safe_output import spreadsheet_cell

    assert spreadsheet_cell(cell) == safe
    assert spreadsheet_cell(-0.25) == -0.25


# -- 2. a malformed reply is stored or failed, never fatal ---------------------------------


@pytest.mark.parametrize(
    "mode, outcome",
    [
        ("surrogate", "done"),
        ("finish_object", "done"),
        ("usage_junk", "done"),
        ("usage_huge", "done"),
        ("content_list", "failed"),
        ("no_choices", "failed"),
        ("huge_body", "failed"),
        ("gzip_bomb", "failed"),
    ],
)
def test_hostile_reply_ends_answered_or_failed_and_the_run_goes_on(tmp_path, fake_server, capsys, mode, outcome):
    server = fake_server(ServerConfig(hostile=mode))
    db = tmp_path / "h.db"
    study = write_study(tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url},retries=0"], questions=3)
    for _ in range(2):  # and a second run does not crash on what the first stored
        code, out, err = cli(capsys, "run", study, "--db", db, "--quiet")
        assert code == (0 if outcome == "done" else 1), out + err
        assert "Traceback" not in out + err
    assert rows(db, "SELECT status, COUNT(*) FROM requests GROUP BY status") == [(outcome, 3)]
    status = json.loads(cli(capsys, "status", "--db", db, "--json")[1])
    assert status[0][outcome] == 3 and status[0]["pending"] == status[0]["running"] == 0
    if outcome == "failed":
        reasons = {r[0] for r in rows(db, "SELECT last_error FROM requests")}
        assert all(r and ("bad_response" in r or "too_large" in r) for r in reasons), reasons
        return
    stored = rows(db, "SELECT text, finish_reason, prompt_tokens, completion_tokens, replaced_chars FROM responses")
    assert len(stored) == 3
    for text, finish, prompt_tokens, completion_tokens, replaced in stored:
        assert "Here are my picks" in text
        if mode == "surrogate":
            assert replaced == 2 and text.count("\ufffd") == 2
        if mode == "finish_object":
            assert finish.startswith('{"type":"stop"')
        if mode in ("usage_junk", "usage_huge"):
            assert prompt_tokens is None and completion_tokens is None


# -- 5. Retry-After is honoured up to a cap ---------------------------------------------------


@pytest.mark.parametrize(
    "mode, said", [("retry_after_hour", "1.0 h"), ("retry_after_inf", "forever"), ("retry_after_9999", "forever")]
)
def test_a_huge_retry_after_is_a_failed_attempt_not_a_hang(tmp_path, fake_server, capsys, mode, said):
    server = fake_server(ServerConfig(hostile=mode))
    db = tmp_path / "r.db"
    study = write_study(tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url},retries=1"], questions=2)
    started = time.monotonic()
    code, out, err = cli(capsys, "run", study, "--db", db, "--quiet")
    assert code == 1
    assert time.monotonic() - started < 60  # the server asked for an hour or more
    errors = rows(db, "SELECT message FROM request_errors")
    assert len(errors) == 4  # two requests x (first attempt + one retry)
    assert all(f"it asked to wait {said}" in m and "max_retry_after" in m for (m,) in errors)


def test_retry_after_under_the_cap_is_honoured_and_shown(tmp_path):
    from workbench.engines.openai_replies import retry_after_seconds

    assert retry_after_seconds("2") == 2.0
    assert retry_after_seconds("nan") is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Fri, 31 Dec 9999 23:59:59 GMT") > 1e9


# -- 3. every study owns its requests -------------------------------------------------------


def test_a_copied_study_owns_its_requests_and_shares_the_answers(tmp_path, fake_server, capsys):
    db, first, server = answered_db(tmp_path, fake_server, capsys, name="first")
    asked = server.stats.ok
    copy = tmp_path / "second.toml"
    copy.write_text(first.read_text().replace('name = "first"', 'name = "second"'))
    code, out, err = cli(capsys, "run", copy, "--db", db)
    assert code == 0, out + err
    assert "3 newly planned" in out and "All 3 requests answered" in out
    assert server.stats.ok == asked  # the same questions were not paid for twice
    status = json.loads(cli(capsys, "status", "--db", db, "--json")[1])
    assert {(r["study"], r["done"]) for r in status} == {("first", 3), ("second", 3)}
    for name in ("first", "second"):
        exported = json.loads(cli(capsys, "export", "--db", db, "--study", name, "--format", "json")[1])
        assert len(exported) == 3 and all(r["text"] for r in exported)
    shared = rows(db, "SELECT COUNT(*) FROM responses WHERE shared_from IS NOT NULL")
    assert shared == [(3,)]
    # Running either again asks nothing and keeps both intact.
    code, out, _ = cli(capsys, "run", copy, "--db", db)
    assert "0 newly planned" in out and rows(db, "SELECT COUNT(*) FROM requests") == [(6,)]


# -- 4. the Design screen's save keeps every key -------------------------------------------------


def test_saving_a_study_round_trips_every_key(tmp_path):
    from workbench.methods.choice import design
    from workbench.methods.study_files import load_study

    (tmp_path / "adapt.txt").write_text("Adapt {cluster} to {topic}.")
    (tmp_path / "gen.txt").write_text("Write {n} questions.")
    (tmp_path / "bank.json").write_text(json.dumps({"Budget-Conscious": ["Which shoe is cheapest?"]}))
    path = tmp_path / "full.toml"
    path.write_text("""name = "full"
method = "choice"
description = "every key"
repetitions = 2
seed = 7
verified_only = false
models = ["openai:m@http://127.0.0.1:9/v1,temperature=0.3"]

[generation]
temperature = 0.4
top_p = 0.9
max_tokens = 99
stop = ["\\n\\n"]
system = "Be brief."

[extraction]
method = "experts"
experts = 3
k = 4
model = "llama:default"
temperature = 0.6
max_tokens = 77
output = "list"

[metrics]
top_n = 7
min_share = 0.02
region_pairs = [["United States", "Europe"]]

[question_generation]
model = "llama:default,temperature=0.2"
temperature = 0.8
max_tokens = 333
adapt_prompt = "adapt.txt"
generate_prompt = "gen.txt"

[[clusters]]
name = "Budget-Conscious"
description = "Wants value."

[[topics]]
name = "shoes"
questions_file = "bank.json"

[[topics]]
name = "tablets"
generate = 4
""")
    before = load_study(path)
    study, study_id = design.register(tmp_path / "d.db", path)
    design.save_study(tmp_path / "d.db", study, study_id, path)
    after = load_study(path)
    assert after.to_json() == before.to_json()
    assert after.question_generation == before.question_generation
    saved = tomllib.loads(path.read_text())
    assert saved["question_generation"]["adapt_prompt"] == "adapt.txt"  # as the user wrote it
    assert saved["metrics"]["region_pairs"] == [["United States", "Europe"]]
    assert (tmp_path / "full.toml.bak").exists()


# -- 6. sizes are bounded -------------------------------------------------------------------------


def test_absurd_sizes_are_refused_with_the_key_and_range(tmp_path, capsys):
    (tmp_path / "cat.csv").write_text("title\nA\nB\nC\n")
    cold = tmp_path / "cold.toml"
    cold.write_text(
        'name = "c"\nmethod = "coldstart"\nmodels = ["llama:default"]\ncatalog = "cat.csv"\nk = 2\n'
        'seeds = 1000000000\n[attributes]\ngender = ["a girl"]\n'
    )
    code, _, err = cli(capsys, "run", cold, "--db", tmp_path / "x.db")
    assert code == 2 and "key 'seeds'" in err and "between 1 and 10,000" in err
    assert not (tmp_path / "x.db").exists()
    choice = write_study(tmp_path / "big.toml", models=["llama:default"], questions=3)
    choice.write_text(choice.read_text().replace("repetitions = 1", "repetitions = 1000000000"))
    code, _, err = cli(capsys, "run", choice, "--db", tmp_path / "x.db")
    assert code == 2 and "key 'repetitions'" in err
    with pytest.raises(SystemExit):
        main(["run", str(choice), "--concurrency", "1000000"])
    assert "between 1 and 1024" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", str(choice), "--limit", "-1"])


def test_a_plan_over_max_requests_is_refused_before_anything_is_stored(tmp_path, fake_server, capsys):
    server = fake_server()
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url}"], questions=30, repetitions=5
    )
    db = tmp_path / "p.db"
    code, _, err = cli(capsys, "run", study, "--db", db, "--max-requests", "100")
    assert code == 2 and "more than 100 requests" in err and "--max-requests" in err
    assert not db.exists() and not Path(f"{db}-wal").exists()  # no empty new database left behind
    assert server.stats.requests == 0
    # A database that was there before is kept, with what it held.
    small = write_study(
        tmp_path / "small.toml", models=[f"openai:test-model@{server.base_url}"], questions=1, name="small"
    )
    assert cli(capsys, "run", small, "--db", db, "--quiet")[0] == 0
    code, _, err = cli(capsys, "run", study, "--db", db, "--max-requests", "100")
    assert code == 2 and rows(db, "SELECT name FROM studies") == [("small",)]


def test_attribute_files_must_hold_lists(tmp_path, capsys):
    (tmp_path / "cat.csv").write_text("title\nA\nB\nC\n")
    (tmp_path / "attrs.json").write_text(json.dumps({"gender": "a girl"}))
    study = tmp_path / "cold.toml"
    study.write_text(
        'name = "c"\nmethod = "coldstart"\nmodels = ["llama:default"]\ncatalog = "cat.csv"\nk = 2\n'
        'attributes_file = "attrs.json"\n'
    )
    code, _, err = cli(capsys, "run", study, "--db", tmp_path / "x.db")
    assert code == 2 and "category 'gender'" in err and "a list of non-empty strings" in err


# -- 7. parsers are linear ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1." + " " * 1_000_000 + "x",
        "- Nike" + " " * 1_000_000 + "!",
        "- " + '"' * 1_000_000 + "Nike",
        "```" * 300_000,
        "1. **" + "*" * 1_000_000,
        ("- " + " \t" * 50_000 + "Nike\n") * 10,
    ],
)
def test_parsers_take_linear_time_on_a_megabyte_of_adversarial_text(text):
    from workbench.asking.extract import extract_list, parse_expert_reply

    started = time.process_time()
    extract_list(text)
    parse_expert_reply(text)
    # Quadratic parsing took 86 s of CPU for 40 KB; linear parsing of 1 MB takes well under a second.
    assert time.process_time() - started < 2.0


# -- 8. secrets never reach the store or the screen ------------------------------------------------------


def test_an_echoed_api_key_is_redacted_everywhere(tmp_path, fake_server, capsys, monkeypatch):
    secret = "sk-test-SECRET-0123456789"
    monkeypatch.setenv("HOSTILE_KEY", secret)
    server = fake_server(ServerConfig(hostile="echo_auth"))
    db = tmp_path / "k.db"
    study = write_study(
        tmp_path / "s.toml",
        models=[f"openai:test-model@{server.base_url},retries=1,api_key_env=HOSTILE_KEY"],
        questions=2,
    )
    code, out, err = cli(capsys, "run", study, "--db", db)
    assert code == 1 and "[redacted]" in out + err
    printed = out + err
    for command in (
        ["status", "--db", db],
        ["status", "--db", db, "--json"],
        ["export", "--db", db, "--format", "json"],
    ):
        printed += "".join(cli(capsys, *command)[1:])
    assert secret not in printed and "SECRET" not in printed
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for path in tmp_path.glob("k.db*"):
        assert b"SECRET" not in path.read_bytes()
    assert server.stats.auth_headers[0] == f"Bearer {secret}"  # it was sent, only never kept


# -- 11/13. clear errors, and read-only commands create nothing --------------------------------------------


def test_read_only_commands_never_create_a_database(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "audit.db"
    for command in (["status"], ["metrics"], ["export"], ["entities", "suggest"]):
        code, _, err = cli(capsys, *command, "--db", missing)
        assert code == 2 and "no such database" in err
    assert not (tmp_path / "nowhere").exists()


def test_another_applications_sqlite_file_is_refused_untouched(tmp_path, capsys):
    theirs = tmp_path / "theirs.db"
    conn = sqlite3.connect(theirs)
    conn.execute("CREATE TABLE notes (x)")
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    before = theirs.read_bytes()
    code, _, err = cli(capsys, "status", "--db", theirs)
    assert code == 2 and "another application" in err
    assert theirs.read_bytes() == before
    code, _, err = cli(capsys, "status", "--db", tmp_path)
    assert code == 2 and "is a directory" in err


def test_new_stores_are_marked_as_ours(tmp_path):
    from workbench.store.db import APPLICATION_ID, connect

    connect(tmp_path / "new.db").close()
    assert rows(tmp_path / "new.db", "PRAGMA application_id") == [(APPLICATION_ID,)]


@pytest.mark.parametrize(
    "content, said",
    [
        (b'name = "x"\nmethod = "choice"\n# caf\xe9\n', "line 3: not UTF-8"),
        (b"\x00\x01\x02binary", "not valid TOML"),
    ],
)
def test_unreadable_study_files_are_one_line(tmp_path, capsys, content, said):
    study = tmp_path / "s.toml"
    study.write_bytes(content)
    code, _, err = cli(capsys, "run", study, "--db", tmp_path / "x.db")
    assert code == 2 and said in err and err.count("\n") == 1


def test_a_directory_as_study_file(tmp_path, capsys):
    code, _, err = cli(capsys, "run", tmp_path, "--db", tmp_path / "x.db")
    assert code == 2 and "is a directory" in err


@pytest.mark.parametrize(
    "line, key",
    [
        ("temperature = nan", "generation.temperature"),
        ("temperature = -1.0", "generation.temperature"),
        ("temperature = inf", "generation.temperature"),
        ("top_p = 0.0", "generation.top_p"),
        ("max_tokens = 0", "generation.max_tokens"),
        ("unknown = 1", "generation.unknown"),
    ],
)
def test_generation_is_validated_the_same_for_every_method(tmp_path, capsys, line, key):
    from workbench.studies.spec import StudyError, Where, read_generation

    with pytest.raises(StudyError, match=f"key '{key}'"):
        read_generation(Where("s.toml").child("generation"), tomllib.loads(line), {})
    (tmp_path / "cat.csv").write_text("title\nA\nB\nC\n")
    for study in (
        f'name = "i"\nmethod = "identity"\nmodels = ["llama:default"]\n[generation]\n{line}\n',
        f'name = "c"\nmethod = "coldstart"\nmodels = ["llama:default"]\ncatalog = "cat.csv"\nk = 2\n'
        f'[attributes]\ng = ["a"]\n[generation]\n{line}\n',
    ):
        path = tmp_path / "g.toml"
        path.write_text(study)
        code, _, err = cli(capsys, "run", path, "--db", tmp_path / "x.db")
        assert code == 2 and f"key '{key}'" in err


@pytest.mark.parametrize(
    "spec, said",
    [
        ("llama:default,temperature=nan", "finite"),
        ("llama:default,temperature=-1", "at least 0"),
        ("llama:default,top_p=0", "greater than 0"),
        ("openai:m@http://h/v1,timeout=0", "greater than 0"),
        ("openai:m@http://h/v1,retries=-1", "at least 0"),
        ("openai:m@http://h/v1,concurrency=1000000", "at most"),
        ("llama:default,max_tokens=0", "at least 1"),
    ],
)
def test_model_options_are_range_checked(spec, said):
    from workbench.engines.specs import SpecError, parse_spec

    with pytest.raises(SpecError, match=said):
        parse_spec(spec)


# -- 10. model text is shown literally in the app -------------------------------------------------------


def test_markup_in_toasts_is_literal(tmp_path):
    import asyncio

    from workbench.app import WorkbenchApp
    from workbench.store.db import connect

    connect(tmp_path / "t.db").close()

    async def scenario():
        app = WorkbenchApp(tmp_path / "t.db")
        async with app.run_test(size=(80, 24)) as pilot:
            for name in ("[/x]", "[link=http://evil]x[/link]", "\x1b[2J", "[bold]"):
                app.notify(f"Merged {name}")
                await pilot.pause()
            shown = [n.message for n in app._notifications]
            assert "Merged [/x]" in shown and "Merged \\x1b[2J" in shown

    asyncio.run(scenario())


def test_markup_and_escapes_in_entity_names_survive_merge_and_undo(tmp_path):
    """Names come from model output: "[/x]" once crashed the app on merge + undo."""
    import asyncio
    import csv as csv_module

    from workbench.app import WorkbenchApp

    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv_module.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        for q, entity in enumerate(
            [
                "[/x] Nike",
                "[/x] Nike, Inc.",
                "[link=http://evil]Acme[/link]",
                "[link=http://evil]Acme[/link] Inc.",
                "\x1b[2JWipe",
                "\x1b[2JWipe GmbH",
            ]
        ):
            writer.writerow(["gpt", "shoes", "Convenience", f"q{q}", 1, 1, entity])
    db = tmp_path / "audit.db"
    assert main(["import", "mentions", str(path), "--db", str(db), "--study", "s"]) == 0

    async def scenario():
        app = WorkbenchApp(db, reviewer="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            for key in ("2", "3", "4", "5", "1"):  # every screen shows the names
                await pilot.press(key)
                await pilot.pause()
            await pilot.press("5")
            screen = app.screen
            assert await wait_for(pilot, lambda: screen.query_one("#suggestions-table").row_count >= 2)
            for key in ("a", "a", "a", "u", "u", "u"):  # merge three times, undo three times
                done = screen.clusterings
                await pilot.press(key)
                assert await wait_for(pilot, lambda done=done: screen.clusterings > done and not screen.busy)
            await pilot.press("2", "r")
            await settled(pilot)
            shown = " ".join(n.message for n in app._notifications)
            assert "[/x] Nike" in shown or "Nike" in shown
            assert "\x1b" not in shown

    asyncio.run(scenario())
    assert rows(db, "SELECT COUNT(*) FROM entity_decisions") != [(0,)]


# -- 14/15. concurrent runs and crashes ---------------------------------------------------------------------


def test_requests_held_by_another_process_are_named_as_such(tmp_path, fake_server, capsys):
    server = fake_server()
    db = tmp_path / "c.db"
    study = write_study(tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url}"], questions=5)
    assert main(["run", str(study), "--db", str(db), "--limit", "1", "--quiet"]) == 0
    assert "still pending (--limit 1)" in capsys.readouterr().out
    conn = sqlite3.connect(db)  # a live `workbench run` on another host holds two of them
    conn.execute(
        "UPDATE requests SET status = 'running', claimed_by = 'elsewhere:1' WHERE key IN "
        "(SELECT key FROM requests WHERE status = 'pending' LIMIT 2)"
    )
    conn.commit()
    conn.close()
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 requests are being answered by another process" in out and "--limit" not in out
    assert rows(db, "SELECT status, COUNT(*) FROM requests GROUP BY status") == [("done", 3), ("running", 2)]


def test_a_crash_repeats_at_most_concurrency_calls(tmp_path, fake_server):
    from helpers import kill_run_once

    server = fake_server(ServerConfig(latency_s=0.2))
    db = tmp_path / "k.db"
    study = write_study(
        tmp_path / "s.toml", models=[f"openai:test-model@{server.base_url},concurrency=4"], questions=24
    )
    kill_run_once(study, db, "SELECT COUNT(*) FROM responses", at_least=6)
    held = rows(db, "SELECT COUNT(*) FROM requests WHERE status = 'running'")[0][0]
    assert held <= 4  # never more claimed than can be in flight
    answered_before = rows(db, "SELECT COUNT(*) FROM responses")[0][0]
    assert main(["run", str(study), "--db", str(db), "--quiet"]) == 0
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_key) FROM responses") == [(24, 24)]
    # Calls the server saw beyond one per request: only those in flight at the kill.
    assert server.stats.ok - 24 <= 4
    assert answered_before >= 6


def test_a_gguf_that_cannot_load_ends_the_run_in_one_line(tmp_path):
    """A file that starts like a GGUF but is not one: llama.cpp refuses it while the models'
    tasks run; the run says so in one line (exit 2), never a traceback, and asks nothing."""
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00garbage-bytes!")
    study = write_study(tmp_path / "s.toml", models=[f"llama:{bad}"], questions=1)
    result = run_cli("run", str(study), "--db", str(tmp_path / "a.db"), "--quiet")
    assert result.returncode == 2
    assert "cannot load" in result.stderr and "Traceback" not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("seed", ["99999999999999999999", "-1", "4294967296"])
def test_a_seed_out_of_range_is_refused_in_one_line_before_anything_is_stored(tmp_path, capsys, seed):
    """A seed of 2^63 - 1 overflowed the store at its second repetition (a traceback and a
    half-made database); -1 is llama.cpp's "random seed"; llama.cpp keeps a seed's low 32 bits,
    so 2^32 answered as 0 did."""
    study = write_study(tmp_path / "s.toml", models=["llama:default"], questions=2, repetitions=2)
    study.write_text(re.sub(r"(?m)^seed = .*$", f"seed = {seed}", study.read_text()))
    code, _, err = cli(capsys, "run", study, "--db", tmp_path / "x.db")
    assert code == 2 and "key 'seed'" in err and "between 0 and 4,294,967,295" in err and err.count("\n") == 1, err
    assert not (tmp_path / "x.db").exists()
    plain = write_study(tmp_path / "p.toml", models=["llama:default"], questions=2, repetitions=2)
    code, _, err = cli(capsys, "run", plain, "--db", tmp_path / "x.db", "--model", f"llama:default,seed={seed}")
    assert code == 2 and "seed" in err and err.count("\n") == 1, err
    assert not (tmp_path / "x.db").exists()


def test_the_last_repetitions_seed_must_be_in_range_too(tmp_path, capsys):
    study = write_study(tmp_path / "s.toml", models=["llama:default"], questions=2, repetitions=3)
    study.write_text(re.sub(r"(?m)^seed = .*$", "seed = 4294967294", study.read_text()))
    code, _, err = cli(capsys, "run", study, "--db", tmp_path / "x.db")
    assert code == 2 and "key 'seed': seed 4,294,967,294 with 3 repetitions would use seeds up to 4,294,967,296" in err
    code, _, err = cli(capsys, "run", study, "--db", tmp_path / "x.db", "--model", "llama:default,seed=4294967295")
    assert code == 2 and "take a seed of at most 4,294,967,293" in err, err
    assert not (tmp_path / "x.db").exists()
