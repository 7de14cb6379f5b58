"""Study files of every method are checked alike: strict types, ranges, unknown keys
refused, and one wording (`file: key 'a.b[0]': expected ..., got ...`) whatever the method."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from workbench.methods.study_files import load_study
from workbench.studies.spec import StudyError

ENTITY = Path(str(files("workbench.assets").joinpath("studies", "entity")))

STUDIES = {
    "choice": """name = "c"
method = "choice"
models = ["llama:default"]
[generation]
max_tokens = 8
[[topics]]
name = "shoes"
[topics.questions]
"Budget-Conscious" = ["Which shoe?"]
""",
    "coldstart": """name = "s"
method = "coldstart"
models = ["llama:default"]
catalog = "cat.csv"
k = 2
[attributes]
gender = ["a girl", "a boy"]
""",
    "identity": """name = "i"
method = "identity"
models = ["llama:default"]
per_group = 1
""",
    "entity": """name = "e"
method = "entity"
models = ["llama:default"]
task = "urgency.task.json"
templates = "urgency_templates.csv"
entities = "countries.csv"
max_templates = 1
max_entities = 2
""",
}


def study(tmp_path: Path, method: str, top: str = "", tables: str = "") -> Path:
    """A valid study of `method`, its keys replaced (or added) by the lines of `top`, and
    `tables` before its first table."""
    for name in ("urgency.task.json", "urgency_templates.csv", "countries.csv"):
        shutil.copy(ENTITY / name, tmp_path / name)
    (tmp_path / "cat.csv").write_text("title\nA\nB\nC\n")
    lines = STUDIES[method].splitlines()
    for line in top.splitlines():
        key = line.split("=")[0].strip()
        same = [i for i, old in enumerate(lines) if old.split("=")[0].strip() == key]
        lines[same[0] if same else 0 : same[0] + 1 if same else 0] = [line]
    first_table = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
    lines[first_table:first_table] = tables.splitlines()
    path = tmp_path / f"{method}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def refused(path: Path) -> str:
    with pytest.raises(StudyError) as info:
        load_study(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message.removeprefix(f"{path}: ")


@pytest.mark.parametrize("method", sorted(STUDIES))
def test_every_method_loads_its_valid_study(tmp_path, method):
    assert load_study(study(tmp_path, method)).method == method


@pytest.mark.parametrize(
    "method, top, said",
    [
        (
            "choice",
            'repetitions = "2"',
            "key 'repetitions': expected a whole number of repetitions (paper: 5), got a string '2'",
        ),
        (
            "choice",
            "repetitions = 2.0",
            "key 'repetitions': expected a whole number of repetitions (paper: 5), got a number 2.0",
        ),
        ("choice", "verified_only = 1", "key 'verified_only': expected true or false, got an integer 1"),
        ("coldstart", "k = true", "key 'k': expected the number of items to rank (paper: 20), got a boolean"),
        ("coldstart", "k = 9", "key 'k': expected between 1 and the catalog's 3 items"),
        ("identity", "per_group = 0", "key 'per_group': expected prompts per group between 1 and 100,000, got 0"),
        ("identity", 'structured = "yes"', "key 'structured': expected true or false, got a string 'yes'"),
        (
            "entity",
            "min_entities = 1.5",
            "key 'min_entities': expected a whole number of entities a template needs, got a number 1.5",
        ),
        ("entity", 'name = "  "', "key 'name': expected a non-empty study name"),
    ],
)
def test_a_value_of_the_wrong_type_or_range_is_refused_with_its_key(tmp_path, method, top, said):
    assert refused(study(tmp_path, method, top=top)) == said


@pytest.mark.parametrize("method", sorted(STUDIES))
def test_unknown_keys_are_refused_with_the_keys_the_table_knows(tmp_path, method):
    said = refused(study(tmp_path, method, top="colour = 1"))
    assert said.startswith("key 'colour': unknown key (expected one of: ")
    known = said.split("expected one of: ")[1].removesuffix(")").split(", ")
    assert known == sorted(known) and {"name", "method", "description", "models"} <= set(known)


@pytest.mark.parametrize("method", ["choice", "coldstart", "identity"])  # entity studies score, generate nothing
def test_generation_reads_alike_for_every_method(tmp_path, method):
    tables = "" if method == "choice" else "[generation]\nmax_tokens = 8\n"
    path = study(tmp_path, method, tables=tables)
    path.write_text(path.read_text().replace("max_tokens = 8", 'max_tokens = 8\ntemperature = "hot"'))
    assert refused(path) == "key 'generation.temperature': expected a temperature, got a string 'hot'"
    path.write_text(path.read_text().replace('temperature = "hot"', "temperature = 1"))
    generation = load_study(path).generation
    assert generation["temperature"] == 1.0 and isinstance(generation["temperature"], float)
    assert generation["max_tokens"] == 8


def test_a_misspelt_key_is_said_before_the_values_that_follow_it(tmp_path):
    path = study(tmp_path, "choice", top="temprature = 0.5\nrepetitions = 0")
    assert refused(path).startswith("key 'temprature': unknown key")
    path = study(tmp_path, "choice", tables="[extraction]\nmetod = 1\nk = 0\n")
    assert refused(path).startswith(
        "key 'extraction.metod': unknown key (expected one of: entities, experts, fuzzy, grounding, k, "
    )


def test_the_settings_keep_the_order_the_file_gives_them(tmp_path):
    """The stored study (its JSON) lists [generation] as the file does, after the defaults."""
    path = study(tmp_path, "choice")
    path.write_text(path.read_text().replace("max_tokens = 8", 'system = "Be brief."\nmax_tokens = 8\ntop_p = 0.5'))
    assert list(load_study(path).generation) == ["temperature", "max_tokens", "system", "top_p"]


@pytest.mark.parametrize(
    "seeds, expected",
    [
        ("3", [0, 1, 2]),
        ("[5, 2]", [5, 2]),
        ("[1, 1]", "key 'seeds': expected distinct seeds"),
        ("[]", "key 'seeds': expected at least one seed"),
        ("0", "key 'seeds': expected a number of seeds between 1 and 10,000, got 0"),
        ('"x"', "key 'seeds': expected a number of seeds or a list of seeds, got a string 'x'"),
        ("true", "key 'seeds': expected a number of seeds or a list of seeds, got a boolean True"),
        ('[1, "a"]', "key 'seeds[1]': expected a whole-number seed, got a string 'a'"),
    ],
)
def test_cold_start_seeds_are_a_number_or_a_list(tmp_path, seeds, expected):
    path = study(tmp_path, "coldstart", top=f"seeds = {seeds}")
    if isinstance(expected, list):
        assert load_study(path).seeds == expected
    else:
        assert refused(path) == expected


@pytest.mark.parametrize(
    "top, said",
    [
        ('scoring = "guess"', "key 'scoring': expected one of exact, first_token, naive, got 'guess'"),
        ("scoring = 3", "key 'scoring': expected exact, first_token or naive, got an integer 3"),
        ('variants = ["three_shot"]', "key 'variants': unknown variant 'three_shot' (expected: zero_shot_text, "),
        ("languages = []", "key 'languages': expected a list of languages (at least one)"),
        ("group_by = [1]", "key 'group_by[0]': expected a string, got an integer 1"),
    ],
)
def test_entity_choices_and_lists(tmp_path, top, said):
    assert refused(study(tmp_path, "entity", top=top)).startswith(said)


def test_choice_tables_and_their_keys(tmp_path):
    path = study(tmp_path, "choice", tables='[extraction]\nmethod = "vote"\n')
    assert refused(path) == "key 'extraction.method': expected 'list', 'experts' or 'gazetteer', got 'vote'"
    path = study(tmp_path, "choice", tables="extraction = 3\n")
    assert refused(path) == "key 'extraction': expected an [extraction] table, got an integer 3"
    path = study(tmp_path, "choice", tables='[[clusters]]\nname = "A"\n[[clusters]]\nname = "A"\n')
    assert refused(path) == "key 'clusters': expected distinct cluster names"
    path = study(tmp_path, "choice")
    path.write_text(path.read_text().replace('["Which shoe?"]', '["Which shoe?", " "]'))
    assert refused(path) == "key 'topics[0].questions.Budget-Conscious[1]': expected a non-empty question"
    path.write_text(STUDIES["choice"].split("[[topics]]")[0])
    assert (
        refused(path) == "key 'topics': missing; expected a list of [[topics]] tables, each with a name and questions"
    )


def test_file_names_and_model_specs_are_checked_where_they_are_named(tmp_path):
    path = study(tmp_path, "coldstart")
    path.write_text(path.read_text().replace('"cat.csv"', '"cat\\u0000.csv"'))
    assert refused(path) == "key 'catalog': expected a file path, got a name with a NUL character"
    path = study(tmp_path, "identity", top='judge = "gpt-4"')
    assert refused(path).startswith("key 'judge': model spec 'gpt-4'")
    assert load_study(study(tmp_path, "identity", top='judge = "rules"')).judge is None
    assert str(load_study(study(tmp_path, "identity", top='judge = "llama:default"')).judge) == "llama:default"


def test_the_command_line_starts_without_pydantic():
    """Reading a study imports pydantic (about 0.1 s); starting the command line does not."""
    code = "import sys, workbench.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
