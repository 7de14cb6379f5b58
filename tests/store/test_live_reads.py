"""What the live screens read again after a change elsewhere, by their fast paths, is what the
definitions give: the Review screen's pages (read again only where lists or verdicts changed,
`pages_since`), the progress on each filter, the Entities screen's list of every entity and
the entities its suggestions cluster (counted from an index). The definitions here are the
reads as they were before the fast paths, word for word: every list read and judged one by
one, every mention joined to its alias. Random stores, random sequences of verdicts, undos,
adjudications, re-extractions, superseded answers and merges; nothing is timed
(bench/bench_scale.py and bench/bench_tui.py measure)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from helpers import imported_mentions, shown, wait_for

from workbench.app import WorkbenchApp
from workbench.store.current_lists import counts_now
from workbench.store.db import connect, opened, utc_now
from workbench.store.entities import decisions as registry
from workbench.store.entities import mentions
from workbench.store.entities.listing import EntityRow, entity_rows
from workbench.store.errors import UserFacingError
from workbench.store.review import adjudication
from workbench.store.review import validation as review_validation
from workbench.store.review import verdicts as reviews
from workbench.store.review.base import latest_by_reviewer, scope_of, standing
from workbench.store.review.pages import FILTERS
from workbench.store.review.state import disagreement, resolution
from workbench.store.surface import normalize_surface

SPELLINGS = ["Nike", "NIKE", "nike", "Adidas", "adidas", "Puma", "Asics", "Hoka", "On", "Brooks"]
REVIEWERS = ["ana", "bo", "cy"]


# -- the definitions: the reads as they were ----------------------------------------------


def _old_rows(conn, study, only, topic, model):
    clauses, args = [counts_now("l")], []
    for column, value in (("study_id", study), ("topic", topic), ("model", model)):
        if value:
            clauses.append(
                f"l.{column} = " + ("(SELECT id FROM studies WHERE name = ?)" if column == "study_id" else "?")
            )
            args.append(value)
    if only == "disagreements":
        clauses.append("l.agreement IS NOT NULL AND l.agreement < 1")
    return conn.execute(
        "SELECT l.id, l.study_id, l.model, l.topic, l.cluster, l.question, l.repetition, l.source, l.agreement, "
        f"l.response_key FROM mention_lists l WHERE {' AND '.join(clauses)} ORDER BY l.id",
        args,
    ).fetchall()


def _old_keep(conn, only, verdicts, settled, reviewer, blind):
    if only == "unreviewed":
        return reviewer not in verdicts if blind else not verdicts
    if only in ("reviewer disagreements", "resolved"):
        if blind or disagreement(conn, verdicts) is None:
            return False
        return (settled is None) == (only == "reviewer disagreements")
    return True


def _old_item(row, verdicts, settled, blind):
    applied = [v for v in verdicts.values() if not v["blind"]]
    latest = max(applied or verdicts.values(), key=lambda v: v["id"], default=None)
    settled = None if blind else settled
    item = dict(row)
    item["verdict"] = f"{latest['decision']}|{latest['reviewer']}" if latest is not None else None
    item["verdicts"] = {
        who: {"decision": v["decision"], "list": json.loads(v["after_json"]), "blind": bool(v["blind"])}
        for who, v in sorted(verdicts.items())
    }
    item["adjudication"] = (
        {"by": settled["reviewer"], "took": settled["took"], "settles": json.loads(settled["adjudicates"])}
        if settled is not None
        else None
    )
    item["adjudicators"] = sorted(who for who, v in verdicts.items() if v["adjudicates"])
    item["blind"] = blind
    return item


def old_review_items(conn, study=None, only="all", topic=None, model=None, list_ids=None, reviewer=None, blind=False):
    every = standing(conn)
    wanted = set(list_ids) if list_ids is not None else None
    items = []
    for row in _old_rows(conn, study, only, topic, model):
        if wanted is not None and row["id"] not in wanted:
            continue
        scope = every.get(scope_of(row), [])
        verdicts = latest_by_reviewer(scope, row["response_key"])
        settled = resolution(scope, row["response_key"])
        if blind:
            verdicts = {who: v for who, v in verdicts.items() if who == reviewer}
        if _old_keep(conn, only, verdicts, settled, reviewer, blind):
            items.append(_old_item(row, verdicts, settled, blind))
    return items


def old_review_progress(conn, reviewer, only="all", *, topic=None, list_ids=None, blind=False):
    scope = {"unreviewed": "all", "reviewer disagreements": "resolved"}.get(only, only)
    items = old_review_items(conn, None, scope, topic, None, list_ids, reviewer, blind)
    if only == "reviewer disagreements":
        items += old_review_items(conn, None, only, topic, None, list_ids, reviewer, blind)
    return {
        "total": len(items),
        "mine": sum(1 for i in items if reviewer in i["verdicts"]),
        "reviewed": None if blind else sum(1 for i in items if i["verdicts"]),
        "resolved": None if blind else sum(1 for i in items if i["adjudication"]),
    }


def old_progress_by_reviewer(conn, items, only, reviewer, blind, topic=None):
    scope = items
    if only == "unreviewed":
        scope = old_review_items(conn, only="all", reviewer=reviewer, blind=blind, topic=topic)
    elif only == "reviewer disagreements":
        scope = items + old_review_items(conn, only="resolved", reviewer=reviewer, blind=blind, topic=topic)
    by: dict[str, int] = {}
    for item in scope:
        for who in item["verdicts"]:
            by[who] = by.get(who, 0) + 1
    if blind:
        by = {reviewer: by.get(reviewer, 0)}
    return {"total": len(scope), "by": by}


def old_entity_rows(conn):
    spellings: dict[int, list[str]] = {}
    for entity_id, surface in conn.execute(
        "SELECT a.entity_id, m.surface FROM mentions m JOIN aliases a ON a.surface_key = m.surface_key "
        "GROUP BY a.entity_id, m.surface ORDER BY a.entity_id, COUNT(*) DESC, m.surface"
    ):
        spellings.setdefault(entity_id, []).append(surface)
    found = [
        EntityRow(name, n, region, spellings.get(entity_id, []))
        for entity_id, name, region, n in conn.execute(
            "SELECT e.id, e.name, e.region, (SELECT COUNT(*) FROM mentions m JOIN aliases a "
            "ON a.surface_key = m.surface_key WHERE a.entity_id = e.id) FROM entities e "
            "WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)"
        )
    ]
    return sorted(found, key=lambda r: (-r.mentions, r.name))


def old_registry_rows(conn):
    return conn.execute(
        f"""
        SELECT e.name, e.region, e.attributes_json,
               (SELECT COUNT(*) FROM mentions m JOIN aliases a ON a.surface_key = m.surface_key
                JOIN mention_lists l ON l.id = m.list_id
                WHERE a.entity_id = e.id AND {counts_now("l")}) AS mentions
        FROM entities e WHERE EXISTS (SELECT 1 FROM aliases a WHERE a.entity_id = e.id)
        ORDER BY mentions DESC, e.name
        """
    ).fetchall()


def old_mentioned_entities(conn, study=None):
    where, args = ("AND l.study_id = (SELECT id FROM studies WHERE name = ?)", (study,)) if study else ("", ())
    return [
        (r[0], r[1])
        for r in conn.execute(
            f"""
        SELECT e.name, COUNT(*) FROM mentions m
        JOIN mention_lists l ON l.id = m.list_id
        JOIN aliases a ON a.surface_key = m.surface_key
        JOIN entities e ON e.id = a.entity_id
        WHERE {counts_now("l")} {where}
        GROUP BY e.id ORDER BY e.name
        """,
            args,
        )
    ]


# -- a random store and random changes ------------------------------------------------------


class World:
    """Two studies' lists (two models, two topics, one or two questions, two repetitions in
    one), most of them read from a request's answer; a writer and a reader connection, as two processes."""

    def __init__(self, path, rng: random.Random) -> None:
        self.rng = rng
        self.writer, self.reader = connect(path), connect(path)
        now = utc_now()
        with self.writer:  # a study and a model as an import and a run make them
            self.studies = {
                name: self.writer.execute(
                    "INSERT INTO studies (name, method, spec_json, created_at, updated_at) "
                    "VALUES (?, 'choice', '{}', ?, ?)",
                    (name, now, now),
                ).lastrowid
                for name in ("s", "t")
            }
            self.model_id = self.writer.execute(
                "INSERT INTO models (identity, spec, engine, name, params_json, created_at) "
                "VALUES ('m', 'openai:m@http://h/v1', 'openai', 'm', '{}', ?)",
                (now,),
            ).lastrowid
        self.answers = 0
        self.slots = [
            (study, model, topic, f"q{q}", rep)
            for study in self.studies
            for model in ("gpt", "llama")
            for topic in ("shoes", "phones")
            for q in range(rng.randint(1, 2))
            for rep in (1, 2)
            if rep == 1 or study == "s"
        ]
        self.extract(self.slots)

    def new_answer(self, study: str) -> str:
        self.answers += 1
        key = f"answer-{self.answers}"
        now = utc_now()
        with self.writer:
            self.writer.execute(
                "INSERT INTO requests (key, study_id, model_id, stage, status, payload_json, created_at, updated_at) "
                "VALUES (?, ?, ?, 'answer', 'done', '{}', ?, ?)",
                (key, self.studies[study], self.model_id, now, now),
            )
        return key

    def extract(self, slots) -> None:
        """Store (or replace) these slots' lists, some with a new answer, some imported."""
        for study in self.studies:
            lists = []
            for s, model, topic, question, rep in slots:
                if s != study:
                    continue
                picks = self.rng.sample(SPELLINGS, self.rng.randint(0, 4))
                surfaces = list({normalize_surface(p): p for p in picks}.values())
                key = self.new_answer(study) if self.rng.random() < 0.6 else None
                agreement = self.rng.choice([None, 0.5, 1.0])
                lists.append(
                    mentions.MentionList(
                        model,
                        topic,
                        "Budget",
                        question,
                        rep,
                        "vote",
                        [(p, normalize_surface(p), None) for p in surfaces],
                        response_key=key,
                        agreement=agreement,
                    )
                )
            if lists:
                mentions.store_lists(self.writer, self.studies[study], lists)

    def list_ids(self) -> list[int]:
        return [r[0] for r in self.writer.execute("SELECT id FROM mention_lists ORDER BY id")]

    def step(self) -> None:
        """One random change, as another process makes it (refusals are outcomes too)."""
        rng, conn = self.rng, self.writer
        ids = self.list_ids()
        kind = rng.choices(
            ["verdict", "adjudicate", "undo", "extract", "supersede", "merge", "undo entity"],
            weights=[8, 3, 2, 2, 1, 1, 1],
        )[0]
        try:
            if kind == "verdict":
                decision = rng.choice(reviews.DECISIONS)
                names = rng.sample(SPELLINGS, rng.randint(1, 3))
                who, blind = rng.choice(REVIEWERS[:2]), rng.random() < 0.3
                reviews.review(conn, rng.choice(ids[:8]), who, decision, names, blind=blind)
            elif kind == "adjudicate":  # mostly a list in the queue
                queue = [item["id"] for item in reviews.review_items(conn, only="reviewer disagreements")]
                take = rng.choice(["ana", "bo", adjudication.OWN])
                adjudication.adjudicate(conn, rng.choice(queue or ids), "cy", take, rng.sample(SPELLINGS, 2))
            elif kind == "undo":
                reviews.undo_review(conn, rng.choice(REVIEWERS))
            elif kind == "extract":
                self.extract(rng.sample(self.slots, rng.randint(1, 3)))
            elif kind == "supersede":
                keys = [r[0] for r in conn.execute("SELECT key FROM requests")]
                with conn:
                    conn.execute("UPDATE requests SET superseded = 1 - superseded WHERE key = ?", (rng.choice(keys),))
            elif kind == "merge":
                names = [r[0] for r in conn.execute("SELECT name FROM live_entities")]
                if len(names) > 2:
                    registry.merge(conn, rng.sample(names, 2), who="cy")
            else:
                registry.undo(conn, "cy")
        except UserFacingError:
            pass


