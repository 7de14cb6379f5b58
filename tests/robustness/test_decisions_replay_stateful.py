"""Random sequences of human decisions (verdicts open and blind by three reviewers, so that some
adjudicate; undo; merges, renames, regions and their undo) on one store, then the decisions
export imported into a second store holding the same lists: both read the same (every list's
names, every entity's name and region, the decision log but for what was taken back), a second
import records nothing new, and nothing is ever refused. Real SQLite files, the real CLI."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import hypothesis.strategies as st
from helpers import run_cli
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from workbench.store.db import connect, utc_now
from workbench.store.entities import decisions as registry
from workbench.store.entities import mentions
from workbench.store.errors import UserFacingError
from workbench.store.requests.studies import ensure_study
from workbench.store.review import verdicts as reviews
from workbench.store.surface import normalize_surface

SPELLINGS = ["Nike", "NIKE", "Nike Air", "Adidas", "adidas AG", "Puma", "Asics", "Hoka"]
NEW_NAMES = ["Swoosh", "Three Stripes", "Big Cat"]
QUESTIONS = ["q0", "q1", "q2"]
REVIEWERS = ["ana", "bo", "cy"]  # cy's open verdict on ana's and bo's disagreement adjudicates it
REGIONS = ["United States", "Europe", "Asia", None]
KEPT = ("kind", "action", "who", "at", "why", "study", "scope", "state")


def _store(path: Path, picks: list[list[str]]) -> None:
    """The same lists in every store: one per question, each an answer's key."""
    conn = connect(str(path), True)
    try:
        study = ensure_study(conn, "s", "choice")
        lists = [
            mentions.MentionList(
                "gpt",
                "shoes",
                "Budget",
                question,
                1,
                "vote",
                [(s, normalize_surface(s), None) for s in {normalize_surface(s): s for s in surfaces}.values()],
                response_key=f"answer-{question}",
            )
            for question, surfaces in zip(QUESTIONS, picks)
        ]
        mentions.store_lists(conn, study, lists)
    finally:
        conn.close()


def _read(db: Path, what: str) -> list[dict]:
    done = run_cli("export", "--db", str(db), "--what", what, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Replay(RuleBasedStateMachine):
    @initialize(picks=st.lists(st.lists(st.sampled_from(SPELLINGS), max_size=4), min_size=3, max_size=3))
    def start(self, picks):
        self.folder = Path(tempfile.mkdtemp())
        self.picks = picks
        self.source = self.folder / "source.db"
        _store(self.source, picks)
        self.conn = connect(str(self.source), False)

    def _decide(self, act) -> None:
        try:
            act()
        except UserFacingError:
            pass  # a refusal a user reads (nothing to undo, already one entity, ...): nothing recorded
        # The log orders decisions by their millisecond: the next one is made in a later one, as a
        # person's next decision always is (a wait on the clock's value, not a sleep).
        now = utc_now()
        while utc_now() == now:
            pass

    def _list_id(self, question: str) -> int:
        return self.conn.execute("SELECT id FROM mention_lists WHERE question = ?", (question,)).fetchone()[0]

    @rule(
        who=st.sampled_from(REVIEWERS),
        question=st.sampled_from(QUESTIONS),
        decision=st.sampled_from(reviews.DECISIONS),
        names=st.lists(st.sampled_from(SPELLINGS + NEW_NAMES), min_size=1, max_size=3, unique_by=str.casefold),
        blind=st.booleans(),
    )
    def verdict(self, who, question, decision, names, blind):
        self._decide(lambda: reviews.review(self.conn, self._list_id(question), who, decision, names, blind=blind))

    @rule(who=st.sampled_from(REVIEWERS))
    def undo_verdict(self, who):
        self._decide(lambda: reviews.undo_review(self.conn, who))

    @rule(who=st.sampled_from(REVIEWERS), a=st.sampled_from(SPELLINGS), b=st.sampled_from(SPELLINGS + NEW_NAMES))
    def merge(self, who, a, b):
        self._decide(lambda: registry.merge(self.conn, [a, b], who=who, why="same brand"))

    @rule(who=st.sampled_from(REVIEWERS), name=st.sampled_from(SPELLINGS), region=st.sampled_from(REGIONS))
    def region(self, who, name, region):
        self._decide(lambda: registry.set_region(self.conn, [name], region, who=who))

    @rule(who=st.sampled_from(REVIEWERS), name=st.sampled_from(SPELLINGS), new=st.sampled_from(NEW_NAMES))
    def rename(self, who, name, new):
        self._decide(lambda: registry.rename(self.conn, name, new, who=who))

    @rule(who=st.sampled_from(REVIEWERS))
    def undo_entity(self, who):
        self._decide(lambda: registry.undo(self.conn, who))

    def teardown(self):
        if not hasattr(self, "conn"):
            return
        self.conn.close()
        try:
            self._check()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _check(self) -> None:
        exported = self.folder / "decisions.json"
        done = run_cli("export", "--db", str(self.source), "--what", "decisions", "--format", "json", "-o", exported)
        assert done.returncode == 0, done.stderr
        target = self.folder / "target.db"
        _store(target, self.picks)
        done = run_cli("import", "decisions", str(exported), "--db", str(target))
        assert done.returncode == 0, done.stderr
        assert "refused" not in done.stdout, done.stdout
        for what in ("mentions", "entities"):
            assert _read(target, what) == _read(self.source, what), what
        standing = lambda db: [  # noqa: E731  (an entity decision taken back is not made again)
            {k: r[k] for k in KEPT} for r in _read(db, "decisions") if r["kind"] != "entity" or r["state"] == "active"
        ]
        assert standing(target) == standing(self.source)
        again = run_cli("import", "decisions", str(exported), "--db", str(target))
        assert again.returncode == 0 and "Nothing new" in again.stdout, again.stdout


Replay.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=10,
    deadline=None,
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow],
)
TestDecisionsReplay = Replay.TestCase


def test_a_no_op_rename_after_a_rename_taken_back_is_replayed():
    """Found by the machine above: ana renames adidas AG to Three Stripes, bo renames it to the
    same name (a no-op), ana takes hers back. The export's no-op names 'Three Stripes', which the
    new store never had: the whole file was refused ("no entity 'Three Stripes'")."""
    state = Replay()
    state.start(picks=[[], [], ["adidas AG"]])
    state.rename(name="adidas AG", new="Three Stripes", who="ana")
    state.rename(name="adidas AG", new="Three Stripes", who="bo")
    state.undo_entity(who="ana")
    state.teardown()  # the two stores read the same lists, entities and standing decisions
