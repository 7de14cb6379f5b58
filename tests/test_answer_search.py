"""Search across answers: the FTS5 index over the models' answers, `review lists --search`,
and what a query the index cannot read gives (one line, never a traceback)."""

import csv
import json
import re
import sqlite3

import pytest
from conftest import rows
from helpers import run_cli, write_study
from openai_server import ServerConfig


def ran(tmp_path, fake_server, questions=8, config=None):
    server = fake_server(config or ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=questions)
    db = tmp_path / "audit.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stderr
    return study, db


def searched(db, query, *more):
    out = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", query, "--format", "json", *more)
    assert out.returncode == 0, out.stderr
    return sorted(r["list_id"] for r in json.loads(out.stdout))


def expected(db, pattern):
    """The lists whose answer's text matches a regular expression (case ignored): what the
    search must find, computed without the index."""
    return sorted(
        list_id
        for list_id, text in rows(
            db, "SELECT l.id, p.text FROM mention_lists l JOIN responses p ON p.request_key = l.response_key"
        )
        if re.search(pattern, text, re.IGNORECASE)
    )


def test_search_finds_answers_by_words_phrase_and_prefix(tmp_path, fake_server):
    _, db = ran(tmp_path, fake_server, questions=12)
    for query, pattern in (
        ("hoka", r"\bhoka\b"),
        ("HOKA nike", r"(?=[\s\S]*\bhoka\b)[\s\S]*\bnike\b"),  # every word, any order, case ignored
        ('"new balance"', r"\bnew balance\b"),
        ("sauc*", r"\bsauc"),
        ("puma OR brooks", r"\b(puma|brooks)\b"),
        ("picks NOT asics", r"^(?![\s\S]*\basics\b)"),
    ):
        found = searched(db, query)
        assert found == expected(db, pattern), query
        assert 0 < len(found) < 12 or query.startswith("picks"), (query, found)
    assert searched(db, "reebok") == []
    # The table says what it searched for.
    table = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", '"new balance"')
    assert f'{len(expected(db, "new balance"))} lists of t whose answer matches "new balance"' in " ".join(
        table.stdout.split()
    )


@pytest.mark.parametrize("query", ['"', "AND(", "nike AND", "NOT", "a:b", "Nike, Inc.", "   "])
def test_a_query_the_index_cannot_read_is_one_line(tmp_path, query):
    db = tmp_path / "audit.db"
    assert run_cli("import", "mentions", str(one_list(tmp_path)), "--db", str(db), "--study", "t").returncode == 0
    out = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", query)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "search" in out.stderr


def one_list(tmp_path):
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        writer.writerow(["gpt", "shoes", "C", "q1", 1, 1, "Nike"])
    return path


def test_the_index_follows_new_answers_and_replaced_lists(tmp_path, fake_server):
    study, db = ran(tmp_path, fake_server, questions=6)
    before = searched(db, "picks")
    assert len(before) == 6
    # New questions asked: their answers are found at once.
    write_study(study, models=json.loads(re.search(r"models = (\[.*\])", study.read_text()).group(1)), questions=10)
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    assert searched(db, "picks") == expected(db, "picks") and len(expected(db, "picks")) == 10
    # A re-import replaces one answer's list (new row, no answer of its own): the search gives
    # the lists stored now, never an id that is gone.
    question = rows(db, "SELECT question FROM mention_lists ORDER BY id LIMIT 1")[0][0]
    path = tmp_path / "again.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"])
        model = rows(db, "SELECT model FROM mention_lists LIMIT 1")[0][0]
        writer.writerow([model, "gadgets", "Budget-Conscious", question, 1, 1, "Nike"])
    assert run_cli("import", "mentions", str(path), "--db", str(db), "--study", "t").returncode == 0
    ids_now = {r[0] for r in rows(db, "SELECT id FROM mention_lists")}
    found = searched(db, "picks")
    assert set(found) <= ids_now and found == expected(db, "picks") and len(found) == 9
    # The index and the answers agree, row for row (FTS5's own check of an external-content index).
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO answer_search (answer_search, rank) VALUES ('integrity-check', 1)")
    conn.close()


