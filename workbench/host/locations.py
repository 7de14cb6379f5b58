"""Where the workbench keeps things, and whom it records decisions under, in one place.

Files of its own go in the platform's user folders (on Linux the XDG variables:
$XDG_CACHE_HOME/audit-workbench or ~/.cache/audit-workbench, $XDG_DATA_HOME/audit-workbench
or ~/.local/share/audit-workbench); WORKBENCH_CACHE, when set, is the cache. A study's own
database is a file the user names (--db), `workbench.db` in the current folder unless told.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "audit-workbench"
DEFAULT_DB = "workbench.db"  # relative: the folder a command runs in
DEFAULT_REVIEWER = "reviewer"  # when the environment names no user


def cache_dir() -> Path:
    """The workbench's cache (models assembled, file hashes, dequantized copies):
    WORKBENCH_CACHE, else the platform's user cache folder."""
    from platformdirs import user_cache_dir

    return Path(os.environ.get("WORKBENCH_CACHE") or user_cache_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """The platform's user data folder: what the workbench keeps for the user (the demo's store)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def demo_db_path() -> Path:
    """The demo's database, `workbench tui`'s store when no --db is given."""
    return data_dir() / "demo.db"


def default_reviewer() -> str:
    """The name a decision is recorded under when none is given: the login name
    ($USER, or $USERNAME on Windows), else "reviewer"."""
    return os.environ.get("USER") or os.environ.get("USERNAME") or DEFAULT_REVIEWER
