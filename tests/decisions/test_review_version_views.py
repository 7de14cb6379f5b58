"""A verdict given with the other view's version: refused saying so, not 'changed since'."""

from __future__ import annotations

import json

from tests.helpers import mentions_store, run_cli


def _version(db, list_id: int, *blind: str) -> str:
    shown = run_cli("review", "lists", "--db", str(db), "--format", "json", *blind)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    lists = data if isinstance(data, list) else data["lists"]
    return next(item["version"] for item in lists if item["list_id"] == list_id)


def test_a_blind_verdict_with_the_open_views_version_is_refused_for_what_it_is(tmp_path):
    db = mentions_store(tmp_path)
    verdict = ("review", "verdict", "--db", str(db), "--list", "2", "--who", "bo", "--blind", "--accept")
    open_version = _version(db, 2)
    refused = run_cli(*verdict, "--if-version", open_version)
    # nothing changed: it said "list 2 changed since it was shown"
    assert refused.returncode == 2 and "changed since" not in refused.stderr
    blind_version = _version(db, 2, "--blind", "--who", "bo")
    assert (
        f"version {open_version} is the open view's; a blind verdict takes the blind view's version, {blind_version}"
        in refused.stderr
    )
    done = run_cli(*verdict, "--if-version", blind_version)
    assert done.returncode == 0, done.stderr
