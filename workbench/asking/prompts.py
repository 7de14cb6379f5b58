"""Prompt templates: the bundled ones or a user's file, filled by plain substitution."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def load_prompt(path: str | None, default: str) -> str:
    """The user's template file when given, else the bundled `assets/prompts/<default>`."""
    if path:
        return Path(path).read_text("utf-8")
    return files("workbench.assets").joinpath("prompts", default).read_text("utf-8")


def fill(template: str, **values: str) -> str:
    """Replace {name} placeholders by plain substitution: user prompts are data,
    never evaluated (no str.format, so braces elsewhere are left alone)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template
