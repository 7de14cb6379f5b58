"""Random edits of a study file, each followed by a run: the store's metric records always
equal those of a fresh run of the same file into an empty store.

The edits are a user's: add, remove, reword and move questions between clusters, rename a
cluster, add and remove models, change the repetitions, and read the file again unchanged
(the app opening it, then a run). Answers come from the local OpenAI-protocol server
(tests/openai_server.py), a deterministic function of the prompt, so two stores that ask the
same questions hold the same answers and differ only in how they got there.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import pytest
from helpers import run_cli
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule
from openai_server import ServerThread

from workbench.methods.choice import design

TOPICS = ("shoes", "phones")
# Wordings are the topic's own: the same wording in two topics is one request (the topic is
# not in the prompt), counted under one of them, in a fresh store as in an edited one.
WORDS = ("Which one?", "Which brand?", "Which is best?", "What to buy?", "Which to avoid?")
MODELS = ("m", "n")
FRESH: dict[str, list[str]] = {}  # study file -> the metric records of its fresh run (one server)


def wording(topic: str, word: str) -> str:
    return f"{word[:-1]} for {topic}?"


class StudyEdits(RuleBasedStateMachine):
    server = None  # one server for every example (started by the test below)

    def __init__(self):
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)
        self.study, self.db = self.root / "s.toml", self.root / "s.db"
        self.fresh_runs = 0

    @initialize()
    def first_run(self):
        self.clusters = ["A", "B"]  # in file order; renamed in place
        self.questions = {"shoes": {"A": [wording("shoes", WORDS[0])], "B": [wording("shoes", WORDS[1])]}}
        self.models, self.repetitions = ["m"], 2
        self.run_and_compare()

    # -- the edits -----------------------------------------------------------------------

    @rule(topic=st.sampled_from(TOPICS), cluster=st.integers(0, 1), word=st.sampled_from(WORDS))
    def add_question(self, topic, cluster, word):
        text = wording(topic, word)
        if text not in self.texts(topic):  # a file asks a wording once in a topic
            self.questions.setdefault(topic, {}).setdefault(self.clusters[cluster], []).append(text)
            self.run_and_compare()

    @precondition(lambda self: self.count() > 1)  # a study asks something
    @rule(pick=st.integers(0, 99))
    def remove_question(self, pick):
        topic, cluster, text = self.pick(pick)
        self.questions[topic][cluster].remove(text)
        self.run_and_compare()

    @rule(pick=st.integers(0, 99), word=st.sampled_from(WORDS))
    def reword_question(self, pick, word):
        topic, cluster, text = self.pick(pick)
        new = wording(topic, word)
        if new not in self.texts(topic):
            texts = self.questions[topic][cluster]
            texts[texts.index(text)] = new
            self.run_and_compare()

    @rule(pick=st.integers(0, 99))
    def move_question(self, pick):
        """To the other cluster, at its end (the same wording, asked under another persona)."""
        topic, cluster, text = self.pick(pick)
        self.questions[topic][cluster].remove(text)
        other = next(c for c in self.clusters if c != cluster)
        self.questions[topic].setdefault(other, []).append(text)
        self.run_and_compare()

    @rule(cluster=st.integers(0, 1))
    def rename_cluster(self, cluster):
        old = self.clusters[cluster]
        new = old[0] + str(len(old))  # A, A1, A12, ...: never a name in use
        self.clusters[cluster] = new
        for clusters in self.questions.values():
            if old in clusters:
                clusters[new] = clusters.pop(old)
        self.run_and_compare()

    @precondition(lambda self: len(self.models) < len(MODELS))
    @rule(pick=st.integers(0, 9))
    def add_model(self, pick):
        missing = [m for m in MODELS if m not in self.models]
        self.models.append(missing[pick % len(missing)])
        self.run_and_compare()

    @precondition(lambda self: len(self.models) > 1)  # a study asks some model
    @rule(pick=st.integers(0, 9))
    def remove_model(self, pick):
        self.models.pop(pick % len(self.models))
        self.run_and_compare()

    @rule(repetitions=st.integers(1, 3))
    def change_repetitions(self, repetitions):
        self.repetitions = repetitions
        self.run_and_compare()

    @rule()
    def read_again(self):
        """The app opens the file again (the Design screen stores its questions), then a run."""
        design.register(self.db, self.study)
        self.run_and_compare()

    # -- helpers ---------------------------------------------------------------------------

    def texts(self, topic: str) -> list[str]:
        return [t for texts in self.questions.get(topic, {}).values() for t in texts]

    def count(self) -> int:
        return sum(len(self.texts(topic)) for topic in self.questions)

    def pick(self, index: int) -> tuple[str, str, str]:
        every = [(topic, c, t) for topic, clusters in self.questions.items() for c, ts in clusters.items() for t in ts]
        return every[index % len(every)]

    def write(self, path: Path) -> Path:
        lines = [
            'name = "s"',
            'method = "choice"',
            f"repetitions = {self.repetitions}",
            "seed = 1",
            "models = " + json.dumps([f"openai:{m}@{self.server.base_url}" for m in self.models]),
            "[generation]",
            "max_tokens = 64",
            "[extraction]",
            'method = "list"',
        ]
        for topic, clusters in self.questions.items():
            if any(clusters.values()):  # a topic without questions is refused: left out
                lines += ["[[topics]]", f'name = "{topic}"', "[topics.questions]"]
                lines += [f"{c} = {json.dumps(ts)}" for c, ts in clusters.items() if ts]
        for cluster in self.clusters:
            lines += ["[[clusters]]", f'name = "{cluster}"', f'description = "people of {cluster}"']
        path.write_text("\n".join(lines) + "\n")
        return path

    def run_and_compare(self):
        text = self.write(self.study).read_text()
        edited = records(self.study, self.db)
        if text not in FRESH:  # a file seen before (every example starts alike) is run fresh once
            self.fresh_runs += 1
            FRESH[text] = records(self.study, self.root / f"fresh{self.fresh_runs}.db")
        assert edited == FRESH[text], "the edited store's metric records differ from a fresh run of its file"

    def teardown(self):
        self.folder.cleanup()


def records(study: Path, db: Path) -> list[str]:
    result = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_cli("metrics", "--db", str(db), "--format", "json", "--boot", "10")
    assert result.returncode == 0, result.stderr
    return sorted(json.dumps(r, sort_keys=True) for r in json.loads(result.stdout))


@pytest.mark.slow
def test_random_study_edits_end_as_a_fresh_run():
    with ServerThread() as server:
        StudyEdits.server = server
        FRESH.clear()
        try:
            StudyEdits.TestCase.settings = settings(
                max_examples=20, stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck)
            )
            StudyEdits.TestCase().runTest()
        finally:
            StudyEdits.server = None
            FRESH.clear()
