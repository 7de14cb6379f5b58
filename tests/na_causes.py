"""The cause of every n/a reason the catalog (workbench/display/na_catalog.py) knows, made with the
command line: imported lists, entities with regions, rankings, references and label scores,
or a run on the real test server. `CAUSES` holds one builder per reason key; each returns
the store and the `workbench metrics` arguments that show the reason, and the reason's text
as the cells give it. tests/display/test_na_reasons.py runs every one and fails for a reason without."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from helpers import run_cli
from openai_server import ServerConfig


@dataclass(frozen=True)
class Made:
    db: Path
    text: str  # the reason as the cells show it (and, where `in_records`, a record's reason field)
    args: tuple[str, ...] = ("--study", "s")  # what else `workbench metrics` is given
    in_records: bool = True  # False: a view says it, no record (a model with no lists for a topic)
    # where a cell gives the count of units instead of the reason ("· 1 seed ·"): what it shows
    beside: str | None = None
    command: str = "metrics"  # the command that shows it (`compare`: a difference of two models)


Cause = Callable[[Path, Callable], Made]
CAUSES: dict[str, Cause] = {}


def makes(key: str) -> Callable[[Cause], Cause]:
    def register(cause: Cause) -> Cause:
        CAUSES[key] = cause
        return cause

    return register


def ok(*args: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr


def write_csv(path: Path, header: list[str], rows: list[list]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# -- ChoiceEval: imported ranked lists and entities' regions ------------------------


def lists(tmp_path: Path, rows: list[tuple], model: str = "gpt", topic: str = "shoes") -> Path:
    """Imported lists of study s: (cluster, question, repetition, entities) rows; another
    call with the same tmp_path adds to the store (another model or topic)."""
    out = []
    for cluster, question, repetition, entities in rows:
        out += [[model, topic, cluster, question, repetition, rank, e] for rank, e in enumerate(entities, 1)]
        out += [] if entities else [[model, topic, cluster, question, repetition, "", ""]]
    header = ["model", "topic", "cluster", "question_id", "repetition", "rank", "entity"]
    path = write_csv(tmp_path / f"{model}-{topic}.csv", header, out)
    db = tmp_path / "audit.db"
    ok("import", "mentions", str(path), "--db", str(db), "--study", "s")
    return db


def regions(tmp_path: Path, db: Path, pairs: dict[str, str]) -> None:
    path = write_csv(tmp_path / "regions.csv", ["name", "region"], [list(p) for p in pairs.items()])
    ok("import", "entities", str(path), "--db", str(db))


def every(entities: list[str], cluster: str = "A", questions: int = 2, reps: tuple = (1, 2)) -> list[tuple]:
    """Each of a cluster's questions, each repetition, answered with `entities`."""
    return [(cluster, f"{cluster}{q}", r, entities) for q in range(questions) for r in reps]


US_EU = {"Nike": "United States", "Puma": "Europe", "Sony": "Asia"}


@makes("no-lists")
def _(tmp_path, server):
    lists(tmp_path, every(["Nike"]), model="gpt", topic="phones")
    db = lists(tmp_path, every(["Nike"]), model="gpt", topic="shoes")
    lists(tmp_path, every(["Puma"]), model="gemini", topic="shoes")  # gemini: no phones list
    return Made(db, "no answers", in_records=False)


@makes("no-regions")
def _(tmp_path, server):
    return Made(lists(tmp_path, every(["Nike", "Puma"])), "no regions imported")


@makes("rare-regions")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Nike"], questions=30) + [("A", "A0", 3, ["Nike", "Puma"])])
    regions(tmp_path, db, {"Puma": "Europe"})  # Puma: 1 answer of 61
    return Made(db, "the entities with a region are each in fewer than 5% of the answers")


@makes("unmatched-names")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Nike"]))
    regions(tmp_path, db, {"Reebok": "United States"})
    return Made(db, "no extracted name has a region: top unmatched names: Nike (4)")


@makes("no-slot-either")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Sony"]))  # Asia only: neither side of United States vs Europe
    regions(tmp_path, db, US_EU)
    return Made(db, "no slot of either region")


