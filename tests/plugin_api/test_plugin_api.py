"""The plugin API holds: every hook of the method base is documented, `workbench.plugin` gives a
method everything it imports, and a method written for an API this workbench does not offer is
refused in one line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from workbench import plugin
from workbench.methods.base import HOOKS, MethodBase, hook, part

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "writing-a-method.md"
PLUGIN = ROOT / "tests" / "plugins" / "pairwise_method"


def _documented_hooks() -> set[str]:
    """The names in the first column of the doc's hook tables (`name(args)` read as `name`)."""
    names: set[str] = set()
    for line in DOC.read_text("utf-8").splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names.update(re.findall(r"`([a-z_]+)", first))
    return names


def test_every_hook_is_documented():
    missing = sorted(set(HOOKS) - _documented_hooks())
    assert missing == [], f"hooks of the method base missing from docs/writing-a-method.md: {missing}"


def test_the_doc_documents_no_hook_the_base_lacks():
    """A hook the doc names is one the base has: no default claimed that does not exist."""
    extra = sorted(_documented_hooks() - set(HOOKS))
    assert extra == [], f"docs/writing-a-method.md names hooks the base does not have: {extra}"


def test_the_example_imports_the_plugin_api_only():
    imported = set()
    for path in (PLUGIN / "workbench_pairwise").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("workbench"):
                imported.add(node.module if node.module != "workbench" else f"workbench.{node.names[0].name}")
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names if a.name.startswith("workbench"))
    assert {m for m in imported if not m.startswith("workbench_pairwise")} == {"workbench.plugin"}


def test_every_name_of_the_api_resolves():
    for name in plugin.__all__:
        assert getattr(plugin, name) is not None, name
    assert plugin.Method is MethodBase and isinstance(plugin.API_VERSION, int)


class _Old:
    """A method that is not a subclass: read with the base's defaults."""

    name = "old"
    compare_module = "workbench.methods.choice.paired"  # API 1's path, still read

    def metric_records(self, conn, study, convention="paper"):
        return []


def test_a_method_that_is_no_subclass_gets_the_defaults():
    old = _Old()
    assert hook(old, "waits_for") == MethodBase.waits_for
    assert hook(old, "import_kinds") == () and hook(old, "metric_filters") == ()
    assert hook(old, "plan_context")(None, None, None) is None  # a default function, bound to it
    assert part(old, "compare").__name__ == "workbench.methods.choice.paired"
    assert part(old, "planner") is None


@pytest.mark.parametrize("version", [0, 3])
def test_a_method_for_an_api_not_offered_is_refused(version):
    from workbench.methods import register
    from workbench.methods.hook_types import MethodConflict

    class Future(plugin.Method):
        api_version = version
        name = "future"

    with pytest.raises(MethodConflict, match=r"'future' .* is written for plugin API .*offers API 1 to 2"):
        register(Future)


def test_a_lazy_part_imports_on_first_use():
    import sys

    name = "workbench.methods.identity.paired"
    had = sys.modules.pop(name, None)
    try:
        part_ = plugin.lazy(name)
        assert name not in sys.modules
        assert callable(part_.paired_records) and name in sys.modules
    finally:
        if had is not None:
            sys.modules[name] = had


def test_records_with_the_core_interval_take_a_new_key_without_an_edit():
    """A plugin's record declares `interval: plugin.Interval`: the row has every key the core
    writes for an interval, in the core's order, and `value_of` reads them."""
    from dataclasses import dataclass

    from workbench.metrics.intervals import interval_fields

    @dataclass(frozen=True, kw_only=True)
    class Share:
        study: str
        metric: str = "share"
        value: float | None
        n: int
        interval: plugin.Interval = plugin.nested()
        test: plugin.Test = plugin.nested(default=plugin.Test(None))

    core = interval_fields(0.2, 0.8, n_boot=1000, unit="answer")
    record = Share(study="s", value=0.5, n=10, interval=plugin.Interval.of_fields(core), test=plugin.Test(0.04))
    row = plugin.as_row(record)
    assert list(row) == ["study", "metric", "value", "n", *core, "p"]
    assert {k: row[k] for k in core} == core
    assert plugin.value_of(record, "ci_unit") == "answer" and plugin.has(record, "p")
    records = [
        record,
        Share(study="s", value=0.1, n=10, interval=plugin.proportion_interval(1, 10), test=plugin.Test(0.5)),
    ]
    plugin.with_adjusted_p(records, lambda r: True, ("study",))
    assert [plugin.as_row(r)["p_holm"] for r in records] == [0.08, 0.5]
    lone = plugin.proportion_interval(1, 1)
    assert (lone.low, lone.na_reason) == (None, "1 answer")


