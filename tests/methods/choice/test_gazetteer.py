"""The gazetteer extraction: known names found in answer text, on labelled examples."""

import csv
from importlib.resources import files
from pathlib import Path

import pytest

from workbench.methods.choice.gazetteer import Gazetteer, GazetteerError, load, spelling


def gazetteer(*rows: tuple[str, ...]) -> Gazetteer:
    """(name, spelling, ...) rows: every spelling of a row is its name's."""
    return Gazetteer([spelling(row[0], text) for row in rows for text in row])


SHOES = gazetteer(
    ("Nike",),
    ("Adidas",),
    ("Asics",),
    ("Anta",),
    ("Hoka", "Hoka One One"),
    ("New Balance",),
    ("On Running", "On Cloud"),
    ("Li-Ning",),
    ("Apple", "iPhone"),
    ("Samsung", "Samsung Galaxy", "Galaxy"),
    ("LG",),
    ("Salomon",),
    ("Mr. Coffee",),
    ("De'Longhi", "DeLonghi"),
)

# Labelled answers: the text and the entities it names, in order of first appearance.
LABELLED = [
    ("I recommend Nike, Adidas and Asics.", ["Nike", "Adidas", "Asics"]),
    ("1. ADIDAS Ultraboost\n2. nike? No: Nike Pegasus.\n3. Asics", ["Adidas", "Nike", "Asics"]),
    ("Try the Hoka One One Clifton or a Hoka Bondi.", ["Hoka"]),
    ("NewBalance and New-Balance and New Balance are one brand.", ["New Balance"]),
    ("Li Ning, LiNing or Li-Ning: the same.", ["Li-Ning"]),
    ("The iPhone 15 beats the Samsung Galaxy S24; Apple wins.", ["Apple", "Samsung"]),
    ("A Galaxy phone from Samsung.", ["Samsung"]),
    ("Mr Coffee makes a fine drip machine, as does DeLonghi.", ["Mr. Coffee", "De'Longhi"]),
    ("Délonghi and Adídas, with accents.", ["De'Longhi", "Adidas"]),
    # Near spellings (one edit for a name of 6-9 letters)...
    ("Adidass and Salomn and Samsnug are misspelt.", ["Adidas", "Salomon", "Samsung"]),
    # ...but not for a short name, nor a different first letter, nor across words.
    ("Asisc, Nikke and Ank are not names here; Badidas neither.", []),
    ("Running shoes: I like running on cloud nine.", []),
    # Never inside another word.
    ("Santa brought Nikeland tickets and an Asicsx, at Lgbt events.", []),
    ("The Samsunglike phone.", []),
    # A capitalised name matches only capitalised text: apple juice is not Apple.
    ("Drink apple juice, wear nike socks, then buy an Apple.", ["Apple"]),
    ("LG or lg: only LG counts.", ["LG"]),
    ("The On Cloud 5 and On Running shoes; on running days, rest.", ["On Running"]),
    ("", []),
    ("No brand at all.", []),
]


@pytest.mark.parametrize("text, expected", LABELLED)
def test_labelled_answers(text, expected):
    assert SHOES.entities(text) == expected


def test_every_match_is_a_stretch_of_the_answer():
    text = "Buy a pair of Adidass, then Hoka One One Bondi, then NewBalance."
    found = SHOES.find(text)
    assert [(f.entity, f.text_in(text), f.edits) for f in found] == [
        ("Adidas", "Adidass", 1),
        ("Hoka", "Hoka One One", 0),
        ("New Balance", "NewBalance", 0),
    ]


def test_order_of_appearance_k_and_repeats():
    text = "Asics first, then Nike, then Asics again, then Adidas."
    assert [f.entity for f in SHOES.find(text)] == ["Asics", "Nike", "Asics", "Adidas"]
    assert SHOES.entities(text) == ["Asics", "Nike", "Adidas"]
    assert SHOES.entities(text, k=2) == ["Asics", "Nike"]


def test_exact_only_when_fuzzy_is_off():
    assert SHOES.entities("Adidass and Nike", fuzzy=False) == ["Nike"]


def test_the_longest_exact_name_wins_an_overlap():
    text = "The Samsung Galaxy S24."
    (found,) = SHOES.find(text)
    assert found.text_in(text) == "Samsung Galaxy" and found.entity == "Samsung"


def test_a_file_with_spellings_and_topics(tmp_path):
    path = tmp_path / "brands.csv"
    path.write_text(
        "name,spellings,region,topic\n"
        "Apple,iPhone|iPad,United States,smartphones\n"
        "Nike,,United States,running shoes|sneakers\n"
        "Bialetti,,Europe,\n"
    )
    names = load(path)
    assert names.names == ["Apple", "Nike", "Bialetti"]
    text = "An iPad, a Nike shoe and a Bialetti pot."
    assert names.entities(text, topic="smartphones") == ["Apple", "Bialetti"]
    assert names.entities(text, topic="sneakers") == ["Nike", "Bialetti"]
    assert names.entities(text) == ["Apple", "Nike", "Bialetti"]  # no topic: every name


