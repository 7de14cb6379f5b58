"""An edited ChoiceEval study plans again only the questions it changed, and the store ends
exactly as a whole plan of the edited study leaves it (workbench/pipeline/queue_build.py).

Each check runs the same history of studies (and of answers, reviewers' edits and
verifications in between) on two stores: one planned unit by unit, one planned whole as
before units existed. Their requests tables (keys, question ids, payloads, statuses,
superseded flags) must be equal after every step.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from workbench import methods
from workbench.methods.choice import study as choice_study
from workbench.methods.study_files import load_study
from workbench.pipeline.audit import prepare
from workbench.store.db import connect, transaction
from workbench.store.requests import plan_marks, queue
from workbench.store.requests import questions as question_store

MODEL = "openai:m@http://127.0.0.1:9/v1"
OTHER = "openai:other@http://127.0.0.1:9/v1"


@dataclass(frozen=True)
class Spec:
    """A small ChoiceEval study: topic -> cluster -> questions, and its settings."""

    topics: dict = field(
        default_factory=lambda: {"shoes": {"us": ["Which shoe?", "Which boot?"], "eu": ["Which sneaker?"]}}
    )
    repetitions: int = 2
    temperature: float = 0.7
    system: str | None = None
    models: tuple = (MODEL,)
    verified_only: bool = False


def _quoted(texts) -> str:
    return "[" + ", ".join(f'"{t}"' for t in texts) + "]"


def write(path: Path, spec: Spec) -> Path:
    lines = [
        'name = "s"',
        'method = "choice"',
        "seed = 1",
        f"repetitions = {spec.repetitions}",
        f"verified_only = {'true' if spec.verified_only else 'false'}",
        f"models = {_quoted(spec.models)}",
        "[generation]",
        f"temperature = {spec.temperature}",
        *([f'system = "{spec.system}"'] if spec.system else []),
        "[extraction]",
        'method = "list"',
    ]
    for topic, clusters in spec.topics.items():
        if not any(clusters.values()):
            continue  # a topic left without questions is taken out of the file (one is refused)
        lines += ["[[topics]]", f'name = "{topic}"', "[topics.questions]"]
        lines += [f"{cluster} = {_quoted(texts)}" for cluster, texts in clusters.items() if texts]
    for cluster in ("us", "eu"):
        lines += ["[[clusters]]", f'name = "{cluster}"', f'description = "people in {cluster}"']
    path.write_text("\n".join(lines) + "\n")
    return path


@contextmanager
def whole_plans():
    """Plan as before units existed: every model whose mark differs planned whole."""
    kind = type(methods.get("choice"))
    hook = kind.__dict__["plan_units"]
    kind.plan_units = None
    try:
        yield
    finally:
        kind.plan_units = hook


def table(conn: sqlite3.Connection) -> list[tuple]:
    return sorted(
        tuple(r)
        for r in conn.execute(
            "SELECT r.key, m.identity, r.stage, r.question_id, r.repetition, r.seed, r.payload_json, r.status, "
            "r.superseded FROM requests r JOIN models m ON m.id = r.model_id"
        )
    )


class Twin:
    """The same history on two stores: planned by units, and planned whole."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.study = folder / "s.toml"
        self.units = connect(folder / "units.db")
        self.whole = connect(folder / "whole.db")

    def plan(self, spec: Spec, built: list | None = None) -> list[tuple[int, int]]:
        """Plan `spec` in both stores; `built` (the fixture's list) keeps what the units' plan built."""
        write(self.study, spec)
        start = len(built) if built is not None else 0
        by_units = prepare(self.units, load_study(self.study))
        self.built = built[start:] if built is not None else []  # the whole plan's are not counted
        with whole_plans():
            whole = prepare(self.whole, load_study(self.study))
        counts = [(m.planned, m.total) for m in by_units.models]
        assert counts == [(m.planned, m.total) for m in whole.models]
        self.check()
        return counts

    def check(self) -> None:
        assert table(self.units) == table(self.whole)

    def both(self, change) -> None:
        """A change made the same way to both stores (answers, reviewers' edits)."""
        change(self.units)
        change(self.whole)

    def close(self) -> None:
        self.units.close()
        self.whole.close()


