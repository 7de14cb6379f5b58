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


@pytest.mark.parametrize("query", ['"', "AND(", "nike AND", "NOT", "   "])
def test_a_query_the_index_cannot_read_is_one_line(tmp_path, query):
    db = tmp_path / "audit.db"
    assert run_cli("import", "mentions", str(one_list(tmp_path)), "--db", str(db), "--study", "t").returncode == 0
    out = run_cli("review", "lists", "--db", str(db), "--study", "t", "--search", query)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "search" in out.stderr
    if query in ("nike AND", "NOT"):
        assert "joins two searches (e.g. shoes NOT Nike, Nike OR Puma)" in out.stderr


BRANDS = "7-Eleven, Levi's, H&M, AT&T, Dr. Martens and Nike: a list"


@pytest.mark.parametrize("query", ["7-Eleven", "Levi's", "H&M", "AT&T", "Dr. Martens", "Nike:", "a:b OR H&M"])
def test_brand_punctuation_is_searched_literally(tmp_path, fake_server, query):
    """Brands are full of punctuation FTS5 reads as syntax ("no such column: Eleven", "syntax
    error near \"'\""): such a word is searched for as written, as if in double quotes."""
    _, db = ran(tmp_path, fake_server, questions=2, config=ServerConfig(reply_text=BRANDS))
    found = searched(db, query)
    assert found == expected(db, ".") and len(found) == 2, (query, found)  # both answers hold every brand
    assert searched(db, "7-Eleven OR Reebok") == found and searched(db, "Levi's Reebok") == []


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
    from workbench.store import schema_entities_search
    from workbench.store.db import _statements, connect
    from workbench.store.reads import answer_search
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


QUERIES = (
    ("hoka", r"\bhoka\b"),
    ('"new balance"', r"\bnew balance\b"),
    ("sauc*", r"\bsauc"),
    ("puma OR brooks", r"\b(puma|brooks)\b"),
    ("picks", r"\bpicks\b"),
    ("reebok", r"\breebok\b"),
)


def by_answer(db) -> dict[int, int]:
    """Each list's answer (`responses.id`): the order a search gives its lists in."""
    return dict(rows(db, "SELECT l.id, p.id FROM mention_lists l JOIN responses p ON p.request_key = l.response_key"))


def reviewed(tmp_path, fake_server):
    """12 answers; ana accepts lists 1-4, bo (blind) rejects 2-4 (three reviewer
    disagreements), carla adjudicates list 4 (resolved)."""
    from workbench.store.db import connect
    from workbench.store.review import adjudication
    from workbench.store.review import verdicts as reviews

    _, db = ran(tmp_path, fake_server, questions=12)
    conn = connect(db)
    ids = [r[0] for r in rows(db, "SELECT id FROM mention_lists ORDER BY id")]
    for list_id in ids[:4]:
        reviews.review(conn, list_id, "ana", "accept")
    for list_id in ids[1:4]:
        reviews.review(conn, list_id, "bo", "reject", blind=True)
    adjudication.adjudicate(conn, ids[3], "carla", take="bo")
    return db, conn


