"""Counts in words, for every message a user reads: "1 response", "2 responses", never
"1 responses"."""

from __future__ import annotations


def plural(n: int, word: str, words: str = "") -> str:
    """`n` and the word for it: `word` for one, else `words` (default `word` + "s")."""
    return f"{n} {word if n == 1 else words or word + 's'}"


def plural_word(n: int, word: str, words: str = "") -> str:
    """Only the word for `n` ("requests" for 0 or 2, "request" for 1), for a count shown apart."""
    return word if n == 1 else words or word + "s"
