"""Where the workbench keeps files of its own: the platform's user folders, which on
Linux follow the XDG variables, and WORKBENCH_CACHE above them for the cache."""

import argparse
import sys

import pytest

from workbench.host.locations import cache_dir, default_reviewer, demo_db_path

# Other platforms have folders of their own (~/Library/Caches, %LOCALAPPDATA%).
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the XDG variables are Linux's")


def test_the_cache_and_the_demo_follow_the_xdg_variables(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert cache_dir() == tmp_path / "cache" / "audit-workbench"
    assert demo_db_path() == tmp_path / "data" / "audit-workbench" / "demo.db"
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"


def test_unset_xdg_variables_mean_the_home_folders(tmp_path, monkeypatch):
    for name in ("WORKBENCH_CACHE", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "audit-workbench"
    assert demo_db_path() == tmp_path / ".local" / "share" / "audit-workbench" / "demo.db"


def test_decisions_are_recorded_under_the_login_name_unless_told(monkeypatch):
    """`review`, `entities` and the app record under $USER ($USERNAME on Windows) when no
    --who or --reviewer names someone, and under "reviewer" when the environment names no one."""
    from workbench.app import WorkbenchApp
    from workbench.cli.entities import reviewer_name

    monkeypatch.setenv("USER", "ana")
    assert default_reviewer() == "ana" and WorkbenchApp("x.db").reviewer == "ana"
    assert reviewer_name(argparse.Namespace(who=None)) == "ana"
    assert reviewer_name(argparse.Namespace(who=" bo ")) == "bo"
    monkeypatch.delenv("USER")
    monkeypatch.setenv("USERNAME", "cy")
    assert default_reviewer() == "cy"
    monkeypatch.delenv("USERNAME")
    assert default_reviewer() == "reviewer" and WorkbenchApp("x.db", reviewer="dee").reviewer == "dee"