def test_a_page_of_a_search_is_the_full_search_s_in_the_order_of_the_answers(tmp_path, fake_server):
    """For every filter and reader: the lists a search finds are those of the filter whose
    answer matches the regular expression; they come in the order of their answers; pages of
    1, 2 and 5 read one after another give the same lists, `more` true until the last; a walk
    read one matching answer at a time gives them too; and the Review screen's first page is
    their start."""
    from workbench.store.reads import answer_search
    from workbench.store.review import verdicts as reviews
    from workbench.store.review.pages import FILTERS

    db, conn = reviewed(tmp_path, fake_server)
    answer_of = by_answer(db)
    cases = [(only, who, False) for only in FILTERS for who in ("ana", "carla")]
    cases += [("unreviewed", "bo", True), ("all", "bo", True)]
    for query, pattern in QUERIES:
        matching = set(expected(db, pattern))
        one_at_a_time = answer_search.walk(conn, query, limit=None, chunk=1).ids
        assert sorted(one_at_a_time) == sorted(matching), query
        for only, who, blind in cases:
            in_filter = reviews.review_items(conn, "t", only, reviewer=who, blind=blind)
            want = sorted((i["id"] for i in in_filter if i["id"] in matching), key=lambda i: (answer_of[i], i))
            found = answer_search.search_lists(conn, query, only, study="t", reviewer=who, blind=blind, limit=None)
            assert found.ids == want and not found.more, (query, only, who)
            assert found.answers == len({answer_of[i] for i in matching})
            for size in (1, 2, 5):
                pages, offset, more = [], 0, True
                while more:
                    page = answer_search.search_lists(
                        conn, query, only, study="t", reviewer=who, blind=blind, offset=offset, limit=size
                    )
                    pages += page.ids
                    more, offset = page.more, offset + size
                    assert len(page.ids) == size or not more
                assert pages == want, (query, only, who, size)
            shown, first = answer_search.search_pages(conn, query, in_filter, 2)
            assert [p["id"] for p in shown] == want[:2] and first.more == (len(want) > 2)
    assert answer_search.search_lists(conn, "hoka", study="nope", limit=None).ids == []


def test_review_lists_search_pages_through_the_matches(tmp_path, fake_server):
    """`--limit/--offset`: JSON pages (an object: lists, offset, limit, more, answers_matching)
    that read one after another give the complete JSON's records; the table says which lists
    it shows, the next --offset and how many answers match."""
    _, db = ran(tmp_path, fake_server, questions=12)
    base = ("review", "lists", "--db", str(db), "--study", "t", "--search", "picks")
    complete = json.loads(run_cli(*base, "--format", "json").stdout)
    assert len(complete) == 12
    answer_of = by_answer(db)
    assert [r["list_id"] for r in complete] == sorted(answer_of, key=lambda i: (answer_of[i], i))
    paged, offset = [], 0
    while True:
        out = run_cli(*base, "--format", "json", "--limit", "5", "--offset", str(offset))
        page = json.loads(out.stdout)
        assert {k: page[k] for k in ("offset", "limit", "answers_matching")} == {
            "offset": offset,
            "limit": 5,
            "answers_matching": 12,
        }
        paged += page["lists"]
        offset += 5
        if not page["more"]:
            break
    assert paged == complete and offset == 15
    table = " ".join(run_cli(*base, "--limit", "5", "--offset", "5").stdout.split())
    assert "lists of t whose answer matches picks (lists 6-10; more: --offset 10; 12 answers in the store match)" in (
        table
    )
    rows_shown = [r["list_id"] for r in complete[5:10]]
    assert all(f" {i} " in table for i in rows_shown)
    last = " ".join(run_cli(*base, "--limit", "5", "--offset", "10").stdout.split())
    assert "(lists 11-12; 12 answers in the store match)" in last and "--offset" not in last
    # Without a search the same options page the lists in their order.
    plain = json.loads(run_cli(*base[:6], "--format", "json", "--limit", "3", "--offset", "2").stdout)
    assert [r["list_id"] for r in plain["lists"]] == sorted(answer_of)[2:5] and plain["more"]
    assert "answers_matching" not in plain


