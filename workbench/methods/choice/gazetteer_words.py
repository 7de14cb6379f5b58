"""When a gazetteer match is an ordinary word, not the brand: the rules measured on the
labelled answers of tests/data/gazetteer_labelled.jsonl (docs/methods.md, "A gazetteer
instead").

A capital letter marks a proper noun in mid-sentence, but not at the start of a sentence,
where every word has one: "On balance, Asics..." named On Running, "Fellow runners swear by
Hoka" named Fellow, "Nothing beats the Pegasus" named Nothing Phone. So a match made only
of common words (assets/common_words.txt) that starts a sentence counts only when what
follows reads as a name: punctuation or the end ("On, Hoka and Saucony"), a possessive
("On's Cloudboom"), a word with a capital or a digit ("Apple iPhones", "New Balance 1080"),
or a word a brand is typically followed by (`AS_A_NAME`: "Apple makes", "Vans are",
"Galaxy phones"). Such a match is counted and flagged as a common word for review, unless
another name follows it in a list ("Apple, Samsung, and Google": the answer lists brands).
A match that is a list item on its own, after a list marker at the start of its line and
before the line's end or punctuation ("1. Brooks", "- **On**: light and fast"), is a name
and counted unflagged: a list of picks holds names, and "Brooks" alone as one is no brook.

A near spelling that is itself a common word is not counted: "Salmon" is the fish, not a
misspelt Salomon; "Realm" is no Realme.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from importlib.resources import files

# What follows a brand at the start of a sentence, and rarely the ordinary word: its verbs,
# the kinds of product the audits ask about, and joins to another name ("Apple and Samsung").
AS_A_NAME = frozenset(
    """is are was were has have had makes make made offers offer sells sell builds build designs
    produces focuses leads remains uses stands excels dominates wins also and or
    shoes shoe sneakers trainers boots phones phone smartphones smartphone handsets devices
    machines machine makers maker kettles kettle grinders grinder pods capsules models products
    lineup range""".split()
)
# The start of a sentence: the text's start, or after . ! ? : ; or a line break, with
# spaces, quotes, an opening bracket, a bullet or a list number ("1." "2)") between.
_SENTENCE_START = re.compile(r"(?:\A|[.!?:;\n])[\s\"'“‘(*•\-–—]*(?:\d+[.)][\s]*)?\Z")
# The token after a match: a possessive, a word (also one joined by a hyphen: "Whirlpool-like"
# reads on as one word), one other character, or the end.
_NEXT = re.compile(r"\s*(['’]s\b|-?[^\W_]+|\S|\Z)")


# A list item's start: spaces, a marker ("1." "2)" "-" "*" "•"), spaces and perhaps bold; and
# its end after the name: perhaps the bold's close, then the line's end or punctuation.
_ITEM_MARKER = re.compile(r"[ \t]*(?:\d+[.)]|[-*•–—])[ \t]*(?:\*\*|__|\*|_)?")
_ITEM_END = re.compile(r"(?:\*\*|__|\*|_)?[ \t]*(?:\r?\n|\Z|[:,;.!?)—–-])")


def list_item(text: str, start: int, end: int) -> bool:
    """Whether the match at start..end is a list item on its own ("1. Brooks", "- On: ...")."""
    line = text.rfind("\n", max(0, start - 40), start) + 1  # a marker is short: 40 characters hold it
    if line == 0 and start > 40:
        return False
    return _ITEM_MARKER.fullmatch(text, line, start) is not None and _ITEM_END.match(text, end) is not None


# Between two names of a list: "Apple, Samsung", "On and Hoka", "Honor / Huawei".
_LIST_JOIN = re.compile(r"\s*(?:,|&|/|\band\b|\bor\b)\s*(?:(?:and|or)\s+)?\Z", re.IGNORECASE)


def in_lists(text: str, found: list) -> list:
    """`found` (in order), a common-word match that opens a list of names no longer flagged:
    "Apple, Samsung, and Google." starts with the brand, whatever Apple is elsewhere."""
    out = list(found)
    for n, (this, after) in enumerate(zip(found, found[1:])):
        if this.common and _LIST_JOIN.match(text[this.end : after.start]):
            out[n] = replace(this, common=False)
    return out


@cache
def common_words() -> frozenset[str]:
    text = files("workbench.assets").joinpath("common_words.txt").read_text("utf-8")
    return frozenset(w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#"))


def is_common(folded: str) -> bool:
    """A folded word (lower case, no accents) that is an ordinary word, or its plural."""
    words = common_words()
    return folded in words or (folded.endswith("s") and folded[:-1] in words)


def sentence_start(text: str, start: int) -> bool:
    return _SENTENCE_START.search(text[max(0, start - 40) : start]) is not None or start == 0


def reads_as_name(text: str, end: int) -> bool:
    """Whether what follows a match at `end` reads as following a name (see the module)."""
    following = _NEXT.match(text, end)
    token = (following.group(1) if following else "").removeprefix("-")
    if not token or not token[0].isalnum():  # the end, punctuation, or a possessive
        return True
    return token[0].isupper() or token[0].isdigit() or token.casefold() in AS_A_NAME
