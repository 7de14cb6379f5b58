"""What every surface asks of a method instead of naming one: imports keep their method,
keys are refused at registration, help and exports list every registered method."""

from __future__ import annotations

import csv
import sqlite3

import pytest
from helpers import run_cli

from workbench import methods
from workbench.methods import hooks


def _method_of(db, study: str) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT method FROM studies WHERE name = ?", (study,)).fetchone()[0]


def test_cold_start_rankings_imported_into_a_new_study_keep_their_method(tmp_path):
    path, db, report = tmp_path / "r.csv", tmp_path / "c.db", tmp_path / "r.md"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "seed", "persona_category", "persona", "rank", "item"])
        for rank, item in enumerate(["A", "B", "C"], 1):
            writer.writerow(["m", 0, "", "neutral", rank, item])
            writer.writerow(["m", 0, "gender", "a girl", rank, item])
    assert run_cli("import", "rankings", str(path), "--db", str(db), "--study", "cs").returncode == 0
    assert _method_of(db, "cs") == "coldstart"  # was stored as a ChoiceEval study
    out = run_cli("report", "--db", str(db), "--study", "cs", "-o", str(report))
    assert out.returncode == 0, out.stderr
    text = report.read_text()
    assert "coldstart (cold-start re-ranking" in text and "Method | choice" not in text


def test_identity_references_imported_into_a_new_study_keep_their_method(tmp_path):
    path, db = tmp_path / "refs.csv", tmp_path / "i.db"
    path.write_text("item,group,share\nHoward University,Black,0.9\nMIT,White,0.35\n")
    out = run_cli("import", "references", str(path), "--db", str(db), "--study", "unis")
    assert out.returncode == 0, out.stderr
    assert _method_of(db, "unis") == "identity"


def test_main_help_and_metrics_help_name_every_registered_method():
    main_help = " ".join(run_cli("--help").stdout.split())
    metrics_help = run_cli("metrics", "--help").stdout
    for name in methods.names():
        method = methods.get(name)
        assert f"{name} ({hooks.title(method)})" in main_help
        assert f"{name}: {method.summary}" in metrics_help


def test_the_responses_export_has_every_method_s_fields():
    from workbench.pipeline.run_records import response_fields

    fields = response_fields()
    for name in methods.names():
        assert set(hooks.hook(methods.get(name), "export_fields")) <= set(fields)
    assert len(fields) == len(set(fields))


class _Keyed(methods.MethodBase):
    name = "keyed"
    summary = "a method whose filter takes a key another holds"

    async def after_answers(self, stages):
        pass

    def metric_records(self, conn, study, convention="paper"):
        return []


def test_a_filter_key_already_taken_is_refused_at_registration():
    class TakesTopicKey(_Keyed):
        metric_filters = (methods.Filter("colour", "t", "Colour", lambda records: ["all"]),)

    with pytest.raises(hooks.MethodConflict, match=r"method 'keyed': its filter 'colour' takes key 't'.*'choice'"):
        methods.register(TakesTopicKey)
    assert "keyed" not in methods.names()

    class TakesExport(_Keyed):
        metric_filters = (methods.Filter("colour", "e", "Colour", lambda records: ["all"]),)

    with pytest.raises(hooks.MethodConflict, match="the screen's own key 'e'"):
        methods.register(TakesExport)

    class SharesTopic(_Keyed):  # the same filter (name and key) as ChoiceEval's: one key for both
        metric_filters = (methods.Filter("topic", "t", "Topic", lambda records: ["all"]),)

    try:
        methods.register(SharesTopic)
        assert "keyed" in methods.names()
    finally:
        methods.unregister("keyed")


def test_a_review_key_already_taken_is_refused_and_a_name_held_by_another_method():
    class TakesProbes(_Keyed):
        review_views = (hooks.ReviewView("b", "Mine", "x:Y"),)

    with pytest.raises(
        hooks.MethodConflict, match=r"Review 'Mine' takes key 'b', held by the Review 'Probes' of method 'identity'"
    ):
        methods.register(TakesProbes)

    class Choice(_Keyed):
        name = "choice"

    with pytest.raises(hooks.MethodConflict, match="'choice' .* is already registered"):
        methods.register(Choice)
    assert type(methods.get("choice")).__name__ == "ChoiceMethod"


def test_the_screens_keep_the_keys_the_registry_reserves_for_them():
    """hooks.METRICS_KEYS and REVIEW_KEYS hold the screens' own keys, so a method's key
    never shadows one of them (the screens name no method)."""
    from workbench.screens.metrics import COMMANDS
    from workbench.screens.review import ReviewScreen

    assert {b.key for b in COMMANDS} == hooks.METRICS_KEYS
    views = {v.key for v in hooks.review_views()}
    own = {key for b in ReviewScreen.BINDINGS for key in b.key.split(",")} - views
    assert own <= hooks.REVIEW_KEYS, own - hooks.REVIEW_KEYS


def _help_section(text: str, heading: str) -> list[str]:
    return next(b for b in text.split("\n\n") if b.startswith(f"[b]{heading}[/b]")).splitlines()


def test_the_app_s_help_has_each_method_s_keys_in_its_screen_s_section():
    """F1 lists the core's keys per screen, then each method's (its `help_sections`): a method
    added shows its keys where its screen's are, and a screen of its own under its own heading."""
    from workbench.widgets.help import help_text

    text = help_text()
    design, review, metrics = (_help_section(text, h) for h in ("Design", "Review", "Metrics"))
    assert "  ChoiceEval studies: questions, clusters and models" in design
    assert any("template editor" in line for line in design)  # identity's
    assert any(line.startswith("  b          transparency-probe labels") for line in review)
    assert any(line.startswith("  m        cold-start chart") for line in metrics)
    assert "ChoiceEval" not in metrics[0] and "ChoiceEval" not in design[0]  # the headings are the core's

    class Helped(_Keyed):
        help_sections = {"Review": "  j          keyed: the next jar", "Jars": "  J        every jar\n"}

    methods.register(Helped)
    try:
        text = help_text()
        assert _help_section(text, "Review")[-1] == "  j          keyed: the next jar"
        assert _help_section(text, "Jars") == ["[b]Jars[/b]", "  J        every jar"]
        assert text.rstrip().endswith("docs/entities.md.")  # the closing paragraph stays last
    finally:
        methods.unregister("keyed")