def answer_some(conn: sqlite3.Connection, every: int = 2, status: str = "done") -> None:
    """Answer (or fail) every other current request, by key order: the same ones in both stores."""
    keys = [
        k for (k,) in conn.execute("SELECT key FROM requests WHERE superseded = 0 AND status = 'pending' ORDER BY key")
    ]
    with transaction(conn):
        conn.executemany("UPDATE requests SET status = ? WHERE key = ?", [(status, k) for k in keys[::every]])


def edit_first_question(new_text: str):
    def change(conn):
        question_id = conn.execute("SELECT MIN(id) FROM questions").fetchone()[0]
        question_store.edit_question(conn, 1, question_id, new_text)

    return change


@pytest.fixture
def twin(tmp_path):
    pair = Twin(tmp_path)
    yield pair
    pair.close()


@pytest.fixture
def built(monkeypatch):
    """The requests ChoiceEval's plan was asked to build (both passes: counting and storing)."""
    made = []
    real = choice_study.plan_requests

    def counting(*args, **kwargs):
        for request in real(*args, **kwargs):
            made.append(request.key)
            yield request

    monkeypatch.setattr(choice_study, "plan_requests", counting)
    return made


BASE = Spec()
ONE_MORE = replace(
    BASE, topics={"shoes": {"us": ["Which shoe?", "Which boot?", "Which sandal?"], "eu": ["Which sneaker?"]}}
)
EDITS = {
    "add a question": ONE_MORE,
    "remove a question": replace(BASE, topics={"shoes": {"us": ["Which shoe?"], "eu": ["Which sneaker?"]}}),
    "change a question's text": replace(
        BASE, topics={"shoes": {"us": ["Which shoe?", "Which hiking boot?"], "eu": ["Which sneaker?"]}}
    ),
    "add a topic": replace(BASE, topics={**BASE.topics, "phones": {"eu": ["Which phone?", "Which tablet?"]}}),
    "more repetitions": replace(BASE, repetitions=3),
    "fewer repetitions": replace(BASE, repetitions=1),
    "another temperature": replace(BASE, temperature=0.2),
    "a system prompt": replace(BASE, system="Be brief."),
    "another model": replace(BASE, models=(OTHER,)),
    "a second model": replace(BASE, models=(MODEL, OTHER)),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_leaves_the_store_as_a_whole_plan_does(twin, edit):
    twin.plan(BASE)
    twin.both(answer_some)
    twin.plan(EDITS[edit])
    twin.both(lambda conn: answer_some(conn, 3, "failed"))
    twin.plan(BASE)  # and back
    twin.plan(EDITS[edit])


def test_the_edited_plan_is_what_a_fresh_store_plans(twin, tmp_path):
    """The requests current after edits are those a store that never saw the earlier studies
    plans (a question the file dropped on the way, or a topic, is superseded)."""
    last = replace(EDITS["another temperature"], topics=EDITS["remove a question"].topics, repetitions=3)
    for spec in (BASE, EDITS["add a topic"], EDITS["another temperature"], last):
        twin.plan(spec)
    fresh = connect(tmp_path / "fresh.db")
    prepare(fresh, load_study(write(tmp_path / "fresh.toml", last)))
    current = "SELECT key, repetition, seed, payload_json, status FROM requests WHERE superseded = 0 ORDER BY key"
    assert [tuple(r) for r in twin.units.execute(current)] == [tuple(r) for r in fresh.execute(current)]
    fresh.close()


def test_only_the_changed_question_is_planned(twin, built):
    repetitions = BASE.repetitions
    twin.plan(BASE)
    built.clear()
    write(twin.study, BASE)
    prepare(twin.units, load_study(twin.study))
    assert built == [], "a resume built requests"
    write(twin.study, ONE_MORE)
    assert [(m.planned, m.total) for m in prepare(twin.units, load_study(twin.study)).models] == [(2, 8)]
    # counted before anything is stored, then stored: the new question's repetitions, twice
    assert len(built) == 2 * repetitions and len(set(built)) == repetitions
    built.clear()
    write(twin.study, replace(ONE_MORE, topics={**ONE_MORE.topics, "phones": {"eu": ["Which phone?"]}}))
    prepare(twin.units, load_study(twin.study))
    assert len(set(built)) == repetitions


def test_a_change_to_what_no_request_holds_plans_nothing(twin, built):
    """The extraction settings are in the study but in no answer request: nothing is built."""
    twin.plan(BASE)
    built.clear()
    write(twin.study, BASE)
    twin.study.write_text(twin.study.read_text().replace('method = "list"', 'method = "list"\nk = 3'))
    prepare(twin.units, load_study(twin.study))
    assert built == []


def test_a_reviewers_edit_supersedes_the_old_wording_only(twin, built):
    twin.plan(BASE)
    twin.both(answer_some)
    twin.both(edit_first_question("Which running shoe?"))
    twin.plan(BASE, built)
    superseded = twin.units.execute("SELECT COUNT(*) FROM requests WHERE superseded = 1").fetchone()[0]
    assert superseded == BASE.repetitions
    assert len(set(twin.built)) == BASE.repetitions  # the new wording only


def test_a_request_two_questions_ask_stays_while_one_asks_it(twin):
    """Two clusters with the same wording ask the same requests: editing one away keeps them.
    (A study file refuses a wording twice in a topic; an imported question can repeat one.)"""
    same = replace(BASE, topics={"shoes": {"us": ["Which shoe?"], "eu": ["Which sneaker?"]}})
    twin.plan(same)
    imported = choice_study.Question("shoes", "eu", "eu", 5, "Which shoe?", "imported")
    twin.both(lambda conn: question_store.insert_questions(conn, 1, [imported]))
    twin.plan(same)
    twin.both(edit_first_question("Which trail shoe?"))
    twin.plan(same)
    assert twin.units.execute("SELECT COUNT(*) FROM requests WHERE superseded = 1").fetchone()[0] == 0


def test_unverified_questions_leave_the_plan(twin):
    spec = replace(BASE, verified_only=True)
    twin.plan(spec)
    twin.both(lambda conn: question_store.set_verified(conn, 1, None))
    twin.plan(spec)
    twin.both(lambda conn: question_store.set_verified(conn, 1, [1], verified=False))
    twin.plan(spec)
    assert twin.units.execute("SELECT COUNT(*) FROM requests WHERE superseded = 1").fetchone()[0] == BASE.repetitions


def test_a_run_killed_while_planning_units_is_planned_again(twin, monkeypatch):
    """Killed after the new requests are stored and before the marks: the next run (here of
    the study as it was before the edit) still ends as a whole plan does."""
    twin.plan(BASE)
    twin.both(edit_first_question("Which running shoe?"))

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    write(twin.study, BASE)
    with monkeypatch.context() as patch:
        patch.setattr(queue, "supersede_changed", killed)
        with pytest.raises(KeyboardInterrupt):
            prepare(twin.units, load_study(twin.study))
    assert plan_marks.marks(twin.units, 1) == {}, "the mark outlived a plan it no longer describes"
    with whole_plans():  # the other store plans the edit too (its requests stored, as in the killed run)
        prepare(twin.whole, load_study(twin.study))
    twin.both(edit_first_question("Which shoe?"))
    twin.plan(BASE)


def test_a_run_killed_while_planning_whole_is_planned_again(twin, monkeypatch):
    twin.plan(BASE)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    write(twin.study, EDITS["another temperature"])
    with monkeypatch.context() as patch:
        patch.setattr(queue, "supersede_others", killed)
        with pytest.raises(KeyboardInterrupt):
            prepare(twin.units, load_study(twin.study))
    with whole_plans():
        prepare(twin.whole, load_study(twin.study))
    twin.plan(BASE)
    twin.plan(EDITS["another temperature"])


TEXTS = ["Which shoe?", "Which boot?", "Which sneaker?", "Which sandal?"]


class RandomEdits(RuleBasedStateMachine):
    """Random edits of a small study and of its store; after each, the store planned by
    units equals the one planned whole."""

    def __init__(self):
        super().__init__()
        import tempfile

        self.folder = tempfile.TemporaryDirectory()
        self.twin = Twin(Path(self.folder.name))
        self.spec = BASE

    @initialize()
    def first_plan(self):
        self.twin.plan(self.spec)

    @rule(
        topic=st.sampled_from(["shoes", "phones"]), cluster=st.sampled_from(["us", "eu"]), text=st.sampled_from(TEXTS)
    )
    def toggle_question(self, topic, cluster, text):
        topics = {t: {c: list(q) for c, q in cs.items()} for t, cs in self.spec.topics.items()}
        questions = topics.setdefault(topic, {}).setdefault(cluster, [])
        if text not in questions and any(text in q for q in topics[topic].values()):
            return  # a study file refuses a wording twice in a topic (imports may repeat one)
        if questions == [text] and sum(len(q) for cs in topics.values() for q in cs.values()) == 1:
            return  # the study's last question stays: a study asks something
        questions.remove(text) if text in questions else questions.append(text)
        self.spec = replace(self.spec, topics=topics)
        self.twin.plan(self.spec)

    @rule(
        repetitions=st.integers(1, 3),
        temperature=st.sampled_from([0.2, 0.7]),
        system=st.sampled_from([None, "Be brief."]),
    )
    def settings(self, repetitions, temperature, system):
        self.spec = replace(self.spec, repetitions=repetitions, temperature=temperature, system=system)
        self.twin.plan(self.spec)

    @rule(models=st.sampled_from([(MODEL,), (OTHER,), (MODEL, OTHER)]), verified_only=st.booleans())
    def models_and_verification(self, models, verified_only):
        self.spec = replace(self.spec, models=models, verified_only=verified_only)
        self.twin.plan(self.spec)

    @rule(text=st.sampled_from(TEXTS + ["Which trail shoe?"]), verified=st.booleans())
    def review(self, text, verified):
        """A reviewer rewords the first question (or verifies it), then the study runs again."""

        def change(conn):
            first = conn.execute("SELECT MIN(id) FROM questions").fetchone()[0]
            try:
                question_store.edit_question(conn, 1, first, text)
            except Exception:  # the cluster has that wording already: refused in both stores
                pass
            question_store.set_verified(conn, 1, [first], verified)

        self.twin.both(change)
        self.twin.plan(self.spec)

    @rule(status=st.sampled_from(["done", "failed"]))
    def answer(self, status):
        self.twin.both(lambda conn: answer_some(conn, 2, status))

    @invariant()
    def same_store(self):
        self.twin.check()

    def teardown(self):
        self.twin.close()
        self.folder.cleanup()


RandomEdits.TestCase.settings = settings(
    max_examples=12, stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck)
)
test_random_edits_plan_as_a_whole_plan = RandomEdits.TestCase


def test_a_plan_too_large_is_refused_counting_the_marked_units(twin):
    """The units kept count by their marks: one question more than the limit allows is refused
    before anything is stored."""
    from workbench.pipeline.queue_limits import PlanTooLarge

    twin.plan(BASE)  # 3 questions x 2 repetitions
    write(twin.study, ONE_MORE)
    with pytest.raises(PlanTooLarge):
        prepare(twin.units, load_study(twin.study), max_requests=7)
    assert twin.units.execute("SELECT COUNT(*) FROM requests").fetchone()[0] == 6
    assert twin.units.execute("SELECT COUNT(*) FROM questions WHERE text = 'Which sandal?'").fetchone()[0] == 0
    assert [m.total for m in prepare(twin.units, load_study(twin.study), max_requests=8).models] == [8]