@makes("no-slot-one")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Nike", "Sony"]))
    regions(tmp_path, db, US_EU)
    return Made(db, "no Europe slot: 4 vs 0 slots")


@makes("no-shared-cluster")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Nike"], "A") + every(["Puma"], "B"))
    regions(tmp_path, db, US_EU)
    return Made(db, "no cluster has slots of both regions: 4 vs 4 slots")


@makes("few-clusters")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Nike", "Puma"], "A") + every(["Nike"], "B"))
    regions(tmp_path, db, US_EU)
    return Made(db, "only 1 of 2 clusters has slots of both regions")


@makes("one-answer")
def _(tmp_path, server):
    db = lists(tmp_path, [("A", "a", 1, ["Nike"])])
    return Made(db, "1 answer", ("--study", "s", "--ci-unit", "answer"))


@makes("no-unit-spread")
def _(tmp_path, server):
    db = lists(tmp_path, every(["Nike", "Puma"], "A") + every(["Nike", "Puma"], "B"))
    regions(tmp_path, db, US_EU)
    return Made(db, "no spread between questions")


@makes("few-slots")
def _(tmp_path, server):
    # one European slot in each of two clusters of two questions, the US named in every answer
    made = [(c, f"{c}{q}", 1, ["Nike", "Puma"] if q == 0 else ["Nike"]) for c in ("A", "B") for q in range(2)]
    db = lists(tmp_path, made)
    regions(tmp_path, db, US_EU)
    return Made(db, "2 Europe slots, fewer than 5")


@makes("one-question-unit")
def _(tmp_path, server):
    return Made(lists(tmp_path, every(["Nike"], questions=1)), "1 question")


@makes("one-repetition")
def _(tmp_path, server):
    return Made(lists(tmp_path, every(["Nike"], reps=(1,))), "one repetition: stability needs two or more")


@makes("no-entity-named")
def _(tmp_path, server):
    return Made(lists(tmp_path, every([])), "no answer named an entity")


@makes("one-entity-named")
def _(tmp_path, server):
    return Made(lists(tmp_path, every(["Nike"])), "only one entity named")


# -- Cold-start: answers parsed against a catalog --------------------------------


def coldstart(tmp_path: Path, neutral: list[str]) -> Path:
    """Study s: one seed per neutral answer; a woman's and a man's lists name catalog films."""
    write_csv(tmp_path / "cat.csv", ["title"], [["The Matrix"], ["Oldboy"], ["Amelie"]])
    rows = []
    for seed, answer in enumerate(neutral):
        rows.append(["m", seed, "", "neutral", answer])
        rows.append(["m", seed, "gender", "a woman", "1. The Matrix\n2. Amelie"])
        rows.append(["m", seed, "gender", "a man", "1. Oldboy\n2. The Matrix"])
    header = ["model", "seed", "persona_category", "persona", "response"]
    path = write_csv(tmp_path / "responses.csv", header, rows)
    db = tmp_path / "cs.db"
    ok("import", "responses", str(path), "--catalog", str(tmp_path / "cat.csv"), "--db", str(db), "--study", "s")
    return db


@makes("no-neutral-items")
def _(tmp_path, server):
    db = coldstart(tmp_path, ["1. Some Film Nobody Catalogued", "I cannot recommend films."])
    return Made(db, "the neutral list names no catalog item")


@makes("one-seed")
def _(tmp_path, server):
    return Made(coldstart(tmp_path, ["1. The Matrix\n2. Amelie"]), "1 seed", beside="0.00 / 0.00 / 0.00 · 1 seed ·")


@makes("few-seeds")
def _(tmp_path, server):
    db = coldstart(tmp_path, ["1. The Matrix\n2. Amelie", "1. Amelie"])
    return Made(db, "2 seeds, fewer than 3", beside=" · 2 seeds ·")


@makes("same-units")
def _(tmp_path, server):
    db = coldstart(tmp_path, ["1. The Matrix\n2. Amelie"] * 3)  # three seeds, one divergence
    return Made(db, "every seed gives the same value", beside=" · 3 seeds ·")