@pytest.mark.parametrize("seed", range(6))
def test_the_live_reads_equal_their_definitions_after_random_changes(tmp_path, seed):
    rng = random.Random(seed)
    world = World(tmp_path / "s.db", rng)
    conn = world.reader
    asked = [(only, reviewer, topic) for only in FILTERS for reviewer in REVIEWERS for topic in (None, "shoes")]
    earlier: dict[tuple, tuple] = {}
    for _ in range(40):
        world.step()
        for only, reviewer, topic in asked:
            fresh = reviews.review_items(conn, only=only, reviewer=reviewer, topic=topic)
            assert fresh == old_review_items(conn, only=only, reviewer=reviewer, topic=topic)
            pages, mark = reviews.pages_since(
                conn, earlier.get((only, reviewer, topic)), only, reviewer=reviewer, topic=topic
            )
            assert pages == fresh
            # as the screen keeps them: the page on screen holds its details
            shown = [dict(p, entities=["details"]) if i == 0 else p for i, p in enumerate(pages)]
            earlier[(only, reviewer, topic)] = (shown, mark)
            progress = reviews.progress_counts(conn, reviewer, only, topic=topic)
            assert reviews.review_progress(conn, reviewer, only, topic=topic) == old_review_progress(
                conn, reviewer, only, topic=topic
            )
            old = old_progress_by_reviewer(conn, fresh, only, reviewer, False, topic=topic)
            assert {"total": progress["total"], "by": progress["by"]} == old
        sample = review_validation.validation_sample(conn, rate=0.5)
        for reviewer in REVIEWERS[:2]:
            blind = reviews.review_items(conn, list_ids=sample, reviewer=reviewer, blind=True)
            assert blind == old_review_items(conn, list_ids=sample, reviewer=reviewer, blind=True)
            progress = reviews.progress_counts(conn, reviewer, list_ids=sample, blind=True)
            assert {"total": progress["total"], "by": progress["by"]} == old_progress_by_reviewer(
                conn, blind, "all", reviewer, True
            )
            assert reviews.review_progress(conn, reviewer, "unreviewed", list_ids=sample, blind=True) == (
                old_review_progress(conn, reviewer, "unreviewed", list_ids=sample, blind=True)
            )
        assert entity_rows(conn) == old_entity_rows(conn)
        assert registry.entity_table(conn) == [tuple(row) for row in old_registry_rows(conn)]
        for study in (None, "s", "t"):
            assert registry.mentioned_entities(conn, study) == old_mentioned_entities(conn, study)


