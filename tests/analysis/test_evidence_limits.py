"""`workbench evidence --limit`: a count of answers, never a slice from the end."""

from __future__ import annotations

from tests.helpers import mentions_store, run_cli


def test_a_negative_limit_is_refused_and_a_limit_says_what_it_left_out(tmp_path):
    db = mentions_store(tmp_path)
    base = ("evidence", "--db", str(db), "--metric", "peir", "--topic", "shoes", "--model", "gpt")
    refused = run_cli(*base, "--limit", "-5")
    # answers[:-5] left out the last five without a word
    assert refused.returncode == 2 and "--limit: expected a number at least 0, got -5" in refused.stderr
    shown = run_cli(*base, "--limit", "2")
    assert shown.returncode == 0 and "Nike named in 12 of 12 answers" in shown.stdout
    assert shown.stdout.count("repetition") == 2 and "... and 10 more (--limit 0: all)" in shown.stdout