def test_one_error_family():
    """Every exception the workbench defines is in workbench.errors and derives from
    WorkbenchError, but for control flow private to one module (never seen by a caller)."""
    import importlib
    import inspect
    import pkgutil

    import workbench
    from workbench import errors

    private = {"_Repeated", "Unreached", "StandsOtherwise"}
    strays = []
    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        skipped = ("workbench.app", "workbench.screens", "workbench.widgets", "workbench.keys", "workbench.numbers")
        if info.name.endswith("__main__") or info.name == "workbench.errors" or info.name.startswith(skipped):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                if name not in private:
                    strays.append(f"{info.name}.{name}")
    assert strays == []
    family = [v for v in vars(errors).values() if inspect.isclass(v) and issubclass(v, BaseException)]
    assert all(issubclass(cls, errors.WorkbenchError) for cls in family)
    assert errors.ImportError_ is errors.FileInputError and errors.UserError is errors.UserFacingError
    assert plugin.errors is errors and issubclass(plugin.StudyError, plugin.UserFacingError)


@pytest.mark.parametrize("version", ["2", True, 2.0])
def test_an_api_version_that_is_no_whole_number_is_refused(version):
    from workbench.methods import register
    from workbench.methods.hook_types import MethodConflict

    class Odd(plugin.Method):
        api_version = version
        name = "odd"

    with pytest.raises(MethodConflict, match=r"'odd' .*api_version must be a whole number .*offers plugin API 1 to 2"):
        register(Odd)


def test_a_method_that_is_no_subclass_is_refused_naming_what_it_lacks():
    from workbench.methods import register

    class Bare:
        name = "bare"

        def load(self, data, path): ...

        def plan(self, study, model_identity, params, context): ...

        def metric_records(self, conn, study, convention="paper"): ...

    with pytest.raises(
        TypeError, match="it lacks first_stage, summary, plan_params, plan_context, helper_model, after_answers"
    ):
        register(Bare)


def test_values_that_are_no_interval_are_refused():
    with pytest.raises(ValueError, match="low end 0.9 is above its high end 0.1"):
        plugin.Interval(0.9, 0.1)
    with pytest.raises(ValueError, match="numbers or None"):
        plugin.Interval(float("nan"), 0.5)
    with pytest.raises(ValueError, match="0 to n units: 7 of 5"):
        plugin.proportion_interval(7, 5)
    nan = plugin.mean_interval([0.2, float("nan"), 0.4], "seed")
    assert (nan.low, nan.na_reason) == (None, "a seed's value is not a number")


def test_a_p_that_is_not_a_number_gets_no_adjusted_p_and_leaves_its_family_alone():
    from workbench.metrics.intervals import benjamini_hochberg, holm

    assert holm([0.01, float("nan"), 0.04]) == [0.02, None, 0.04]
    assert benjamini_hochberg([float("nan"), 0.5]) == [None, 0.5]


class _Api3(plugin.Method):
    """A method written for an API this workbench does not offer (loaded by its entry point)."""

    api_version = 3
    name = "api3"


def test_a_plugin_refused_at_load_says_so_in_one_line_and_its_study_says_why(tmp_path, monkeypatch, capsys):
    import importlib.metadata

    from workbench.methods import registry
    from workbench.methods.study_files import load_study
    from workbench.studies.spec import StudyError

    point = importlib.metadata.EntryPoint("api3", f"{__name__}:_Api3", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [point])
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "REFUSED", {})
    registry._load()
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and said.startswith("workbench: method plugin 'api3' could not be loaded: ")
    assert "written for plugin API 3; this workbench offers API 1 to 2" in said
    study = tmp_path / "s.toml"
    study.write_text('method = "api3"\nmodels = ["llama:default"]\n')
    with pytest.raises(StudyError, match="method 'api3' is installed but could not be loaded: .*plugin API 3"):
        load_study(study)


def test_a_lazy_part_that_cannot_be_imported_says_so_in_one_line():
    part_ = plugin.lazy("no_such_package.paired")
    with pytest.raises(plugin.UserFacingError, match=r"lazy\('no_such_package.paired'\) cannot be imported"):
        part_.paired_records  # noqa: B018 (the first use imports)


def test_a_study_whose_method_is_not_installed_says_so(tmp_path):
    """`workbench metrics` on a store holding a study of a method this installation lacks (its
    plugin uninstalled) says so, instead of advising to finish a run that would refuse it."""
    from helpers import run_cli

    from workbench.store.db import connect
    from workbench.store.requests.studies import ensure_study

    db = tmp_path / "a.db"
    conn = connect(db)
    ensure_study(conn, "weird", "weird")
    conn.close()
    out = run_cli("metrics", "--db", str(db))
    assert "weird (weird): no numbers yet: its method 'weird' is not installed here" in out.stdout + out.stderr