def test_a_list_edited_elsewhere_is_read_again_and_the_others_are_kept(tmp_path):
    """The Review screen's case: ana's pages read, bo edits one list from another connection;
    the pages read since give the edited list as it is now, and every other page is the very
    page read before (nothing else read again)."""
    world = World(tmp_path / "s.db", random.Random(1))
    conn = world.reader
    pages, mark = reviews.pages_since(conn, None, "all", reviewer="ana")
    edited = pages[1]["id"]
    reviews.review(world.writer, edited, "bo", "edit", ["Hoka", "Brooks"])
    again, _ = reviews.pages_since(conn, (pages, mark), "all", reviewer="ana")
    assert again == reviews.review_items(conn, reviewer="ana")
    assert [p["verdict"] for p in again if p["id"] == edited] == ["edit|bo"]
    assert all(new is old for new, old in zip(again, pages) if new["id"] != edited)


def test_the_entity_list_counts_every_spelling_of_an_entity(tmp_path):
    """Nike's spellings (Nike, NIKE, nike) are one surface key; merged with adidas, each
    spelling counts for the entity kept, the most mentioned first (then by spelling)."""
    db = tmp_path / "s.db"
    conn = connect(db)
    with conn:
        study = conn.execute(
            "INSERT INTO studies (name, method, spec_json, created_at, updated_at) VALUES ('s', 'choice', '{}', ?, ?)",
            (utc_now(), utc_now()),
        ).lastrowid
    picks = [["Nike", "Puma"], ["NIKE"], ["Nike", "adidas"], ["Adidas"], ["nike"], ["Nike"]]
    mentions.store_lists(
        conn,
        study,
        [
            mentions.MentionList(
                "gpt", "shoes", None, f"q{i}", 1, "import", [(p, normalize_surface(p), None) for p in ps]
            )
            for i, ps in enumerate(picks)
        ],
    )
    registry.merge(conn, ["Nike", "Adidas"], "Nike", who="ana")
    listed = {row.name: row for row in entity_rows(conn)}
    assert listed["Nike"].mentions == 7 and listed["Nike"].spellings == ["Nike", "Adidas", "NIKE", "adidas", "nike"]
    assert listed["Puma"].mentions == 1 and set(listed) == {"Nike", "Puma"}
    assert registry.mentioned_entities(conn) == [("Nike", 7), ("Puma", 1)]


