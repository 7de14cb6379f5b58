"""`workbench init`: a starter study for every method, copied with its data files, that loads."""

import pytest

from tests.helpers import ROOT, run_cli
from workbench.methods import registry
from workbench.methods.study_files import load_study


def test_without_a_method_it_lists_every_method_and_its_example():
    result = run_cli("init")
    assert result.returncode == 0, result.stderr
    for name in registry.names():
        assert f"  {name} " in result.stdout
    assert "movies.toml" in result.stdout


@pytest.mark.parametrize("method", ["choice", "coldstart", "identity", "entity"])
def test_each_method_gets_a_study_file_that_loads_where_it_was_written(tmp_path, method):
    target = tmp_path / "mine.toml"
    result = run_cli("init", method, str(target))
    assert result.returncode == 0, result.stderr
    assert f"workbench run {target}" in result.stdout
    text = target.read_text("utf-8")
    assert text.count("#") >= 5, "the starter explains its keys in comments"
    assert "assets/studies" not in text, "its comments name the copy, not the workbench's example"
    study = load_study(target)  # the data files it names were copied beside it
    assert study.method == method
    assert study.name == target.stem  # named after the copy (the example's "demo" is the demo's own study)


def test_a_study_file_that_exists_is_refused_and_data_files_are_kept(tmp_path):
    target = tmp_path / "mine.toml"
    target.write_text("mine")
    catalog = (ROOT / "assets" / "studies" / "coldstart" / "movies.csv").read_text() + "My own film,Other,drama\n"
    (tmp_path / "movies.csv").write_text(catalog)
    result = run_cli("init", "coldstart", str(target))
    assert result.returncode == 2
    assert "mine.toml already exists" in result.stderr and "--force" in result.stderr
    assert target.read_text() == "mine"
    forced = run_cli("init", "coldstart", str(target), "--force")
    assert forced.returncode == 0 and "Kept " in forced.stdout and "movies.csv as it is" in forced.stdout
    assert load_study(target).method == "coldstart"
    assert (tmp_path / "movies.csv").read_text() == catalog  # --force never overwrote the catalog
    # A second study beside the first shares its edited data file.
    assert run_cli("init", "coldstart", str(tmp_path / "second.toml")).returncode == 0
    assert (tmp_path / "movies.csv").read_text() == catalog
    folder = tmp_path / "folder"
    folder.mkdir()
    result = run_cli("init", "choice", str(folder), "--force")  # --force overwrites files, never a folder
    assert result.returncode == 2 and f"{folder} is a folder: name the study file to write" in result.stderr
    assert folder.is_dir()


def test_unknown_method_and_missing_folder_are_one_line(tmp_path):
    unknown = run_cli("init", "pairwise", str(tmp_path / "x.toml"))
    assert unknown.returncode == 2 and "known: choice, coldstart, identity, entity" in unknown.stderr
    missing = run_cli("init", "choice", str(tmp_path / "no" / "x.toml"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


def test_a_folder_or_hidden_name_is_refused_and_the_next_step_quotes_the_path(tmp_path):
    folder = run_cli("init", "choice", f"{tmp_path}/sub/")
    assert folder.returncode == 2 and "name the study file to write, e.g." in folder.stderr
    assert not (tmp_path / "sub").exists()
    hidden = run_cli("init", "choice", str(tmp_path / ".toml"))
    assert hidden.returncode == 2 and "a hidden file's name" in hidden.stderr
    spaced = run_cli("init", "choice", str(tmp_path / "x y.toml"))
    assert spaced.returncode == 0 and f"workbench run '{tmp_path / 'x y.toml'}' --db audit.db" in spaced.stdout


def test_the_help_of_force_says_what_it_does(tmp_path):
    """--force's help said 'overwrite files that exist' while data files that exist were kept:
    the help now says what the command does, and the command does what the help says."""
    shown = run_cli("init", "--help")
    assert shown.returncode == 0
    help_text = " ".join(shown.stdout.split())
    assert "overwrite the study file FILE if it exists" in help_text
    assert (
        "data files beside it that exist (catalog, brands, templates) are kept as they are, --force or not" in help_text
    )
    assert "overwrite files that exist" not in help_text
    target = tmp_path / "mine.toml"
    target.write_text("mine")
    brands = tmp_path / "demo_brands.csv"
    brands.write_text("name\nMy Brand\n")
    forced = run_cli("init", "choice", str(target), "--force")
    assert forced.returncode == 0, forced.stderr
    assert target.read_text() != "mine"  # the study file: overwritten
    assert brands.read_text() == "name\nMy Brand\n"  # the data file: kept
    refused = run_cli("init", "choice", str(target))
    assert refused.returncode == 2
    assert "--force to overwrite it; data files that exist are kept" in refused.stderr


@pytest.mark.parametrize(("method", "name"), [("choice", "demo_brands.csv"), ("identity", "colleges.toml")])
def test_a_study_named_like_one_of_its_data_files_is_refused(tmp_path, method, name):
    """`init choice demo_brands.csv` wrote the study, then the brands file over it ('Wrote
    demo_brands.csv, demo_brands.csv'): the study was lost and `run` read a CSV as TOML."""
    done = run_cli("init", method, str(tmp_path / name))
    assert done.returncode == 2
    assert f"the {method} example's data file {name} goes beside the study under that name" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_entity_examples_data_keep_their_licence_beside_them(tmp_path):
    """The copied countries and templates are the framework's (MIT): its notice goes with them
    under the example's name (a LICENSE of the user's folder is never touched), and the study's
    comment names it (it said 'see LICENSE in this folder', where none was)."""
    (tmp_path / "LICENSE").write_text("the user's own licence")
    assert run_cli("init", "entity", str(tmp_path / "s.toml")).returncode == 0
    assert (tmp_path / "LICENSE").read_text() == "the user's own licence"
    assert "MIT License" in (tmp_path / "countries_urgency.LICENSE").read_text()
    assert "see countries_urgency.LICENSE beside this file" in (tmp_path / "s.toml").read_text()