@pytest.mark.parametrize(
    "content, message",
    [
        ("region\nEurope\n", "missing column(s) name"),
        ("name,region\n\nNike,Europe\n ,Asia\n", "line 4: the name is empty"),
        ("name,spellings\nApple,iPhone\nSamsung,IPHONE\n", "line 3: spelling 'IPHONE' is already 'Apple''s (line 2)"),
        ("name,spellings\nNike,--\n", "line 2: spelling '--' has no letter or digit"),
        ("name\n", "no names"),
    ],
)
def test_faulty_files_are_refused_naming_the_line(tmp_path, content, message):
    path = tmp_path / "g.csv"
    path.write_text(content)
    with pytest.raises(GazetteerError) as raised:
        load(path)
    assert message in str(raised.value) and str(path) in str(raised.value)


def test_the_demo_gazetteer_loads_and_finds_its_topics_brands():
    names = load(Path(str(files("workbench.assets").joinpath("studies/demo_brands.csv"))))
    answer = "1. Nike Pegasus\n2. Brooks Ghost\n3. ASICS Gel-Nimbus"
    assert names.entities(answer, topic="running shoes") == ["Nike", "Brooks", "Asics"]
    assert names.entities("The iPhone 15 and a Google Pixel 8.", topic="smartphones") == ["Apple", "Google"]
    assert names.entities("An apple-shaped mug by De Longhi.", topic="coffee makers") == ["De'Longhi"]
    # Every brand has its home region (the demo's log-odds need them), and each is named once.
    studies = Path(str(files("workbench.assets").joinpath("studies")))
    with (studies / "demo_brands.csv").open(encoding="utf-8") as f:
        brands = list(csv.DictReader(f))
    assert all(b["region"] in ("United States", "Europe", "Asia", "Other") for b in brands)
    assert len({b["name"] for b in brands}) == len(brands) == len(names.names)
    assert 'entities = "demo_brands.csv"' in (studies / "demo.toml").read_text("utf-8")


# -- as a study's extraction ---------------------------------------------------


def _study(tmp_path, extraction: str) -> Path:
    from helpers import write_study

    study = write_study(tmp_path / "s.toml", models=["openai:m@http://127.0.0.1:9/v1"], questions=4)
    study.write_text(study.read_text().replace("[[clusters]]", f"[extraction]\n{extraction}\n[[clusters]]"))
    return study


@pytest.mark.parametrize(
    "extraction, message",
    [
        ('method = "gazetteer"', "key 'extraction.entities': method = \"gazetteer\" needs entities"),
        ('method = "gazetteer"\nentities = "nope.csv"', "key 'extraction.entities': file "),
        ('method = "gazetteer"\nentities = "bad.csv"', "bad.csv: line 3: spelling 'IPHONE' is already"),
        ('method = "gazetteer"\nentities = "brands.csv"\nfuzzy = "yes"', "key 'extraction.fuzzy': expected true"),
    ],
)
def test_a_gazetteer_study_names_what_is_wrong(tmp_path, extraction, message):
    from workbench.methods.study_files import load_study
    from workbench.studies.spec import StudyError

    (tmp_path / "bad.csv").write_text("name,spellings\nApple,iPhone\nSamsung,IPHONE\n")
    (tmp_path / "brands.csv").write_text("name\nNike\n")
    with pytest.raises(StudyError) as raised:
        load_study(str(_study(tmp_path, extraction)))
    assert message in str(raised.value)


def test_a_study_run_extracts_with_the_gazetteer(tmp_path, fake_server):
    """Every answer's list is the gazetteer's names in it, in order, under the gazetteer's name;
    names the gazetteer lacks are not counted; regions come from the same file."""
    import json

    from conftest import rows
    from helpers import run_cli
    from openai_server import ServerConfig

    (tmp_path / "brands.csv").write_text(
        "name,spellings,region\nAdidas,,Europe\nNike,Nike Air,United States\nAsics,,Asia\n"
    )
    server = fake_server(ServerConfig(reply_text="1. Nike Air Zoom\n2. Adidass Boston\n3. Brooks Ghost\n4. Nike again"))
    study = _study(tmp_path, 'method = "gazetteer"\nentities = "brands.csv"\nk = 5')
    study.write_text(study.read_text().replace("http://127.0.0.1:9/v1", server.base_url))
    db = tmp_path / "g.db"
    out = run_cli("run", str(study), "--db", str(db), "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Extracted ranked lists for 4 answers (0 with no recommendation)" in out.stdout
    assert (
        "names sought: the gazetteer's 3; 4 near spellings and 0 common-word matches are flagged for review"
        in out.stdout
    )  # Adidass, once per answer
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT source), MIN(source) FROM mention_lists") == [(4, 1, "gazetteer")]
    exported = json.loads(run_cli("export", "--db", str(db), "--what", "mentions", "--format", "json").stdout)
    first = sorted((r["rank"], r["entity"]) for r in exported if r["question_id"] == exported[0]["question_id"])
    assert first == [(1, "Nike"), (2, "Adidas")]
    assert run_cli("import", "entities", str(tmp_path / "brands.csv"), "--db", str(db)).returncode == 0
    shares = {
        r["region"]: r["value"]
        for r in json.loads(run_cli("metrics", "--db", str(db), "--format", "json").stdout)
        if r["metric"] == "region_share" and r["cluster"] is None
    }
    assert shares == {"United States": pytest.approx(0.5), "Europe": pytest.approx(0.5)}
