"""The identity-disclosure study file's table (see study.py for an example file). The
template and the judge's prompt file study.py reads as it builds the study."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator

from workbench.engines.specs import ModelSpec
from workbench.studies.limits import MAX_PER_GROUP, MAX_SEED
from workbench.studies.schema import (
    Check,
    Flag,
    Generation,
    Models,
    Name,
    Table,
    file_name,
    model_spec,
    number,
    prompt_text,
    text,
)


def _rules_or_spec(value: str) -> ModelSpec | None:
    """`judge = "rules"` (None: probe answers are labelled by rules) or a model spec."""
    return None if value == "rules" else model_spec(value)


class IdentityFile(Table):
    method: Any = "identity"
    description: Any = ""
    models: Models
    template: text("a bundled template name (universities, neighborhoods) or a template file") = "universities"
    per_group: number("prompts per group", 1, MAX_PER_GROUP) = 40
    generation: Annotated[Generation, Check("a [generation] table")] = Generation()
    judge: Annotated[str, Check("a model spec string"), AfterValidator(_rules_or_spec)] | None = None
    judge_prompt: file_name("a path to a prompt file") | None = None
    name: Name | None = None  # None: the file's name
    seed: number("a whole-number seed", 0, MAX_SEED) = 1
    probe: prompt_text("the probe question") | None = None  # None: study.DEFAULT_PROBE
    structured: Flag = True  # answers constrained to the JSON schema the prompt asks for
