"""The one JSON reader of every user file (question banks, `--task`, `--catalog`, attribute
lists), against Python's own `json`: the same value, except that a key given twice in one
object and nesting deeper than Python follows are refused in one line naming the file.

Generated documents hold objects whose keys may repeat, at any depth, and nesting from a
few levels to 100,000 (a file of `[` alone raised RecursionError through every reader).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_entity import EXAMPLE

from workbench.files.json_input import JsonInputError, load_json, parse_json

KEYS = st.sampled_from(["a", "b", "Budget-Conscious", "é", ""])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))


def _object(children):
    """An object written as pairs (json.dumps of a dict cannot repeat a key)."""
    pairs = st.lists(st.tuples(KEYS, children), max_size=4)
    return pairs.map(lambda kv: "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in kv) + "}")


documents = st.recursive(
    scalars.map(json.dumps),
    lambda children: st.one_of(
        st.lists(children, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"), _object(children)
    ),
    max_leaves=12,
)


def _repeats(text: str) -> bool:
    found = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        found.append(len(set(keys)) < len(keys))
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return any(found)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_the_reader_reads_what_json_reads_and_refuses_a_repeated_key(text):
    if _repeats(text):
        with pytest.raises(JsonInputError) as refused:
            parse_json(text, "bank.json")
        message = str(refused.value)
        assert message.startswith("bank.json: key ") and "is given twice in the object that opens on line 1" in message
    else:
        assert parse_json(text, "bank.json") == json.loads(text)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 50, 500, 5_000, 100_000]), st.sampled_from(["[", '{"a": ']), st.booleans())
def test_deep_nesting_is_read_or_refused_never_a_traceback(depth, opening, closed):
    """As deep as Python's recursion allows is read (json's own limit, some hundreds); deeper
    is refused as such; unclosed, the document is refused as not JSON or too deep."""
    closing = "]" if opening == "[" else "}"
    text = opening * depth + ("1" + closing * depth if closed else "")
    try:
        expected = json.loads(text)
    except RecursionError:
        expected = RecursionError
    except json.JSONDecodeError:
        expected = json.JSONDecodeError
    if expected is RecursionError:
        with pytest.raises(JsonInputError, match=r"^deep\.json: nested too deeply to read"):
            parse_json(text, "deep.json")
    elif expected is json.JSONDecodeError:
        with pytest.raises(JsonInputError, match=r"^deep\.json: not valid JSON: "):
            parse_json(text, "deep.json")
    else:
        assert parse_json(text, "deep.json") == expected


def test_a_repeat_is_placed_at_the_line_its_object_opens(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{\n "labels": [\n  {"id": "low",\n   "weight": 1,\n   "id": "high"}\n ]\n}\n')
    with pytest.raises(JsonInputError) as refused:
        load_json(path)
    assert str(refused.value) == (
        f"{path}: key 'id' is given twice in the object that opens on line 3; the first value would be lost: "
        "give each key once"
    )
    # The shipped example task reads as json reads it.
    task = EXAMPLE / "urgency.task.json"
    assert load_json(task) == json.loads(task.read_text("utf-8"))


@pytest.mark.parametrize("reader", ["questions", "task", "catalog"])
def test_a_hundred_thousand_brackets_are_refused_in_one_line_by_every_reader(tmp_path, reader):
    """`[` x 100,000 in a JSON bank, a --task or a --catalog raised RecursionError."""
    from helpers import run_cli

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    db = tmp_path / "a.db"
    if reader == "questions":
        result = run_cli("import", "questions", deep, "--db", db, "--study", "s", "--topic", "shoes")
    elif reader == "task":
        scores = tmp_path / "s.csv"
        scores.write_text("entity,template_id,label,logprob\nFrance,0,low_urgency,-0.1\n")
        result = run_cli("import", "scores", scores, "--db", db, "--study", "e", "--task", deep)
    else:
        rankings = tmp_path / "r.csv"
        rankings.write_text("model,seed,persona_category,persona,rank,item\nm,0,neutral,neutral,1,Alien\n")
        result = run_cli("import", "rankings", rankings, "--db", db, "--study", "c", "--catalog", deep)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and f"{deep}: nested too deeply to read" in result.stderr
    assert "Traceback" not in result.stderr and not db.exists()
