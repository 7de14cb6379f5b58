"""Property-based fuzzing of every study file kind and every importer.

Whatever a user (or a broken tool) writes, the workbench answers with one line
naming the file, the key or the line, exits with status 2, and stores nothing;
or, when the input is valid after all, runs normally. Never a traceback.
"""

from __future__ import annotations

import json
import shutil
from importlib.resources import files
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.methods.choice.writer import dump_toml

ENTITY = Path(str(files("workbench.assets").joinpath("studies", "entity")))
# A server that is not there: a study that happens to be valid fails its requests
# at once (connection refused) instead of loading a model.
DEAD = "openai:m@http://127.0.0.1:9/v1,retries=0,timeout=1"

BASES = {
    "choice": {
        "name": "c",
        "method": "choice",
        "repetitions": 1,
        "seed": 1,
        "models": [DEAD],
        "generation": {"temperature": 0.5, "max_tokens": 8},
        "extraction": {"method": "list", "k": 3},
        "metrics": {"top_n": 5},
        "topics": [{"name": "shoes", "questions": {"Budget-Conscious": ["Which shoe?"]}}],
    },
    "coldstart": {
        "name": "s",
        "method": "coldstart",
        "models": [DEAD],
        "catalog": "cat.csv",
        "k": 2,
        "seeds": 1,
        "attributes": {"gender": ["a girl", "a boy"]},
        "generation": {"temperature": 0.5},
    },
    "identity": {
        "name": "i",
        "method": "identity",
        "models": [DEAD],
        "template": "universities",
        "per_group": 1,
        "seed": 1,
        "generation": {"max_tokens": 8},
    },
    "entity": {
        "name": "e",
        "method": "entity",
        "models": [DEAD],
        "task": "urgency.task.json",
        "templates": "urgency_templates.csv",
        "entities": "countries.csv",
        "max_templates": 1,
        "max_entities": 2,
        "variants": ["zero_shot_text"],
        "group_by": ["Region"],
    },
}

scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from([2**40, -1, 0, 10**9]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=20),
    st.sampled_from(["", "[/x]", "\x1b[31m", "llama:default", "../..", "cat.csv"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(data, prefix=()):
    """Every key path of a nested study table (into tables, lists of tables and lists)."""
    for key, value in data.items() if isinstance(data, dict) else enumerate(data):
        yield (*prefix, key)
        if isinstance(value, dict | list):
            yield from _paths(value, (*prefix, key))


@st.composite
def mutated_study(draw):
    method = draw(st.sampled_from(sorted(BASES)))
    data = json.loads(json.dumps(BASES[method]))
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "delete" and isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=8))] = draw(values)
        else:
            parent[path[-1]] = draw(values)
    return method, data