def test_the_review_screen_reads_a_search_a_page_at_a_time_at_80x24(tmp_path, fake_server, monkeypatch):
    """A search shows its first matches at once ("1/3+": more to read), in the order of the
    answers; moving on reads the next ones, staying on the response shown, until the last:
    every match once, as the full search gives them."""
    import asyncio

    from helpers import on_screen, shown, wait_for
    from textual.widgets import Input

    from workbench.app import WorkbenchApp
    from workbench.screens import review

    monkeypatch.setattr(review, "SEARCH_PAGE", 3)
    _, db = ran(tmp_path, fake_server, questions=10)
    answer_of = by_answer(db)
    want = sorted(expected(db, r"\bpicks\b"), key=lambda i: (answer_of[i], i))
    assert len(want) == 10

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: len(screen.items) == 10)
            await pilot.press("slash")
            assert await on_screen(pilot, "AnswerSearch")
            app.screen.query_one(Input).value = "picks"
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: [i["id"] for i in screen.items] == want[:3])
            assert ": 1/3+ · reviewer ana" in shown(screen.query_one("#review-status"))
            seen = [screen.page["id"]]
            for step in range(1, 10):
                await pilot.press("right")
                assert await wait_for(pilot, lambda s=step: screen.position == s and not screen.store_busy())
                seen.append(screen.page["id"])
            assert seen == want and [i["id"] for i in screen.items] == want
            assert ": 10/10 · reviewer ana" in shown(screen.query_one("#review-status"))

    asyncio.run(scenario())


def test_a_search_in_the_review_screen_follows_a_verdict_made_elsewhere(tmp_path, fake_server):
    """A verdict from another connection while a search is shown takes its list out of the
    unreviewed matches, and a search typed after it never shows the pages as they were."""
    import asyncio

    from helpers import on_screen, wait_for
    from textual.widgets import Input

    from workbench.app import WorkbenchApp
    from workbench.store.db import connect
    from workbench.store.review import verdicts as reviews

    _, db = ran(tmp_path, fake_server, questions=8)
    answer_of = by_answer(db)
    picks = sorted(expected(db, r"\bpicks\b"), key=lambda i: (answer_of[i], i))
    hoka = [i for i in picks if i in expected(db, r"\bhoka\b")]
    assert len(picks) == 8 and 1 < len(hoka) < 8

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
                assert await on_screen(pilot, "ReviewScreen")

            await search("picks")
            assert await wait_for(pilot, lambda: [i["id"] for i in screen.items] == picks)
            reviews.review(connect(db), hoka[0], "bo", "accept")  # elsewhere: no longer unreviewed
            # Searched at once, before the screen's next look at the store (what the dialog's
            # Enter does): the pages as they were are not what it searches.
            screen.search = "hoka"
            screen.load(search_only=True)
            assert await wait_for(pilot, lambda: [i["id"] for i in screen.items] == hoka[1:])
            await search("picks")
            assert await wait_for(pilot, lambda: [i["id"] for i in screen.items] == [i for i in picks if i != hoka[0]])

    asyncio.run(scenario())


def test_a_search_never_finds_the_lists_of_a_superseded_repetition(tmp_path, fake_server):
    """Fewer repetitions after a run: the other repetition's answers stay stored and indexed,
    but they and their lists count no more: a search (full or a page) finds and counts only
    what counts, as the review pages do."""
    from workbench.store.db import connect
    from workbench.store.reads import answer_search
    from workbench.store.review import verdicts as reviews

    server = fake_server(ServerConfig())
    study = write_study(tmp_path / "s.toml", models=[f"openai:m@{server.base_url}"], questions=3, repetitions=2)
    db = tmp_path / "s.db"
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    study.write_text(study.read_text().replace("repetitions = 2", "repetitions = 1"))
    assert run_cli("run", str(study), "--db", str(db), "--quiet").returncode == 0
    conn = connect(db)
    counting = {i["id"] for i in reviews.review_items(conn, "t")}
    stored = set(expected(db, r"\bpicks\b"))
    assert len(counting) == 3 and len(stored) == 6 and counting < stored
    assert len(answer_search.matching_ids(conn, "picks")) == 3  # stored and indexed, found no more
    assert answer_search.answers_matching(conn, "picks") == 3  # nor counted
    assert set(answer_search.search_lists(conn, "picks", study="t", limit=None).ids) == counting
    assert set(answer_search.search_lists(conn, "picks", study="t", limit=2).ids) < counting
    assert len(searched(db, "picks")) == 3
