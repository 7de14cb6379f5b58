"""The list extractor, the expert-reply parser and the majority vote."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.asking.extract import (
    expert_agreement,
    extract_list,
    extraction_messages,
    majority_vote,
    normalize_surface,
    parse_expert_reply,
)


def test_numbered_bulleted_and_bold_items_are_cleaned():
    text = """Here are some options:
1. **Nike Pegasus 40** - a reliable daily trainer.
2) Adidas Ultraboost: great cushioning
- Hoka Clifton 9 (lightweight)
* *Brooks Ghost*
3. nike pegasus 40
"""
    assert extract_list(text, k=10) == ["Nike Pegasus 40", "Adidas Ultraboost", "Hoka Clifton 9", "Brooks Ghost"]


def test_bold_names_when_there_is_no_list():
    text = "I would pick **Samsung Galaxy S24** or maybe the __Google Pixel 8__ for its camera."
    assert extract_list(text) == ["Samsung Galaxy S24", "Google Pixel 8"]


def test_k_limits_and_junk_is_skipped():
    text = (
        "\n".join(f"{i}. Brand {i}" for i in range(1, 9))
        + "\n9. 2. 3. 4.\n10. This is a very long sentence that is not a name at all really"
    )
    assert extract_list(text, k=5) == [f"Brand {i}" for i in range(1, 6)]
    assert extract_list("No lists here, just prose.") == []


def test_expert_reply_parsing():
    assert parse_expert_reply('{"recommended": ["Nike", "Adidas", "nike"]}') == ["Nike", "Adidas"]
    assert parse_expert_reply('Sure!\n```json\n{"recommended": ["Apple"]}\n```\nHope it helps') == ["Apple"]
    assert parse_expert_reply('["A", "B", "C", "D", "E", "F"]', k=3) == ["A", "B", "C"]
    assert parse_expert_reply("1. Nike\n2. Asics") == ["Nike", "Asics"]
    assert parse_expert_reply("none") == []
    assert parse_expert_reply('{"recommended": []}') == []
    assert parse_expert_reply("I cannot tell.") is None
    assert parse_expert_reply('{"recommended": [1, 2]}') is None


def test_vote_counts_slots_and_breaks_ties_by_mean_position():
    experts = [["Nike", "Adidas", "Asics"], ["Adidas", "Nike"], ["nike", "Hoka"], ["Adidas", "Puma"]]
    voted = majority_vote(experts, k=3)
    # Nike 3 votes (positions 1,2,1 -> mean 1.33), Adidas 3 votes (2,1,1 -> 1.33): tie on both,
    # then best position (1 each), then name.
    assert [v.surface for v in voted] == ["Adidas", "Nike", "Hoka"]
    assert [v.votes for v in voted] == [3, 3, 1]
    # The most frequent surface form names the entity.
    assert voted[1].surface == "Nike"


def test_vote_of_nothing():
    assert majority_vote([]) == []
    assert majority_vote([[], []]) == []


def test_agreement():
    assert expert_agreement([["a", "b"], ["a", "b"]]) == 1.0
    assert expert_agreement([["a"], ["b"]]) == 0.0
    assert expert_agreement([["a", "b"], ["a"], []]) == (0.5 + 0 + 0) / 3
    assert expert_agreement([["a"]]) is None


def test_extraction_prompt_treats_braces_as_data():
    messages = extraction_messages("What {k} shoes?", "Try {answer} and {{Nike}}", 5)
    content = messages[0]["content"]
    assert "What {k} shoes?" in content and "Try {answer} and {{Nike}}" in content


names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000), st.integers(min_value=1, max_value=10))
def test_list_extractor_never_crashes_and_returns_at_most_k_unique(text, k):
    found = extract_list(text, k)
    assert len(found) <= k
    assert len({normalize_surface(f) for f in found}) == len(found)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=500))
def test_expert_parser_never_crashes(text):
    result = parse_expert_reply(text)
    assert result is None or (len(result) <= 5 and all(isinstance(x, str) for x in result))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(names, max_size=6), min_size=1, max_size=5), st.integers(min_value=1, max_value=6))
def test_vote_is_invariant_to_expert_order_and_bounded(experts, k):
    voted = majority_vote(experts, k)
    assert len(voted) <= k
    keys = [normalize_surface(v.surface) for v in voted]
    assert len(set(keys)) == len(keys)
    for order in itertools.islice(itertools.permutations(experts), 6):
        again = majority_vote(list(order), k)
        assert [normalize_surface(v.surface) for v in again] == keys
        assert [v.votes for v in again] == [v.votes for v in voted]
