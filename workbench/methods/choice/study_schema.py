"""The ChoiceEval study file's tables (see study.py for an example file). What the
tables cannot know alone (a question's cluster among the study's clusters, a file that
exists) study.py checks as it builds the study."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from workbench.studies.errors import bounds, mismatch, out_of_range
from workbench.studies.limits import MAX_EXPERTS, MAX_REPETITIONS, MAX_SEED, MAX_TEMPERATURE, MAX_TOKENS
from workbench.studies.schema import (
    Check,
    Flag,
    Generation,
    Models,
    Name,
    Spec,
    Table,
    file_name,
    number,
    prompt_text,
    refuse,
    text,
)


class Extraction(Table):
    method: Literal["list", "experts", "gazetteer"] = "list"
    experts: number("a whole number of experts", 1, MAX_EXPERTS) = 5
    k: number("a whole number of entities per list", 1, 100) = 5
    temperature: number("a temperature (above 0, so experts differ)", 0, MAX_TEMPERATURE, kind=float) = 0.8
    max_tokens: number("a whole number of tokens", 1, MAX_TOKENS) = 96
    model: Spec | None = None
    output: Literal["json", "list"] = "json"
    min_votes: Any = None  # a number of the experts: checked against `experts` below
    grounding: Literal["drop", "flag"] = "drop"
    entities: file_name("a path to a CSV file of names (name, spellings, topic)") | None = None  # gazetteer
    fuzzy: Flag = True  # gazetteer: near spellings count too

    @model_validator(mode="after")
    def _entities_for_the_gazetteer(self) -> Extraction:
        if self.method == "gazetteer" and self.entities is None:
            raise refuse(
                'method = "gazetteer" needs entities = "FILE.csv" (the names to find: name, spellings, topic)',
                key="entities",
            )
        return self

    @model_validator(mode="after")
    def _votes_within_experts(self) -> Extraction:
        expectation = f"a whole number of the experts (experts = {self.experts}) that must name an entity"
        votes = self.min_votes
        if votes is None:
            return self
        if not isinstance(votes, int) or isinstance(votes, bool):
            raise refuse(mismatch(expectation, votes, numeric=True), key="min_votes")
        if not 1 <= votes <= self.experts:
            raise refuse(out_of_range(expectation, votes, bounds(1, self.experts)), key="min_votes")
        return self


class Metrics(Table):
    top_n: number("a whole number (paper: 10)", 1, 100_000) | None = None
    min_share: Annotated[float, Check("a share such as 0.05")] | None = None
    region_pairs: (
        Annotated[
            list[
                Annotated[
                    list[text("a region name")], Field(min_length=2, max_length=2), Check("a pair of region names")
                ]
            ],
            Check('a list of pairs such as [["United States", "Europe"]]'),
        ]
        | None
    ) = None


class QuestionGeneration(Table):
    model: Spec | None = None
    temperature: number("a temperature", 0, MAX_TEMPERATURE, kind=float) = 0.9
    max_tokens: number("a whole number of tokens", 1, MAX_TOKENS) = 600
    adapt_prompt: file_name("a path to a prompt file") | None = None
    generate_prompt: file_name("a path to a prompt file") | None = None


class Cluster(Table):
    name: text("a cluster name")
    description: text("a one-line definition") = ""


def _distinct_names(clusters: list[Cluster]) -> list[Cluster]:
    if len({c.name for c in clusters}) != len(clusters):
        raise refuse("expected distinct cluster names")
    return clusters


Question = prompt_text("a question string", blank="expected a non-empty question")
InlineQuestions = Annotated[
    dict[str, Annotated[list[Question], Check("a list of question strings")]],
    Check('a table of cluster name -> list of questions, e.g. "Budget-Conscious" = ["..."]'),
]


class Topic(Table):
    name: text('a topic name such as "running shoes"')
    questions: InlineQuestions | None = None
    questions_file: file_name("a path to a JSON or CSV file") | None = None
    questions_per_cluster: number("a whole number", 1) | None = None
    generate: number("a whole number of questions to generate per adapted cluster (paper: 23)", 1, 1000) | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Topic:
        if self.questions is not None and self.questions_file is not None:
            raise refuse("expected one of 'questions' (inline table) or 'questions_file', not both")
        if self.questions is None and self.questions_file is None and not self.generate:
            raise refuse("expected 'questions' (inline table), 'questions_file' or 'generate = N'")
        return self


class ChoiceFile(Table):
    """A whole ChoiceEval study file, its keys in the order they are checked."""

    method: Any = "choice"
    name: Name | None = None  # None: the file's name
    description: Any = ""
    repetitions: number("a whole number of repetitions (paper: 5)", 1, MAX_REPETITIONS) = 1
    seed: number("a whole-number seed", 0, MAX_SEED) = 0
    models: Models
    generation: Annotated[Generation, Check("a [generation] table")] = Generation()
    clusters: (
        Annotated[
            list[Annotated[Cluster, Check("a table with name and description")]],
            Check("a list of [[clusters]] tables with name and description"),
            AfterValidator(_distinct_names),
        ]
        | None
    ) = None  # None: the nine default clusters
    topics: Annotated[
        list[Annotated[Topic, Check("a [[topics]] table")]],
        Field(min_length=1),
        Check(
            "a list of [[topics]] tables, each with a name and questions",
            empty="expected at least one [[topics]] table",
        ),
    ]
    verified_only: Flag = False
    extraction: Annotated[Extraction, Check("an [extraction] table")] = Extraction()
    metrics: Annotated[Metrics, Check("a [metrics] table")] = Metrics()
    question_generation: Annotated[QuestionGeneration, Check("a [question_generation] table")] = QuestionGeneration()