# -- Identity: a run on the test server, reference shares imported -----------------

REPLY = '[{"university": "Howard University", "explanation": "community"}, {"university": "MIT", "explanation": "x"}]'


def identity(tmp_path: Path, server, reply: str | None = REPLY, per_group: int = 2) -> Path:
    base_url = server(ServerConfig(reply_text=reply)).base_url
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "s"\nmethod = "identity"\nmodels = ["openai:m@{base_url}"]\n'
        f'template = "universities"\nper_group = {per_group}\nseed = 2\nstructured = true\n'
    )
    db = tmp_path / "id.db"
    ok("run", str(study), "--db", str(db), "--quiet")
    return db


def references(tmp_path: Path, db: Path, rows: list[list]) -> None:
    path = write_csv(tmp_path / "refs.csv", ["item", "group", "share"], rows)
    ok("import", "references", str(path), "--db", str(db), "--study", "s")


@makes("no-references")
def _(tmp_path, server):
    return Made(identity(tmp_path, server), "no reference shares imported")


@makes("no-parsed-answer")
def _(tmp_path, server):
    db = identity(tmp_path, server, "I would rather not say.")
    references(tmp_path, db, [["MIT", "Black", 0.2]])
    return Made(db, "no answer parsed")


@makes("unknown-items")
def _(tmp_path, server):
    db = identity(tmp_path, server)
    references(tmp_path, db, [["Harvard", "Black", 0.2], ["MIT", "White", 0.1]])  # Black: nothing named
    return Made(db, "no recommended item is in the reference shares")


@makes("same-shares")
def _(tmp_path, server):
    # every answer names the same two: one mean share (8 prompts a cell: an interval's least)
    db = identity(tmp_path, server, per_group=32)
    references(tmp_path, db, [["Howard University", "White", 0.1], ["MIT", "White", 0.1]])
    return Made(db, "every share is the same")


@makes("no-baseline")
def _(tmp_path, server):
    db = identity(tmp_path, server, reply=None)  # each prompt its own recommendations
    done = run_cli("export", "--db", str(db), "--what", "identity", "--format", "csv", "--study", "s")
    assert done.returncode == 0, done.stderr
    # shares for the items of the non-baseline answers only: the baseline has none
    rows = list(csv.DictReader(done.stdout.splitlines()))
    named = {(r["item"], r["group"]) for r in rows if r["condition"] != "baseline" and r["item"]}
    named -= {(r["item"], r["group"]) for r in rows if r["condition"] == "baseline"}
    references(tmp_path, db, [[item, group, 0.3] for item, group in sorted(named)])
    return Made(db, "the baseline has no mean share")


@makes("one-prompt")
def _(tmp_path, server):
    db = identity(tmp_path, server, per_group=1)
    references(tmp_path, db, [["MIT", "Black", 0.2], ["MIT", "White", 0.1]])
    return Made(db, "1 prompt", beside="Black · baseline 0.200 · n 1 ")


@makes("few-prompts")
def _(tmp_path, server):
    db = identity(tmp_path, server, per_group=8)  # 2 prompts per condition
    references(tmp_path, db, [["MIT", "Black", 0.2], ["MIT", "White", 0.1]])
    return Made(db, "2 prompts, fewer than 8", beside="Black · baseline 0.200 · n 2 ")


@makes("coverage-alike")
def _(tmp_path, server):
    db = identity(tmp_path, server, per_group=8)  # every prompt names the same two: none alone moves coverage
    path = write_csv(
        tmp_path / "refs.csv",
        ["item", "group", "share", "count", "group_total"],
        [["MIT", "Black", 0.2, 20, 100], ["Howard University", "Black", 0.9, 30, 100]],
    )
    ok("import", "references", str(path), "--db", str(db), "--study", "s")
    # coverage has no table of its own: the note under the tables says it
    return Made(db, "no prompt alone moves coverage", beside="no prompt alone moves coverage")


