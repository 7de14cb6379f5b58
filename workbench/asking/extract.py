"""Turning answers into ranked lists of recommended entities.

Two extractors (docs/methods.md §1):
- `extract_list`: deterministic, no model needed — numbered, bulleted and bold
  items, cleaned of descriptions and markdown;
- the multi-expert LLM extractor: E independent runs each return an ordered list
  of up to K entities (`parse_expert_reply`), combined by `majority_vote`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from workbench.store.surface import normalize_surface  # noqa: F401  (one definition, re-exported)

DEFAULT_K = 5
DEFAULT_EXPERTS = 5

_ITEM = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•+]|#{1,6})\s+(?P<item>.+)$")
_BOLD = re.compile(r"\*\*(?P<bold>[^*\n]{1,80}?)\*\*|__(?P<under>[^_\n]{1,80}?)__")
# An item's name ends where its description starts.
_DESCRIPTION = re.compile(r"\s*(?::|\s[-–—]\s|\s\(|,\s(?:which|that|known|a|an|the)\s).*$", re.DOTALL)
# Characters trimmed from an item's start and end (str.strip: linear, unlike a
# regex anchored at the end, which is quadratic in a long run of them).
_LEAD = " \t\r\n\f\v\"'“”‘’`*_#>[]"
_TRAIL = _LEAD + ".,;:!?"
# No name is longer than this; the description that follows it is cut before any
# pattern runs, so hostile replies (a megabyte on one line) cost linear time.
_ITEM_WINDOW = 400


def clean_item(text: str) -> str:
    """An entity name from a list item: markdown, description and edges removed."""
    text = " ".join(text[:_ITEM_WINDOW].split())
    bold = _BOLD.search(text)
    if bold and bold.start() <= 3:
        text = bold.group("bold") or bold.group("under")
    text = text.replace("**", "").replace("__", "")
    text = _DESCRIPTION.sub("", text)
    text = text.lstrip(_LEAD).rstrip(_TRAIL)
    return " ".join(text.split())


def _acceptable(name: str) -> bool:
    """A plausible name: short, and with at least one letter (not "2. 3. 4.")."""
    return 0 < len(name) <= 80 and len(name.split()) <= 8 and any(c.isalpha() for c in name)


def extract_list(text: str, k: int = DEFAULT_K) -> list[str]:
    """Up to k distinct entity names from list items (or, failing those, bold names), in order."""
    found: list[str] = []
    seen: set[str] = set()

    def add(candidate: str) -> None:
        name = clean_item(candidate)
        key = normalize_surface(name)
        if _acceptable(name) and key and key not in seen:
            seen.add(key)
            found.append(name)

    for line in text.splitlines():
        match = _ITEM.match(line)
        if match:
            add(match.group("item"))
    if not found:
        for match in _BOLD.finditer(text):
            add(match.group("bold") or match.group("under"))
    return found[:k]


# -- the LLM experts -----------------------------------------------------------

EXPERT_SCHEMA = {
    "type": "object",
    "properties": {
        "recommended": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": DEFAULT_K},
    },
    "required": ["recommended"],
}


def expert_schema(k: int) -> dict[str, Any]:
    schema = json.loads(json.dumps(EXPERT_SCHEMA))
    schema["properties"]["recommended"]["maxItems"] = k
    return schema


def json_values(text: str) -> Iterator[Any]:
    """JSON values a model's reply may hold: the whole text, a fenced block, or the
    outermost {...} / [...] inside prose — each that parses, in that order."""
    candidates = [text]
    # The first fenced block, found with str.find (a regex with a lazy body is
    # quadratic over a reply of many unclosed fences).
    start = text.find("```")
    end = text.find("```", start + 3) if start >= 0 else -1
    if end > start:
        body = text[start + 3 : end]
        candidates.append(body[4:] if body.startswith("json") else body)
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            yield json.loads(candidate)
        except (ValueError, RecursionError):  # a model run into thousands of `[`: not a list
            continue


_NOTHING = re.compile(r"^\W*(?:\d+[.)]\s*)?(?:none|nothing|no recommendations?|n/?a)\W*$", re.IGNORECASE)


def parse_expert_reply(text: str, k: int = DEFAULT_K) -> list[str] | None:
    """The expert's ordered list, or None when the reply cannot be parsed.

    Accepts the JSON object asked for, a bare JSON array, JSON inside code
    fences or surrounded by prose, and a numbered or bulleted list (what the
    list output format asks for); "none" is an empty list.
    """
    if _NOTHING.match(text.strip().splitlines()[0] if text.strip() else ""):
        return []
    for data in json_values(text):
        if isinstance(data, dict):
            data = data.get("recommended", data.get("entities"))
        if isinstance(data, list) and all(isinstance(x, str) for x in data):
            out: list[str] = []
            seen: set[str] = set()
            for item in data:
                name = " ".join(item.split())
                key = normalize_surface(name)
                if name and key and key not in seen:
                    seen.add(key)
                    out.append(name)
            return out[:k]
    items = extract_list(text, k)
    return items if items else None


@dataclass(frozen=True)
class Voted:
    surface: str  # the most frequent surface form among the experts
    votes: int  # (expert, position) slots holding the entity (Eq. 1)
    mean_position: float  # 1-based, over the experts that listed it


def majority_vote(expert_lists: Sequence[Sequence[str]], k: int = DEFAULT_K) -> list[Voted]:
    """Combine the experts' ordered lists (docs/methods.md §1, Eq. 1–2).

    v(e) = slots holding e; the final list is the k entities with most votes.
    Ties: smaller mean position among the experts that listed e, then the best
    (smallest) position any expert gave it, then the name. Every rule looks only
    at the multiset of lists, so the result does not depend on expert order.
    """
    votes: dict[str, int] = {}
    positions: dict[str, list[int]] = {}
    forms: dict[str, dict[str, int]] = {}
    for entries in expert_lists:
        for position, surface in enumerate(entries, start=1):
            key = normalize_surface(surface)
            if not key:
                continue
            votes[key] = votes.get(key, 0) + 1
            positions.setdefault(key, []).append(position)
            forms.setdefault(key, {}).setdefault(surface, 0)
            forms[key][surface] += 1
    ranked = sorted(
        votes,
        key=lambda key: (-votes[key], sum(positions[key]) / len(positions[key]), min(positions[key]), key),
    )
    out = []
    for key in ranked[:k]:
        surface = sorted(forms[key].items(), key=lambda item: (-item[1], item[0]))[0][0]
        out.append(Voted(surface, votes[key], sum(positions[key]) / len(positions[key])))
    return out


def expert_agreement(expert_lists: Sequence[Sequence[str]]) -> float | None:
    """Mean pairwise Jaccard similarity of the experts' entity sets (1 = all agree).
    Two empty lists agree fully; None with fewer than two experts."""
    sets = [{normalize_surface(s) for s in entries} for entries in expert_lists]
    if len(sets) < 2:
        return None
    scores = [len(a & b) / len(a | b) if a | b else 1.0 for a, b in combinations(sets, 2)]
    return sum(scores) / len(scores)


EXTRACTION_INSTRUCTION = (
    "Below is a question a user asked and the answer an assistant gave.\n"
    "List the brands, products, places or organisations that the answer RECOMMENDS "
    "(not ones merely mentioned or advised against), most recommended first, at most {k}.\n"
    'Reply with JSON only: {"recommended": ["name", ...]}. Use an empty list if nothing is recommended.\n\n'
)


LIST_INSTRUCTION = (
    "Below is a question a user asked and the answer an assistant gave.\n"
    "List the brands, products, places or organisations that the answer RECOMMENDS "
    "(not ones merely mentioned or advised against), most recommended first, at most {k}.\n"
    "Reply with a numbered list, one name per line, or the word none.\n\n"
)


def extraction_messages(question: str, answer: str, k: int, output: str = "json") -> list[dict[str, str]]:
    instruction = EXTRACTION_INSTRUCTION if output == "json" else LIST_INSTRUCTION
    # Concatenation, never str.format: the question and the answer are data.
    prompt = instruction.replace("{k}", str(k)) + "Question: " + question + "\n\nAnswer: " + answer + "\n"
    return [{"role": "user", "content": prompt}]