def test_the_spelling_index_serves_the_count(tmp_path):
    """Counting per spelling reads the index alone (migration 28), never the mention rows."""
    conn = connect(tmp_path / "s.db")
    plan = " ".join(
        str(r[3])
        for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT surface_key, surface, COUNT(*) FROM mentions GROUP BY surface_key, surface"
        )
    )
    assert "COVERING INDEX mentions_spelling" in plan and "TEMP B-TREE" not in plan


def test_the_review_screen_follows_verdicts_and_undos_made_elsewhere(tmp_path):
    """Ana's Review screen on "unreviewed" (4 lists); bo judges list 3 from another process:
    it leaves ana's pages and bo's progress reads 1/4; bo's undo brings it back. The pages
    read since each change are the pages a fresh read gives."""
    db = imported_mentions(tmp_path, (("Nike", 2), ("Adidas", 2)))

    def elsewhere(change):
        with opened(db) as writer:  # another process's connection
            change(writer)

    def fresh_ids():
        with opened(db) as conn:
            return [item["id"] for item in reviews.review_items(conn, only="unreviewed", reviewer="ana")]

    async def scenario():
        app = WorkbenchApp(db, reviewer="ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("4")
            screen = app.screen
            assert await wait_for(pilot, lambda: len(screen.pages) == 4 and "entities" in (screen.page or {}))
            elsewhere(lambda conn: reviews.review(conn, 3, "bo", "accept"))
            assert await wait_for(pilot, lambda: len(screen.pages) == 3)
            assert [p["id"] for p in screen.pages] == fresh_ids() == [1, 2, 4]
            assert await wait_for(pilot, lambda: "bo" in shown(screen.query_one("#review-progress")))
            assert "1/4" in shown(screen.query_one("#review-progress"))
            elsewhere(lambda conn: reviews.undo_review(conn, "bo"))
            assert await wait_for(pilot, lambda: len(screen.pages) == 4)
            assert [p["id"] for p in screen.pages] == fresh_ids() == [1, 2, 3, 4]
            assert await wait_for(pilot, lambda: "nobody has reviewed" in shown(screen.query_one("#review-progress")))

    asyncio.run(scenario())


def test_a_merge_elsewhere_settles_a_reviewer_disagreement_on_the_pages_read_since(tmp_path):
    """Ana's list reads Puma, bo's Asics: a reviewer disagreement. Puma and Asics merged from
    another connection (no list and no verdict changes), the two lists name one entity: the
    disagreement leaves the queue on the pages read since, as on a fresh read."""
    world = World(tmp_path / "s.db", random.Random(2))
    conn, list_id = world.reader, world.list_ids()[0]
    reviews.review(world.writer, list_id, "ana", "edit", ["Puma"])
    reviews.review(world.writer, list_id, "bo", "edit", ["Asics"], blind=True)
    queue, mark = reviews.pages_since(conn, None, "reviewer disagreements")
    assert [page["id"] for page in queue] == [list_id]
    registry.merge(world.writer, ["Puma", "Asics"], "Puma", who="cy")
    assert reviews.pages_since(conn, (queue, mark), "reviewer disagreements")[0] == []
    assert reviews.review_items(conn, only="reviewer disagreements") == []
