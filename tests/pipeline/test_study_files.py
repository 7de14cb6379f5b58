"""Study files: what loads, and errors that name the file, the key and the expectation."""

import json
from importlib.resources import files

import pytest

from workbench.asking.keys import request_key
from workbench.methods.choice.study import default_clusters, plan_requests
from workbench.methods.study_files import load_study
from workbench.studies.spec import StudyError

GOOD = """
name = "s"
method = "choice"
repetitions = 2
models = ["llama:default"]
[generation]
temperature = 0.5
[[topics]]
name = "laptops"
[topics.questions]
"Budget-Conscious" = ["What is a cheap laptop?", "Best laptop under 500?"]
"""


def write(tmp_path, text, name="study.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_demo_study_loads_with_the_nine_default_clusters():
    study = load_study(str(files("workbench.assets").joinpath("studies/demo.toml")))
    assert [c.name for c in study.clusters] == [c.name for c in default_clusters()]
    assert len(study.clusters) == 9
    assert len(study.topics) == 3 and len(study.questions) == 54  # 2 questions per topic x cluster
    assert {q.cluster for q in study.questions} == {c.name for c in study.clusters}


def test_inline_questions_and_planning(tmp_path):
    study = load_study(write(tmp_path, GOOD))
    assert [q.text for q in study.questions] == ["What is a cheap laptop?", "Best laptop under 500?"]
    ids = {(q.topic, q.cluster, q.text): i for i, q in enumerate(study.questions)}
    planned = list(plan_requests(study, "llama:sha256:x", {"temperature": 0.5, "max_tokens": 8}, ids))
    assert len(planned) == 4
    assert len({p.key for p in planned}) == 4  # repetitions are distinct requests
    assert [p.seed for p in planned] == [0, 1, 0, 1]
    again = list(plan_requests(study, "llama:sha256:x", {"temperature": 0.5, "max_tokens": 8}, ids))
    assert [p.key for p in again] == [p.key for p in planned]  # deterministic
    other = list(plan_requests(study, "llama:sha256:y", {"temperature": 0.5, "max_tokens": 8}, ids))
    assert not {p.key for p in other} & {p.key for p in planned}  # another model, other keys


def test_request_key_ignores_dict_order():
    a = request_key(stage="answer", model_identity="m", payload={"a": 1, "b": 2}, repetition=1)
    b = request_key(stage="answer", model_identity="m", payload={"b": 2, "a": 1}, repetition=1)
    assert a == b


@pytest.mark.parametrize(
    "replace, expected",
    [
        (
            ('method = "choice"', 'method = "magic"'),
            "key 'method': expected one of: choice, coldstart, identity, entity, got 'magic'",
        ),
        (("repetitions = 2", 'repetitions = "two"'), "key 'repetitions': expected a whole number of repetitions"),
        (
            ("repetitions = 2", "repetitions = 0"),
            "key 'repetitions': expected a whole number of repetitions (paper: 5) between 1 and 10,000, got 0",
        ),
        (('models = ["llama:default"]', 'models = ["gpt-4"]'), "key 'models[0]': model spec 'gpt-4'"),
        (('models = ["llama:default"]', ""), "key 'models': missing"),
        (
            ("temperature = 0.5", 'temperature = "hot"'),
            "key 'generation.temperature': expected a temperature, got a string",
        ),
        (("temperature = 0.5", "temprature = 0.5"), "key 'generation.temprature': unknown key"),
        (('"Budget-Conscious"', '"Budget"'), "key 'topics[0].questions.Budget': unknown cluster"),
        (('name = "laptops"', "name = 3"), "key 'topics[0].name': expected a topic name"),
        (("[topics.questions]", "[topics.questionz]"), "key 'topics[0].questionz': unknown key"),
    ],
)
def test_validation_errors_name_file_key_and_expectation(tmp_path, replace, expected):
    path = write(tmp_path, GOOD.replace(*replace))
    with pytest.raises(StudyError) as info:
        load_study(path)
    assert str(path) in str(info.value)
    assert expected in str(info.value)


def test_toml_syntax_errors_give_the_line(tmp_path):
    path = write(tmp_path, GOOD + "\nthis is not toml\n")
    with pytest.raises(StudyError, match=r"not valid TOML: .*line 13"):
        load_study(path)


def test_missing_file(tmp_path):
    with pytest.raises(StudyError, match="no such study file"):
        load_study(tmp_path / "nope.toml")


def test_choiceeval_json_maps_clusters_by_position(tmp_path):
    bank = {f"Adapted cluster {i}": [f"question {i}.{j}" for j in range(4)] for i in range(9)}
    (tmp_path / "bank.json").write_text(json.dumps(bank))
    text = (
        GOOD.split("[[topics]]")[0] + '[[topics]]\nname = "shoes"\nquestions_file = "bank.json"\n'
        "questions_per_cluster = 2\n"
    )
    study = load_study(write(tmp_path, text))
    assert len(study.questions) == 18
    first = study.questions[0]
    assert (first.cluster, first.cluster_label, first.text) == (
        "Performance and Quality",
        "Adapted cluster 0",
        "question 0.0",
    )
    assert study.questions[-1].cluster == "Cultural and Social Influences"


def test_choiceeval_file_with_wrong_cluster_count(tmp_path):
    (tmp_path / "bank.json").write_text(json.dumps({"only one": ["q"]}))
    text = GOOD.split("[[topics]]")[0] + '[[topics]]\nname = "shoes"\nquestions_file = "bank.json"\n'
    with pytest.raises(StudyError, match="has 1 clusters but the study defines 9"):
        load_study(write(tmp_path, text))


def test_csv_questions(tmp_path):
    (tmp_path / "q.csv").write_text(
        "topic,cluster,question\nshoes,Convenience,Fast shoes?\n"
        "bags,Convenience,A bag?\nshoes,Budget-Conscious,Cheap shoes?\n"
    )
    text = GOOD.split("[[topics]]")[0] + '[[topics]]\nname = "shoes"\nquestions_file = "q.csv"\n'
    study = load_study(write(tmp_path, text))
    assert [(q.cluster, q.text) for q in study.questions] == [
        ("Convenience", "Fast shoes?"),
        ("Budget-Conscious", "Cheap shoes?"),
    ]


def test_real_choiceeval_banks_load(tmp_path, shared_data):
    for bank in sorted((shared_data / "choiceeval").glob("*.json")):
        text = GOOD.split("[[topics]]")[0] + f'[[topics]]\nname = "{bank.stem}"\nquestions_file = "{bank}"\n'
        study = load_study(write(tmp_path, text))
        assert len(study.questions) == 207, bank


def test_saved_study_round_trips(tmp_path):
    from workbench.methods.choice.writer import study_to_toml

    study = load_study(str(files("workbench.assets").joinpath("studies/demo.toml")))
    grouped: dict = {}
    for q in study.questions:
        grouped.setdefault(q.topic, {}).setdefault(q.cluster, []).append(q.text)
    grouped["running shoes"]["Convenience"] = ['Shoes with "quotes" and \\ backslash\nand a newline?']
    path = write(tmp_path, study_to_toml(study, grouped), name="saved.toml")
    again = load_study(path)
    assert again.to_json() == study.to_json()
    assert [q.text for q in again.questions if q.cluster == "Convenience" and q.topic == "running shoes"] == [
        'Shoes with "quotes" and \\ backslash\nand a newline?'
    ]
    assert len(again.questions) == 53  # one of the two Convenience questions replaced by one


COMMENTED = """\
# Shoe study: keep these notes.
name = "commented"  # the study's name
method = "choice"
models = ["llama:default"]  # the bundled model

[generation]
# Low temperature: answers close to the mode.
temperature = 0.2  # not zero

# Topics, in the order we read them.
[[topics]]
name = "shoes"  # running shoes only
[topics.questions]
# Budget first.
"Budget-Conscious" = ["Cheap running shoes?", "Shoes under 50 dollars?"]  # two
Convenience = [
    "Shoes I can buy today?",  # same-day
    "Shoes with free returns?",
]

[[topics]]
name = "bags"
[topics.questions]
Convenience = ["A bag with many pockets?"]  # the only one
"""


def _saved(tmp_path, text, edit=None):
    """The study file after the Design screen's save, with `edit(db, study_id)` made first."""
    from workbench.methods.choice import design

    path = write(tmp_path, "", name="commented.toml")
    path.write_bytes(text.encode("utf-8"))
    db = tmp_path / "design.db"
    study, study_id = design.register(db, path)
    if edit:
        edit(db, study_id)
    design.save_study(db, study, study_id, path)
    return path.read_bytes().decode("utf-8")


def test_a_study_saved_without_an_edit_is_unchanged_to_the_byte(tmp_path):
    assert _saved(tmp_path, COMMENTED) == COMMENTED
    crlf = "\ufeff" + COMMENTED.replace("\n", "\r\n")
    assert _saved(tmp_path, crlf) == crlf  # Windows line ends and a byte-order mark too


def test_a_saved_edit_keeps_every_comment(tmp_path):
    from workbench.methods.choice import design

    def edit(db, study_id):
        (row,) = [r for r in design.question_rows(db, study_id) if r["text"] == "Shoes I can buy today?"]
        design.edit_question(db, study_id, row["id"], "Shoes delivered tomorrow?")

    saved = _saved(tmp_path, COMMENTED, edit)
    comments = [line[line.index("#") :] for line in COMMENTED.splitlines() if "#" in line]
    assert len(comments) == 11 and all(comment in saved for comment in comments)
    assert "Shoes delivered tomorrow?" in saved and "Shoes I can buy today?" not in saved
    study = load_study(tmp_path / "commented.toml")
    assert [q.text for q in study.questions if q.cluster == "Convenience" and q.topic == "shoes"] == [
        "Shoes delivered tomorrow?",
        "Shoes with free returns?",
    ]
    assert saved.startswith(COMMENTED.split("[[topics]]")[0])  # the top of the file as written
    assert saved.endswith(COMMENTED.split("[[topics]]")[2])  # and the topic nobody edited


@pytest.mark.parametrize(
    "questions, where",
    [
        (
            '"Budget-Conscious" = ["Cheap shoes?"]\n"Convenience" = ["Cheap   shoes?"]',
            "in clusters 'Budget-Conscious' and 'Convenience'",
        ),
        ('"Budget-Conscious" = ["Cheap shoes?", "Cheap shoes?"]', "twice in cluster 'Budget-Conscious'"),
    ],
)
def test_a_wording_asked_twice_in_a_topic_is_refused_naming_it(tmp_path, questions, where):
    """The same wording twice is one request: its answers would count under one cluster only
    and the run would plan fewer requests than it said. Refused before anything is stored."""
    from helpers import run_cli

    study = tmp_path / "s.toml"
    study.write_text(
        'name = "dq"\nmethod = "choice"\nmodels = ["openai:m@http://127.0.0.1:9/v1"]\n'
        f'[[topics]]\nname = "shoes"\n[topics.questions]\n{questions}\n'
    )
    result = run_cli("run", str(study), "--db", str(tmp_path / "s.db"))
    assert result.returncode == 2
    assert f"key 'topics[0].questions': the question 'Cheap shoes?' is {where} of topic 'shoes'" in result.stderr
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize(
    "topics, message",
    [
        (
            '[[topics]]\nname = "shoes"\n[topics.questions]\n',
            "key 'topics[0].questions': topic 'shoes' has no questions",
        ),
        ('[[topics]]\nname = "shoes"\n[topics.questions]\n"Convenience" = []\n', "topic 'shoes' has no questions"),
        (
            '[[topics]]\nname = "   "\n[topics.questions]\n"Convenience" = ["Q?"]\n',
            "key 'topics[0].name': a topic needs a name",
        ),
        (
            '[[topics]]\nname = "shoes"\n[topics.questions]\n"Convenience" = ["Q?"]\n'
            '[[topics]]\nname = "shoes"\n[topics.questions]\n"Convenience" = ["R?"]\n',
            "key 'topics[1].name': topic 'shoes' is named twice",
        ),
    ],
)
def test_a_topic_without_questions_or_name_is_refused(tmp_path, topics, message):
    """A topic that would ask nothing ("All 0 requests answered", exit 0), one without a
    name (an empty cell in every table) or one named twice is refused, naming the key."""
    from helpers import run_cli

    study = tmp_path / "s.toml"
    study.write_text(f'name = "t"\nmethod = "choice"\nmodels = ["openai:m@http://127.0.0.1:9/v1"]\n{topics}')
    result = run_cli("run", str(study), "--db", str(tmp_path / "s.db"))
    assert result.returncode == 2 and message in result.stderr, result.stderr