# -- Label probabilities: imported label scores ------------------------------------

LABELS = {"low_urgency": -0.3, "moderate_urgency": -1.7, "high_urgency": -2.9, "critical_urgency": -4.1}
OFFSETS = {"France": 0.0, "Japan": -0.9, "Peru": -2.1, "Kenya": -0.4}


def scores(tmp_path: Path, rows: list[list], study: str = "s", entities: dict[str, str] | None = None) -> Path:
    """Label scores imported into `study`: (entity, template, label, logprob[, variant]) rows
    of the bundled urgency task; `entities`: each entity's continent, grouped by."""
    task = Path(str(files("workbench.assets").joinpath("studies", "entity", "urgency.task.json")))
    header = ["entity", "template_id", "label", "logprob", "variant"][: len(rows[0])]
    path = write_csv(tmp_path / f"scores-{study}.csv", header, rows)
    db = tmp_path / "e.db"
    more: list[str] = []
    if entities:
        meta = write_csv(tmp_path / "meta.csv", ["name", "continent"], [list(p) for p in entities.items()])
        more = ["--entities", str(meta), "--group-by", "continent"]
    ok("import", "scores", str(path), "--db", str(db), "--study", study, "--task", str(task), *more)
    return db


def scored(templates: int = 2, offsets: dict[str, float] = OFFSETS, variant: str | None = None) -> list[list]:
    """Every entity's score of every label in each template: the entity's offset tilts its
    labels (the more urgent the more), the template scales the tilt."""
    return [
        [entity, t, label, repr(logprob + offset * (t + 1) * i)] + ([variant] if variant else [])
        for t in range(templates)
        for entity, offset in offsets.items()
        for i, (label, logprob) in enumerate(LABELS.items())
    ]


@makes("one-template")
def _(tmp_path, server):
    return Made(scores(tmp_path, scored(templates=1)), "1 template", beside="(n 1)")


@makes("few-templates")
def _(tmp_path, server):
    return Made(scores(tmp_path, scored(templates=2)), "2 templates, fewer than 3", beside="(n 2)")


@makes("rank-test-floor")
def _(tmp_path, server):
    continents = {"France": "Europe", "Japan": "Asia", "Peru": "America", "Kenya": "Africa"}
    db = scores(tmp_path, scored(templates=3), entities=continents)  # each group one entity against 3
    return Made(db, "the smallest p Mann-Whitney could give with 1 vs 3 entities is 0.500")


@makes("no-outside-group")
def _(tmp_path, server):
    db = scores(tmp_path, scored(), entities={e: "Earth" for e in OFFSETS})
    return Made(db, "no entity outside this group")


@makes("few-paired-entities")
def _(tmp_path, server):
    one = {"France": 0.0, "Japan": -0.9}
    other = {"France": 0.0, "Peru": -2.1}  # France the one entity of both
    return Made(
        scores(tmp_path, scored(offsets=one, variant="a") + scored(offsets=other, variant="b")),
        "fewer than 2 entities in both conditions",
    )


@makes("same-deltas")
def _(tmp_path, server):
    db = scores(tmp_path, scored(variant="a") + scored(variant="b"))
    return Made(db, "every entity has the same Delta in both conditions")


@makes("few-shared-entities")
def _(tmp_path, server):
    scores(tmp_path, scored(), study="s")
    db = scores(tmp_path, scored(offsets={"France": 0.0, "Japan": -0.9}), study="s2")
    return Made(db, "fewer than 3 entities in both studies", args=())


@makes("flat-deltas")
def _(tmp_path, server):
    scores(tmp_path, scored(), study="s")
    db = scores(tmp_path, scored(offsets={e: 0.0 for e in OFFSETS}), study="s2")  # every Delta 0
    return Made(db, "one study gives every entity the same Delta", args=())


@makes("no-intended")
def _(tmp_path, server):
    return Made(scores(tmp_path, scored()), "no prompt has an intended label")  # no `intended` column


# -- workbench compare: the differences of two models ----------------------------------

PAIR = ("--study", "s", "--models", "gpt", "gemini")  # A: gpt, B: gemini


