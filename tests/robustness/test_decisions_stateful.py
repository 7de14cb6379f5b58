"""Random interleavings of every human decision and every replacement of derived data,
from two connections, against a small reference model of what the decisions mean.

After every step: no operation raised anything but a refusal a user can read (never a
constraint error), each refusal and each undo is the one the rules predict, and the lists
and every ChoiceEval metric equal a computation from the reference's logical state.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

import hypothesis.strategies as st
from hypothesis import HealthCheck, event, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from workbench.methods.choice import data as choice_data
from workbench.methods.choice.metrics import ResponseList, choice_metric_records
from workbench.metrics.intervals import resampling
from workbench.store.db import connect
from workbench.store.entities import decisions as registry
from workbench.store.entities import mentions
from workbench.store.errors import UserFacingError
from workbench.store.requests.studies import ensure_study
from workbench.store.review import adjudication
from workbench.store.review import validation as review_validation
from workbench.store.review import verdicts as reviews
from workbench.store.surface import normalize_surface

SPELLINGS = ["Nike", "NIKE", "Nike Air", "Adidas", "adidas AG", "Puma", "Asics", "Hoka"]
NEW_NAMES = ["Swoosh", "Three Stripes", "Big Cat", "Nike Air"]
QUESTIONS = ["q0", "q1", "q2"]
REVIEWERS = ["ana", "bo"]
ADJUDICATOR = "cy"  # a third reviewer: settles ana's and bo's disagreements, validates nothing
SAMPLE_RATE, SAMPLE_SEED = 0.5, 3
REGIONS = ["United States", "Europe", "Asia", None]
ACTIONS_OF_ENTITIES = registry.ENTITY_ACTIONS


@dataclass
class Verdict:
    id: int
    question: str
    reviewer: str
    after: list[str]
    blind: bool
    answer: str
    undone: bool = False
    adjudicates: bool = False
    settled: dict[str, int] = field(default_factory=dict)  # an adjudication: each party's verdict it settled
    decision: str = ""  # a verdict's (an adjudication's is not compared)
    took: str | None = None  # an adjudication: whose list it took (None: the adjudicator's own)


@dataclass
class Decision:
    id: int
    who: str
    changes: list[tuple]  # (kind, subject, before, after): kind alias | name | region | forbid
    undone: int = 0  # 0 active, >0 undo order, -1 out of the redo chain


@dataclass
class Reference:
    """What the decisions describe, kept by logical names and values only."""

    extraction: dict[str, list[str]] = field(default_factory=dict)
    answer: dict[str, str] = field(default_factory=dict)
    verdicts: list[Verdict] = field(default_factory=list)
    alias: dict[str, int] = field(default_factory=dict)  # surface key -> entity
    name: dict[int, str] = field(default_factory=dict)
    region: dict[int, str | None] = field(default_factory=dict)
    forbidden: set[tuple[int, int]] = field(default_factory=set)
    decisions: list[Decision] = field(default_factory=list)
    next_entity: int = 1
    undo_order: int = 0

    # -- lists -------------------------------------------------------------------
    def governing(self, question: str) -> Verdict | None:
        """The latest standing verdict that is not blind, judges the answer and is no lapsed
        adjudication."""
        standing = [
            v
            for v in self.verdicts
            if v.question == question and not v.undone and not v.blind and v.answer == self.answer[question]
        ]
        return max((v for v in standing if not v.adjudicates or self.in_force(v)), key=lambda v: v.id, default=None)

    def in_force(self, adjudication: Verdict) -> bool:
        """An adjudication settles while each party's current verdict is the one it settled."""
        now = {w: v.id for w, v in self.judging(adjudication.question).items()}
        return all(now.get(who) == i for who, i in adjudication.settled.items())

    def settling(self, question: str) -> dict[str, int]:
        """What an adjudication now would settle: each validator's current verdict."""
        return {w: v.id for w, v in self.judging(question).items() if w in (self.disagreement(question) or [])}

    def current(self, question: str) -> list[str]:
        verdict = self.governing(question)
        return list(verdict.after) if verdict else list(self.extraction[question])

    def ensure(self, surfaces: list[str]) -> None:
        """An extraction's new spellings become entities (named after the spelling, or the
        entity already called so)."""
        for surface in surfaces:
            key = normalize_surface(surface)
            if key in self.alias:
                continue
            by_name = {n: i for i, n in self.name.items()}
            if surface in by_name:
                self.alias[key] = by_name[surface]
            else:
                self.alias[key] = self.new_entity(surface)

    def new_entity(self, name: str) -> int:
        entity = self.next_entity
        self.next_entity += 1
        self.name[entity], self.region[entity] = name, None
        return entity

    def resolved(self, question: str) -> list[str]:
        names = [self.name[self.alias[normalize_surface(s)]] for s in self.current(question)]
        return list(dict.fromkeys(names))

    def judging(self, question: str) -> dict[str, Verdict]:
        """Each reviewer's latest standing verdict on the question's answer now."""
        out: dict[str, Verdict] = {}
        for v in sorted(self.verdicts, key=lambda v: v.id):
            if v.question == question and not v.undone and v.answer == self.answer[question]:
                out[v.reviewer] = v
        return out

    def final(self, names: list[str]) -> tuple:
        """A list as reviewers are compared: each name by its entity (or its key, unknown)."""
        keys = [normalize_surface(s) for s in names]
        return tuple(f"e{self.alias[k]}" if k in self.alias else f"s{k}" for k in keys)

    def disagreement(self, question: str) -> list[str] | None:
        judged = {w: v for w, v in self.judging(question).items() if not v.adjudicates}
        return sorted(judged) if len({self.final(v.after) for v in judged.values()}) > 1 else None

    def settled(self, question: str) -> bool:
        """An adjudication gives the list: it is out of the reviewer-disagreements queue."""
        verdict = self.governing(question)
        return verdict is not None and verdict.adjudicates

    def shown(self, question: str, blind: bool) -> tuple:
        """What a reviewer is shown of the question's list: what its version names."""
        if blind:
            return (self.answer[question], tuple(self.extraction[question]))
        finals = tuple(sorted((w, tuple(v.after)) for w, v in self.judging(question).items()))
        return (self.answer[question], tuple(self.current(question)), finals)

    def live(self) -> list[int]:
        return sorted(set(self.alias.values()))

    def members(self, entity: int) -> list[str]:
        return sorted(k for k, e in self.alias.items() if e == entity)

    # -- entity decisions --------------------------------------------------------
    def value(self, kind: str, subject) -> object:
        if kind == "alias":
            return self.alias.get(subject)
        if kind == "name":
            return self.name.get(subject)
        if kind == "region":
            return self.region.get(subject)
        return subject in self.forbidden

    def set(self, kind: str, subject, value) -> None:
        if kind == "alias":
            self.alias[subject] = value
        elif kind == "name":
            self.name[subject] = value
        elif kind == "region":
            self.region[subject] = value
        elif value:
            self.forbidden.add(subject)
        else:
            self.forbidden.discard(subject)

    def record(self, decision_id: int, who: str, changes: list[tuple]) -> None:
        for d in self.decisions:
            if d.who == who and d.undone > 0:
                d.undone = -1
        for kind, subject, _before, after in changes:
            self.set(kind, subject, after)
        self.decisions.append(Decision(decision_id, who, changes))


class DecisionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        import tempfile

        self.folder = tempfile.TemporaryDirectory()
        path = f"{self.folder.name}/s.db"
        self.conns = [connect(path), connect(path)]
        self.ref = Reference()
        self.study = ensure_study(self.conns[0], "s", "choice")
        self.version = 0
        self.seen: list[tuple] = []  # (question, blind, version, what the reference shows)

    def teardown(self) -> None:
        for conn in self.conns:
            conn.close()
        self.folder.cleanup()

    # -- helpers -----------------------------------------------------------------
    def call(self, conn_index: int, action, what: str):
        """Run one operation; a refusal a user reads is an outcome, anything else fails."""
        try:
            result = True, action(self.conns[conn_index])
            event(f"{what}: done")
            return result
        except sqlite3.IntegrityError as exc:  # the bug class this test exists for
            raise AssertionError(f"constraint error: {exc}") from exc
        except UserFacingError as exc:
            event(f"{what}: refused")
            return False, str(exc)

    def store(self, conn_index: int, questions: list[str], new_answer: bool, picks: list[list[str]]) -> None:
        if new_answer:
            self.version += 1
        lists = []
        for question, surfaces in zip(questions, picks):
            surfaces = list({normalize_surface(s): s for s in surfaces}.values())
            answer = f"{question}-v{self.version}" if new_answer or question not in self.ref.answer else None
            answer = answer or self.ref.answer[question]
            lists.append(
                mentions.MentionList(
                    "gpt",
                    "shoes",
                    "Budget",
                    question,
                    1,
                    "vote",
                    [(s, normalize_surface(s), None) for s in surfaces],
                    response_key=answer,
                )
            )
            self.ref.ensure(surfaces)
            self.ref.extraction[question], self.ref.answer[question] = surfaces, answer
        ok, result = self.call(conn_index, lambda conn: mentions.store_lists(conn, self.study, lists), "re-extract")
        assert ok, result

    def list_id(self, question: str) -> int:
        return (
            self.conns[0]
            .execute("SELECT id FROM mention_lists WHERE study_id = ? AND question = ?", (self.study, question))
            .fetchone()[0]
        )

    def entity_by_name(self, name: str) -> int:
        return next(i for i, n in self.ref.name.items() if n == name and i in self.ref.live())

    # -- rules -------------------------------------------------------------------
    @initialize(picks=st.lists(st.lists(st.sampled_from(SPELLINGS), max_size=4), min_size=3, max_size=3))
    def extract(self, picks):
        self.store(0, QUESTIONS, True, picks)

    @rule(
        c=st.integers(0, 1),
        questions=st.lists(st.sampled_from(QUESTIONS), min_size=1, max_size=3, unique=True),
        picks=st.lists(st.lists(st.sampled_from(SPELLINGS), max_size=4), min_size=3, max_size=3),
        new_answer=st.booleans(),
    )
    def reextract(self, c, questions, picks, new_answer):
        """Re-import (same answers, a new extraction) or a study edited and run again (new answers)."""
        self.store(c, questions, new_answer, picks[: len(questions)])

    @rule(
        c=st.integers(0, 1),
        who=st.sampled_from(REVIEWERS),
        question=st.sampled_from(QUESTIONS),
        decision=st.sampled_from(reviews.DECISIONS),
        names=st.lists(st.sampled_from(SPELLINGS + NEW_NAMES), min_size=1, max_size=3, unique_by=str.casefold),
        blind=st.booleans(),
    )
    def verdict(self, c, who, question, decision, names, blind):
        assert self.give_verdict(c, who, question, decision, names, blind) is None

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS), question=st.sampled_from(QUESTIONS), blind=st.booleans())
    def show(self, c, who, question, blind):
        """A reviewer's screen shows a list: the version it was shown at is kept."""
        version = reviews.list_version(self.conns[c], self.list_id(question), blind=blind)
        self.seen.append((question, blind, version, self.ref.shown(question, blind)))

    @rule(
        c=st.integers(0, 1),
        who=st.sampled_from(REVIEWERS),
        data=st.data(),
        decision=st.sampled_from(reviews.DECISIONS),
        names=st.lists(st.sampled_from(SPELLINGS + NEW_NAMES), min_size=1, max_size=3, unique_by=str.casefold),
    )
    def verdict_on_what_was_shown(self, c, who, data, decision, names):
        """A verdict given with the version once shown: recorded only while the list still
        shows the same; else refused, and nothing changes."""
        if not self.seen:
            return
        question, blind, version, shown = data.draw(st.sampled_from(self.seen))
        logged, unchanged = len(self.ref.verdicts), shown == self.ref.shown(question, blind)
        refused = self.give_verdict(c, who, question, decision, names, blind, version, "verdict on a shown version")
        if unchanged:
            assert refused is None, refused
        else:
            assert refused is not None and "changed since it was shown" in refused, refused
            assert len(self.ref.verdicts) == logged
            count = self.conns[1].execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
            assert count == logged

    @rule(
        c=st.integers(0, 1),
        question=st.sampled_from(QUESTIONS),
        take=st.sampled_from([*REVIEWERS, adjudication.OWN]),
        names=st.lists(st.sampled_from(SPELLINGS + NEW_NAMES), max_size=2, unique_by=str.casefold),
        dispute=st.booleans(),
    )
    def adjudicate(self, c, question, take, names, dispute):
        """A third reviewer settles a disagreement by taking one reviewer's list or their own
        (`dispute`: ana edits and bo, blind, rejects first, so that there is one to settle)."""
        if dispute and self.ref.disagreement(question) is None:
            assert self.give_verdict(c, "ana", question, "edit", ["Hoka", *names], False) is None
            assert self.give_verdict(c, "bo", question, "reject", [], True) is None
        list_id = self.list_id(question)
        settles = self.ref.disagreement(question)
        judged = {w: v for w, v in self.ref.judging(question).items() if not v.adjudicates}
        ok, result = self.call(
            c,
            lambda conn: adjudication.adjudicate(conn, list_id, ADJUDICATOR, take, names),
            "adjudicate",
        )
        can = settles is not None and (take == adjudication.OWN or take in judged)
        after = (reviews.clean(names) if take == adjudication.OWN else list(judged[take].after)) if can else None
        took = None if take == adjudication.OWN else take
        standing = [v for v in self.ref.verdicts if v.question == question and not v.undone]
        latest = max(standing, key=lambda v: v.id, default=None)
        # the same adjudication of the same verdicts again records nothing
        repeat = can and latest is not None and latest.adjudicates and latest.reviewer == ADJUDICATOR
        repeat = repeat and (list(latest.after), latest.took, latest.answer) == (after, took, self.ref.answer[question])
        repeat = repeat and latest.settled == self.ref.settling(question)
        if not ok and str(result).startswith("already recorded:"):
            assert repeat, (result, latest)
            event("the same adjudication again: nothing recorded")
            return
        assert ok == can, (result, settles)
        if not ok:
            return
        assert not repeat, ("a repeated adjudication was recorded again", latest)
        self.ref.ensure(after)
        settled = self.ref.settling(question)
        self.ref.verdicts.append(
            Verdict(
                result,
                question,
                ADJUDICATOR,
                after,
                False,
                self.ref.answer[question],
                adjudicates=True,
                settled=settled,
                took=took,
            )
        )

    @rule(
        c=st.integers(0, 1),
        picks=st.lists(st.sampled_from(SPELLINGS), max_size=3),
    )
    def grow(self, c, picks):
        """One question more: every list in the validation sample stays in it."""
        if len(self.ref.extraction) >= len(QUESTIONS) + 4:
            return
        before = self.sampled()
        self.store(c, [f"q{len(self.ref.extraction)}"], False, [picks])
        assert before <= self.sampled()

    def sampled(self) -> set[str]:
        ids = review_validation.sample_list_ids(self.conns[1], "s", SAMPLE_RATE, SAMPLE_SEED)
        return {self.question_of(i) for i in ids}

    def question_of(self, list_id: int) -> str:
        return self.conns[1].execute("SELECT question FROM mention_lists WHERE id = ?", (list_id,)).fetchone()[0]

    def give_verdict(self, c, who, question, decision, names, blind, version=None, what="verdict"):
        list_id = self.list_id(question)
        ok, result = self.call(
            c,
            lambda conn: reviews.review(conn, list_id, who, decision, names, blind=blind, if_version=version),
            what,
        )
        seen = self.ref.extraction[question] if blind else self.ref.current(question)
        after = seen if decision == "accept" else [] if decision == "reject" else reviews.clean(names)
        standing = [v for v in self.ref.verdicts if v.question == question and not v.undone]
        latest = max(standing, key=lambda v: v.id, default=None)
        repeat = latest is not None and (latest.reviewer, latest.decision, latest.blind, latest.answer) == (
            who,
            decision,
            blind,
            self.ref.answer[question],
        )
        repeat = repeat and list(latest.after) == list(after)
        if not ok:
            # The reviewer's standing verdict given again on the same version records nothing.
            if result.startswith("already recorded:"):
                assert repeat, (result, latest)
                event("the same verdict again: nothing recorded")
                return None
            return result
        assert not repeat, ("a repeated verdict was recorded again", latest)
        disputed = self.ref.disagreement(question)  # by others: a third reviewer's verdict settles it
        settles = not blind and disputed is not None and who not in disputed
        settled = self.ref.settling(question) if settles else {}
        if not blind:  # a blind verdict is never applied: its names make no entity
            self.ref.ensure(after)
        self.ref.verdicts.append(
            Verdict(
                result,
                question,
                who,
                list(after),
                blind,
                self.ref.answer[question],
                adjudicates=bool(settles),
                settled=settled,
                decision=decision,
            )
        )
        return None

    @rule(
        c=st.integers(0, 1),
        who=st.sampled_from(REVIEWERS),
        names=st.lists(st.sampled_from(SPELLINGS + NEW_NAMES), max_size=2, unique_by=str.casefold),
    )
    def overrule(self, c, who, names):
        """The other reviewer's latest list, edited or rejected: the case where undo must refuse."""
        theirs = [v for v in self.ref.verdicts if v.reviewer != who and not v.undone and not v.blind]
        if theirs:
            target = max(theirs, key=lambda v: v.id).question
            self.give_verdict(c, who, target, "edit" if names else "reject", names, False)

    @rule(
        c=st.integers(0, 1),
        data=st.data(),
        names=st.lists(st.sampled_from(SPELLINGS + NEW_NAMES), max_size=2, unique_by=str.casefold),
        take_back=st.booleans(),
    )
    def a_party_changes_after_adjudication(self, c, data, names, take_back):
        """A party's verdict changes after an adjudication settled its disagreement (ana's not
        blind, bo's blind; often to the other party's list): the adjudication lapses, the list
        is what the verdicts without it give, and the queue holds it again while they still
        differ. Undoing that verdict (`take_back`) puts the adjudication back in force."""
        settled = [q for q in self.ref.extraction if self.ref.settled(q)]
        if not settled:
            return
        question = data.draw(st.sampled_from(settled))
        event("a party's verdict changes after adjudication")
        adjudicated = self.ref.governing(question)
        who = data.draw(st.sampled_from(sorted(adjudicated.settled)))
        other = next((v for w, v in self.ref.judging(question).items() if w != who and w in adjudicated.settled), None)
        names = list(other.after) if other is not None and data.draw(st.booleans()) else names
        assert self.give_verdict(c, who, question, "edit" if names else "reject", names, who == "bo") is None
        assert not self.ref.in_force(adjudicated) and not self.ref.settled(question)
        if take_back:
            self.undo_verdict(c, who)
            assert self.ref.in_force(adjudicated)

    @rule(c=st.integers(0, 1))
    def undo_an_overruled_verdict(self, c):
        """Undo by a reviewer whose latest verdict another reviewer's later one overrides."""
        for who in REVIEWERS:
            mine = [v for v in self.ref.verdicts if v.reviewer == who and not v.undone]
            latest = max(mine, key=lambda v: v.id, default=None)
            if latest and not latest.blind and self.ref.governing(latest.question) not in (None, latest):
                self.undo_verdict(c, who)
                return

    @rule(c=st.integers(0, 1), who=st.sampled_from([*REVIEWERS, ADJUDICATOR]))
    def undo_verdict(self, c, who):
        mine = [v for v in self.ref.verdicts if v.reviewer == who and not v.undone]
        expected = max(mine, key=lambda v: v.id, default=None)
        ok, result = self.call(c, lambda conn: reviews.undo_review(conn, who), "undo verdict")
        if expected is None:
            assert ok and result is None
            return
        applies = expected.answer == self.ref.answer[expected.question]
        allowed = expected.blind or not applies or self.ref.current(expected.question) == expected.after
        assert ok == allowed, (result, expected)
        if ok:
            assert result["id"] == expected.id
            expected.undone = True
        else:
            assert "changed this list since" in result

    def _entity_decision(self, c, who, action, predicted: bool, changes: list[tuple], what: str):
        ok, result = self.call(c, action, what)
        assert ok == predicted, result
        if ok:
            self.ref.record(result, who, changes)

    @rule(
        c=st.integers(0, 1),
        who=st.sampled_from(REVIEWERS),
        data=st.data(),
    )
    def merge(self, c, who, data):
        live = self.ref.live()
        if len(live) < 2:
            return
        first, second = data.draw(st.lists(st.sampled_from(live), min_size=2, max_size=2, unique=True))
        into = self.ref.name[first]
        names = [self.ref.name[second], into]
        forbidden = (min(first, second), max(first, second)) in self.ref.forbidden
        changes = [("alias", key, second, first) for key in self.ref.members(second)]
        for a, b in sorted(self.ref.forbidden):
            if second in (a, b):
                other = b if a == second else a
                pair = (min(first, other), max(first, other))
                if other != first and pair not in self.ref.forbidden and ("forbid", pair, False, True) not in changes:
                    changes.append(("forbid", pair, False, True))
        self._entity_decision(
            c, who, lambda conn: registry.merge(conn, names, into, who=who), not forbidden, changes, "merge"
        )

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS), data=st.data(), new_name=st.sampled_from(NEW_NAMES))
    def split(self, c, who, data, new_name):
        live = self.ref.live()
        if not live:
            return
        entity = data.draw(st.sampled_from(live))
        keys = self.ref.members(entity)
        key = data.draw(st.sampled_from(keys))
        taken = {n: i for i, n in self.ref.name.items()}
        blocked = len(keys) < 2 or (new_name in taken and taken[new_name] in live)
        target = taken.get(new_name)
        changes = []
        if not blocked and target is None:
            target = self.ref.new_entity(new_name)
            self.ref.region[target] = self.ref.region[entity]
        if not blocked:
            changes = [("alias", key, entity, target)]
        surface = next(s for s in SPELLINGS + NEW_NAMES if normalize_surface(s) == key)
        self._entity_decision(
            c,
            who,
            lambda conn: registry.split(conn, self.ref.name[entity], [surface], new_name, who=who),
            not blocked,
            changes,
            "split",
        )

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS), data=st.data(), new_name=st.sampled_from(NEW_NAMES))
    def rename(self, c, who, data, new_name):
        if not self.ref.live():
            return
        entity = data.draw(st.sampled_from(self.ref.live()))
        clash = any(n == new_name and i != entity for i, n in self.ref.name.items())
        changes = [("name", entity, self.ref.name[entity], new_name)]
        self._entity_decision(
            c,
            who,
            lambda conn: registry.rename(conn, self.ref.name[entity], new_name, who=who),
            not clash,
            changes,
            "rename",
        )

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS), data=st.data())
    def forbid(self, c, who, data):
        live = self.ref.live()
        if len(live) < 2:
            return
        a, b = data.draw(st.lists(st.sampled_from(live), min_size=2, max_size=2, unique=True))
        pair = (min(a, b), max(a, b))
        names = self.ref.name[a], self.ref.name[b]
        self._entity_decision(
            c,
            who,
            lambda conn: registry.forbid(conn, *names, who=who),
            pair not in self.ref.forbidden,
            [("forbid", pair, False, True)],
            "forbid",
        )

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS), data=st.data(), region=st.sampled_from(REGIONS))
    def region(self, c, who, data, region):
        if not self.ref.live():
            return
        chosen = data.draw(st.lists(st.sampled_from(self.ref.live()), min_size=1, max_size=2, unique=True))
        changes = [("region", e, self.ref.region[e], region) for e in chosen if self.ref.region[e] != region]
        names = [self.ref.name[e] for e in chosen]
        self._entity_decision(
            c, who, lambda conn: registry.set_region(conn, names, region, who=who), bool(changes), changes, "region"
        )

    def name_taken(self, decision: Decision, back: bool) -> bool:
        """A rename taken back (or made again) would give a name another entity holds now."""
        for kind, entity, before, after in decision.changes:
            wanted = before if back else after
            if kind == "name" and any(n == wanted and i != entity for i, n in self.ref.name.items()):
                return True
        return False

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS))
    def undo_entity(self, c, who):
        mine = [d for d in self.ref.decisions if d.who == who and d.undone == 0]
        expected = max(mine, key=lambda d: d.id, default=None)
        ok, result = self.call(c, lambda conn: registry.undo(conn, who), "undo entity decision")
        if expected is None:
            assert ok and result is None
            return
        allowed = all(self.ref.value(kind, s) == after for kind, s, _b, after in expected.changes)
        allowed = allowed and not self.name_taken(expected, back=True)
        assert ok == allowed, (result, expected, self.ref)
        if ok:
            assert result["id"] == expected.id
            for kind, subject, before, _after in reversed(expected.changes):
                self.ref.set(kind, subject, before)
            self.ref.undo_order += 1
            expected.undone = self.ref.undo_order
        else:
            assert "since" in result

    @rule(c=st.integers(0, 1), who=st.sampled_from(REVIEWERS))
    def redo_entity(self, c, who):
        mine = [d for d in self.ref.decisions if d.who == who and d.undone > 0]
        expected = max(mine, key=lambda d: d.undone, default=None)
        ok, result = self.call(c, lambda conn: registry.redo(conn, who), "redo entity decision")
        if expected is None:
            assert ok and result is None
            return
        allowed = all(self.ref.value(kind, s) == before for kind, s, before, _a in expected.changes)
        allowed = allowed and not self.name_taken(expected, back=False)
        assert ok == allowed, (result, expected)
        if ok:
            assert result["id"] == expected.id
            for kind, subject, _before, after in expected.changes:
                self.ref.set(kind, subject, after)
            expected.undone = 0

    # -- what must hold after every step -------------------------------------------
    @invariant()
    def the_queue_and_the_sample_follow_the_verdicts(self):
        if not self.ref.extraction:
            return
        conn = self.conns[1]
        queue = {i["question"] for i in reviews.review_items(conn, "s", only="reviewer disagreements")}
        settled = {i["question"] for i in reviews.review_items(conn, "s", only="resolved")}
        disputed = {q for q in self.ref.extraction if self.ref.disagreement(q)}
        assert queue == {q for q in disputed if not self.ref.settled(q)}
        assert settled == {q for q in disputed if self.ref.settled(q)}
        expected = {
            q for q in self.ref.extraction if review_validation.in_sample("s", "shoes", q, SAMPLE_RATE, SAMPLE_SEED)
        }
        assert self.sampled() == expected
        for question, blind, version, shown in self.seen:
            now = reviews.list_version(conn, self.list_id(question), blind=blind)
            assert (now == version) == (shown == self.ref.shown(question, blind))

    @invariant()
    def an_adjudication_in_force_settles_the_current_verdicts_of_both_parties(self):
        conn = self.conns[1]
        for item in reviews.review_items(conn, "s"):
            question = item["question"]
            if item["adjudication"] is None:
                assert not self.ref.settled(question)
                continue
            row = reviews.governing(conn, reviews.scope_of(item), item["response_key"])
            current = {w: v.id for w, v in self.ref.judging(question).items()}
            settled = json.loads(row["settled"])
            assert sorted(settled) == sorted(item["adjudication"]["settles"]) and len(settled) >= 2
            assert all(current.get(who) == i for who, i in settled.items()), (settled, current)
            assert self.ref.settled(question) and self.ref.governing(question).id == row["id"]

    @invariant()
    def lists_and_metrics_follow_the_decisions(self):
        if not self.ref.extraction:
            return
        conn = self.conns[1]
        by_question = {row[3]: row[5] for row in mentions.load_lists(conn, self.study)}
        expected = {q: self.ref.resolved(q) for q in self.ref.extraction}
        assert by_question == expected
        order = sorted(self.ref.extraction, key=self.list_id)
        lists = []
        for q in order:
            names = [self.ref.name[self.ref.alias[normalize_surface(s)]] for s in self.ref.current(q)]
            lists.append(ResponseList("gpt", "shoes", "Budget", q, 1, tuple(dict.fromkeys(names)), tuple(names)))
        region_of = {self.ref.name[e]: r for e, r in self.ref.region.items()}.get
        # Whether any region is stored at all (an entity merged away keeps its region) decides
        # which reason a log-odds without regions gives.
        imported = any(r is not None for r in self.ref.region.values())
        # Intervals drawn with few resamples: both sides draw the same ones, and the run is some
        # thousands of checks long (the bootstrap's own tests use the default).
        with resampling(50):
            expected_records = choice_metric_records("s", lists, region_of, regions_imported=imported)
            assert choice_data.choice_metric_records_of(conn) == expected_records


TestDecisions = DecisionMachine.TestCase
TestDecisions.settings = settings(
    max_examples=100,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
