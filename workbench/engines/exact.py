"""Exact means exact: a prompt that cannot be scored as the study asks is never scored
another way in its place.

An engine raises `NotExact` for a prompt no endpoint can score exactly (no endpoint
returns echoed prompt log-probs for it). The runner leaves that prompt pending, scores
the others, and ends the model's run with one line (`closing_line`) naming the prompts
and the option that would score them by the approximation, chosen by the user.
"""

from __future__ import annotations

from workbench.errors import NotExact  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.text.words import plural

ADVICE = (
    "to score them by the first-token approximation instead (stored and shown as first_token), "
    'set scoring = "first_token" in the study'
)
NAMED = 3  # prompts named in the closing line; the rest are counted


def prompt_name(suffix: str, limit: int = 70) -> str:
    """How a prompt is named in one line: its own part's first line ("Sentence: ..."),
    which names the entity and the template, shortened."""
    first = " ".join((suffix.strip().splitlines() or [""])[0].split())
    return first if len(first) <= limit else first[: limit - 1] + "…"


def closing_line(prompts: list[str], reason: str, *, left: int, everywhere: bool, in_a_row: int | None) -> str:
    """The one line a model's run ends with when prompts could not be scored exactly:
    `prompts` those tried, `left` the requests left pending; `everywhere`: no endpoint
    scores any prompt exactly; `in_a_row`: the model stopped after that many in a row."""
    named = ", ".join(f'"{p}"' for p in prompts[:NAMED])
    more = f" and {len(prompts) - NAMED} more" if len(prompts) > NAMED else ""
    if everywhere:
        return (
            f"stopped, no prompt can be scored exactly: {reason}; its {plural(left, 'request is', 'requests are')} left pending, "
            f"none approximated (the first: {named}); {ADVICE}"
        )
    count = plural(len(prompts), "prompt")
    if in_a_row:
        return (
            f"stopped after {in_a_row} prompts in a row could not be scored exactly: {named}{more} ({reason}); "
            f"its {plural(left, 'request is', 'requests are')} left pending, none approximated; {ADVICE}"
        )
    return (
        f"{count} could not be scored exactly: {named}{more} ({reason}); they are left pending, "
        f"none approximated, and the others were scored exactly; {ADVICE}"
    )
