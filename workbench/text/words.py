"""Counts in words, for every message a user reads: "1 response", "2 responses", never
"1 responses"."""

from __future__ import annotations


def plural(n: int, word: str, words: str = "") -> str:
    """`n` and the word for it: `word` for one, else `words` (default `word` + "s")."""
    return f"{n} {word if n == 1 else words or word + 's'}"


def plural_word(n: int, word: str, words: str = "") -> str:
    """Only the word for `n` ("requests" for 0 or 2, "request" for 1), for a count shown apart."""
    return word if n == 1 else words or word + "s"


def flagged_note(near_spellings: int, common_words: int) -> str:
    """The run's words for the names a reviewer should check: "2 near spellings and 1
    common-word match are flagged for review" (the Review screen and `review lists` show each)."""
    near = plural(near_spellings, "near spelling")
    common = plural(common_words, "common-word match", "common-word matches")
    return f"{near} and {common} {'is' if near_spellings + common_words == 1 else 'are'} flagged for review"