def _one_line_error(err: str, path: Path) -> None:
    assert "Traceback" not in err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert str(path.parent) in err or "--" in err or "model spec" in err, err


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated_study())
def test_study_files_never_crash(tmp_path_factory, capsys, study):
    method, data = study
    folder = tmp_path_factory.mktemp(method)
    for name in ("urgency.task.json", "urgency_templates.csv", "countries.csv"):
        shutil.copy(ENTITY / name, folder / name)
    (folder / "cat.csv").write_text("title\nA\nB\nC\n")
    path = folder / "study.toml"
    try:
        path.write_text(dump_toml(data), encoding="utf-8", errors="surrogatepass")
    except (TypeError, UnicodeEncodeError):
        return  # not expressible as a TOML file
    db = folder / "fuzz.db"
    code = main(["run", str(path), "--db", str(db), "--quiet", "--max-requests", "200"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (code, out, err)
    if code == 2:
        _one_line_error(err, path)
        assert not db.exists() or _requests(db) == 0  # nothing planned


def _requests(db: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
    finally:
        conn.close()


IMPORTS = {
    "mentions": ("model,topic,cluster,question_id,repetition,rank,entity", ["--study", "x"]),
    "rankings": ("model,seed,persona_category,persona,rank,item", ["--study", "x"]),
    "references": ("item,group,share,count,group_total", ["--study", "x"]),
    "entities": ("name,region", []),
    "questions": ("topic,cluster,question", ["--study", "x"]),
}
cells = st.one_of(st.text(max_size=12), st.sampled_from(["nan", "inf", "-1", "1e400", str(2**70), "3.5", "", "1"]))
encodings = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"])


@st.composite
def csv_file(draw):
    kind = draw(st.sampled_from(sorted(IMPORTS)))
    header, _ = IMPORTS[kind]
    columns = header.split(",")
    if draw(st.booleans()):
        columns = draw(st.lists(st.sampled_from(columns + ["extra"]), min_size=1, max_size=len(columns) + 1))
    # Names repeat (drawn with replacement) and carry spaces around them: a repeat, spaces
    # aside, is refused in one line like any other fault, never read as the last column.
    columns = [draw(st.sampled_from(["", " "])) + c + draw(st.sampled_from(["", " "])) for c in columns]
    rows = draw(st.lists(st.lists(cells, min_size=max(1, len(columns) - 1), max_size=len(columns) + 1), max_size=4))
    lines = [",".join(columns)] + [",".join(json.dumps(c) if "," in c or '"' in c else c for c in row) for row in rows]
    return kind, "\n".join(lines) + "\n", draw(encodings)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(csv_file())
def test_importers_never_crash(tmp_path_factory, capsys, case):
    kind, text, encoding = case
    folder = tmp_path_factory.mktemp(kind)
    path = folder / f"in.{'csv'}"
    try:
        path.write_bytes(text.encode(encoding))
    except UnicodeEncodeError:
        return
    db = folder / "fuzz.db"
    code = main(["import", kind, str(path), "--db", str(db), *IMPORTS[kind][1]])
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, out, err)
    if code == 2:
        _one_line_error(err, path)
        assert not db.exists()  # a failed import leaves nothing behind
    names = [c.strip() for c in text.split("\n", 1)[0].split(",")]
    if len(set(names)) < len(names):  # the header is read first: its repeat is the refusal
        assert code == 2 and "is named twice" in err, (code, out, err)


@pytest.mark.parametrize("content", [b"", b"\xff\xfe", b"a,b\n\x00\x00\n", "name,region\n\u00e9\n".encode("latin-1")])
def test_odd_csv_files(tmp_path, capsys, content):
    path = tmp_path / "e.csv"
    path.write_bytes(content)
    code = main(["import", "entities", str(path), "--db", str(tmp_path / "x.db")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1


NAME_PARTS = st.sampled_from(
    [
        "The",
        "Acme",
        "Acmee",
        "S.p.A.",
        "Co.,Ltd.",
        "(Japan)",
        ", USA",
        " - ",
        "[/x]",
        "\x1b[31m",
        "株式会社",
        "2",
        "",
        " ",
        ".",
        "&",
        "L'",
        "Oréal",
        "a/s",
        "(",
        ")",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.text(max_size=30), st.lists(NAME_PARTS, max_size=6).map(" ".join)),
        min_size=1,
        max_size=40,
        unique=True,
    ),
    st.integers(min_value=1, max_value=10_000),
)
def test_suggestions_on_any_names(names, seed):
    """Whatever the names, suggestions never fail, never repeat a member, never pair a
    forbidden pair, and every member is one of the names."""
    from workbench.entities import dedup

    counts = [1 + (seed * (i + 7)) % 13 for i in range(len(names))]
    forbidden = [(names[0], names[-1])] if len(names) > 1 else []
    found = dedup.suggest(names, counts, forbidden=forbidden)
    members = [m for s in found for m in s.members]
    assert len(members) == len(set(members)) and set(members) <= set(names)
    assert all(len(s.members) == len(s.counts) == len(s.reasons) >= 2 for s in found)
    assert not any(names[0] in s.members and names[-1] in s.members for s in found if len(names) > 1)
