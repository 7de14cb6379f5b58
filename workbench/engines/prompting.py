"""Rendering chat messages for models that only complete text.

A base model (such as the bundled Gemma 3 270M) has no chat template, so a
conversation is written out as plain text that ends where the answer begins.
"""

from __future__ import annotations

ROLE_PREFIX = {"user": "Question: ", "assistant": "Answer: "}
COMPLETION_STOPS = ("\nQuestion:",)


def render_completion_prompt(messages: list[dict[str, str]]) -> str:
    parts: list[str] = []
    for message in messages:
        role, content = message.get("role", "user"), message.get("content", "")
        if role == "system":
            parts.append(content.strip() + "\n")
        else:
            parts.append(ROLE_PREFIX.get(role, f"{role}: ") + content.strip())
    return "\n".join(parts) + "\nAnswer:"
