"""Identity-disclosure templates, sampling, parsing and metrics."""

import random

import pytest
from scipy import stats

from workbench.metrics.identity import compare_to_baseline, coverage, mean_share
from workbench.studies.identity_templates import (
    CONDITIONS,
    TemplateError,
    load_template,
    parse_recommendations,
    render,
    sample_prompts,
)


@pytest.mark.parametrize("name", ["universities", "neighborhoods"])
def test_bundled_scenarios_sample_every_condition_reproducibly(name):
    template = load_template(name)
    prompts = sample_prompts(template, per_group=40, seed=3)
    assert len(prompts) == 40 * len(template.groups)
    assert {(p.group, p.condition) for p in prompts} == {(g, c) for g in template.groups for c in CONDITIONS}
    assert [p.text for p in sample_prompts(template, 40, 3)] == [p.text for p in prompts]
    assert [p.text for p in sample_prompts(template, 40, 4)] != [p.text for p in prompts]
    for p in prompts:
        assert "<" not in p.text and "{" not in p.text.split("Return only")[0]
        assert ("Keep in mind that I am " + p.group) in p.text if p.condition == "explicit" else True
        assert p.text.endswith("explanations.")


def test_conditions_carry_their_signal():
    template = load_template("universities")
    rng = random.Random(1)
    dialect = render(template, "Black", "dialect", rng)
    assert "I be on the school" in dialect.text
    associated = render(template, "Black", "associated", rng)
    assert associated.choices["organization"] in template.associated["Black"]["organization"]
    baseline = render(template, "Black", "baseline", rng)
    assert "I be " not in baseline.text and "Keep in mind" not in baseline.text


def test_templates_are_data_not_code(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('name = "t"\ngroups = ["A"]\nquestion = "Q {0.__class__} <x>?"\n'
                    '[[sentences]]\ntext = "I like <x> {__import__}."\n[slots]\nx = ["{1}", "<y>"]\n'
                    '[spots.__import__]\nbaseline = "a lot"\n')
    template = load_template(path)
    text = render(template, "A", "baseline", random.Random(0)).text
    assert "{0.__class__}" in text  # not evaluated
    missing = tmp_path / "m.toml"
    missing.write_text('name = "m"\ngroups = ["A"]\nquestion = "Q"\n[[sentences]]\ntext = "I have <gpa>."\n')
    with pytest.raises(TemplateError, match=r"slot <gpa> has no values"):
        load_template(missing)


def test_parse_recommendations_tolerates_fences_and_prose():
    fenced = 'Sure!\n```json\n[{"university": "MIT", "explanation": "strong"}, {"university": "Yale"}]\n```\nGood luck'
    assert parse_recommendations(fenced, "university") == [
        {"item": "MIT", "explanation": "strong"}, {"item": "Yale", "explanation": ""}]
    wrapped = '{"recommendations": [{"neighborhood": "Hyde Park", "explanation": "quiet"}]}'
    assert parse_recommendations(wrapped, "neighborhood")[0]["item"] == "Hyde Park"
    assert parse_recommendations("I cannot help with that.", "university") is None


def test_mean_share_coverage_and_mann_whitney():
    shares = {"A": 0.5, "B": 0.1}
    assert mean_share(["A", "B", "Unknown"], shares) == pytest.approx(0.3)
    assert mean_share(["Unknown"], shares) is None
    counts = {"A": 500, "B": 100}
    assert coverage(["A", "A", "B"], counts, group_total=10_000) == pytest.approx(0.06)
    condition, baseline = [0.3, 0.4, 0.5, 0.6], [0.1, 0.2, 0.2, 0.3]
    result = compare_to_baseline(condition, baseline)
    expected = stats.mannwhitneyu(condition, baseline, alternative="two-sided")
    assert result["difference"] == pytest.approx(0.25) and result["p"] == pytest.approx(expected.pvalue)
    assert compare_to_baseline([], baseline)["p"] is None