def test_markup_in_answers_and_queries_is_literal(tmp_path, fake_server):
    _, db = ran(tmp_path, fake_server, questions=2, config=ServerConfig(reply_text="Try [bold]Nike[/bold] [red]x"))
    assert len(searched(db, "bold")) == 2
    out = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", '"[red]"', "--format", "json")
    assert [r["answer"] for r in json.loads(out.stdout)] == ["Try [bold]Nike[/bold] [red]x"] * 2
    table = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", '"[red]"')
    assert '"[red]"' in table.stdout


def test_a_store_from_before_has_its_answers_indexed(tmp_path):
    from workbench.store import answer_search, schema_entities_search
    from workbench.store.db import _statements, connect
    from workbench.store.schema import MIGRATIONS

    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    for number, migration in enumerate(MIGRATIONS[: MIGRATIONS.index(schema_entities_search.ANSWER_SEARCH)]):
        for statement in _statements(migration):
            old.execute(statement)
        old.execute(f"PRAGMA user_version = {number + 1}")
    old.executescript(
        """
        INSERT INTO studies VALUES (1, 's', 'choice', NULL, '{}', 'then', 'then');
        INSERT INTO models (id, identity, spec, engine, name, params_json, created_at)
            VALUES (1, 'm', 'm', 'openai', 'm', '{}', 'then');
        INSERT INTO requests (key, study_id, model_id, stage, payload_json, created_at, updated_at) VALUES
            ('a1', 1, 1, 'answer', '{}', 'then', 'then'), ('a2', 1, 1, 'answer', '{}', 'then', 'then'),
            ('x1', 1, 1, 'extract', '{}', 'then', 'then');
        INSERT INTO responses (request_key, text, latency_s, model_identity, started_at, finished_at) VALUES
            ('a1', 'Try the Hoka Clifton, or New Balance.', 0, 'm', 'then', 'then'),
            ('a2', 'Nike Pegasus; Asics Novablast.', 0, 'm', 'then', 'then'),
            ('x1', '["Hoka", "New Balance"]', 0, 'm', 'then', 'then');
        """
    )
    old.close()
    conn = connect(path)
    assert answer_search.matching_keys(conn, "hoka") == {"a1"}  # the extraction's reply is no answer
    assert answer_search.matching_keys(conn, "nova*") == {"a2"}
    assert answer_search.matching_keys(conn, '"new balance" OR pegasus') == {"a1", "a2"}


def test_slash_in_the_review_screen_searches_the_answers_at_80x24(tmp_path, fake_server):
    import asyncio

    from helpers import on_screen, shown, wait_for
    from textual.widgets import Input

    from workbench.app import WorkbenchApp

    _, db = ran(tmp_path, fake_server, questions=8)
    hoka = expected(db, r"\bhoka\b")
    assert 0 < len(hoka) < 8

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: len(screen.items) == 8)

            async def search(query):
                await pilot.press("slash")
                assert await on_screen(pilot, "AnswerSearch")
                app.screen.query_one(Input).value = query
                await pilot.press("enter")

            await search("AND(")  # refused in one line; the dialog stays for another try
            error = " ".join(shown(app.screen.query_one("#answer-search-error")).split())  # wrapped at 80
            assert error.startswith("cannot search for 'AND(': syntax error") and error.endswith("inside them")
            assert type(app.screen).__name__ == "AnswerSearch"
            await pilot.press("escape")
            assert await on_screen(pilot, "ReviewScreen")

            await search("hoka")
            assert await on_screen(pilot, "ReviewScreen")
            assert await wait_for(pilot, lambda: sorted(i["id"] for i in screen.items) == hoka)
            assert "search hoka" in shown(screen.query_one("#review-status"))
            assert await wait_for(pilot, lambda: "Hoka" in shown(screen.query_one("#review-answer")))

            await search('"[red]"')  # markup in a query is shown as typed
            assert await wait_for(pilot, lambda: screen.items == [])
            assert 'search "[red]"' in shown(screen.query_one("#review-status"))

            await search("")  # empty: every answer again
            assert await wait_for(pilot, lambda: len(screen.items) == 8)
            assert "search" not in shown(screen.query_one("#review-status"))

    asyncio.run(scenario())