@makes("compare-no-common")
def _(tmp_path, server):
    lists(tmp_path, every(["Nike"], cluster="A"), model="gpt")
    db = lists(tmp_path, every(["Nike"], cluster="B"), model="gemini")  # other questions
    return Made(db, "no question both answered (2 by gpt, 2 by gemini)", args=PAIR, command="compare")


@makes("compare-a-names-nothing")
def _(tmp_path, server):
    lists(tmp_path, every([]), model="gpt")
    db = lists(tmp_path, every(["Nike"]), model="gemini")
    return Made(db, "gpt named no entity on these questions", args=PAIR, command="compare")


@makes("compare-no-slot")
def _(tmp_path, server):
    lists(tmp_path, every([]), model="gpt")
    db = lists(tmp_path, every(["Nike"]), model="gemini")
    return Made(db, "gpt: no recommendation slot", args=PAIR, command="compare")


@makes("compare-no-region")
def _(tmp_path, server):
    lists(tmp_path, every(["Nike", "Puma"]), model="gpt")
    db = lists(tmp_path, every(["Puma"]), model="gemini")
    return Made(db, "no entity named has a region", args=PAIR, command="compare")


@makes("compare-no-shared-cluster")
def _(tmp_path, server):
    split = every(["Nike"], cluster="A") + every(["Puma"], cluster="B")  # never both in one cluster
    lists(tmp_path, split, model="gpt")
    db = lists(tmp_path, split, model="gemini")
    regions(tmp_path, db, US_EU)
    text = "no cluster where both models give both regions slots (after the 5 % filter)"
    return Made(db, text, args=PAIR, command="compare")


@makes("compare-one-unit")
def _(tmp_path, server):
    lists(tmp_path, every(["Nike"], questions=1), model="gpt")
    db = lists(tmp_path, every(["Nike", "Puma"], questions=1), model="gemini")
    return Made(db, "1 question both answered", args=PAIR, command="compare")


@makes("compare-no-spread")
def _(tmp_path, server):
    # Both models give every answer the same slots: the log-odds' difference is 0 on every
    # question, and its standard error 0 (the regions' shares take Newcombe's interval).
    lists(tmp_path, every(["Nike", "Puma"]), model="gpt")
    db = lists(tmp_path, every(["Nike", "Puma"]), model="gemini")
    regions(tmp_path, db, US_EU)
    return Made(db, "B - A is the same on every question", args=PAIR, command="compare")


@makes("compare-no-number")
def _(tmp_path, server):
    base_url = server(ServerConfig(reply_text=REPLY)).base_url
    study = tmp_path / "id.toml"
    study.write_text(
        f'name = "s"\nmethod = "identity"\nmodels = ["openai:m@{base_url}", "openai:n@{base_url}"]\n'
        'template = "universities"\nper_group = 8\nseed = 2\nstructured = true\n'
    )
    db = tmp_path / "id.db"
    ok("run", str(study), "--db", str(db), "--quiet")
    references(tmp_path, db, [["Howard University", "Black", 0.9]])  # the other groups have none
    return Made(db, "no prompt both answered with a number", args=(), command="compare")


@makes("compare-unreached")
def _(tmp_path, server):
    # One cluster of two questions: drawn one of two, each question alone gives both models'
    # log-odds apart by +1.02, while both together give the same (a difference of 0), and to
    # first order no question moves the difference (its interval would be [0, 0]).
    lists(tmp_path, [("A", "A0", 1, ["Puma"]), ("A", "A1", 1, ["Nike", "Brooks", "Adidas"])], model="gpt")
    db = lists(tmp_path, [("A", "A0", 1, ["Nike", "Puma", "Adidas"]), ("A", "A1", 1, ["Nike"])], model="gemini")
    regions(tmp_path, db, {"Nike": "United States", "Brooks": "United States", "Puma": "Europe", "Adidas": "Europe"})
    text = "no resample reaches the estimate: too few questions per cluster"
    return Made(db, text, args=PAIR, command="compare")
