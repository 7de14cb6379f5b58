"""Identity-disclosure prompts (docs/methods.md §2): templates as data, seeded stratified sampling.

A template is a list of sentences (some optional) with `<slot>` placeholders filled
from value lists and `{spot}` placeholders filled with a dialect variant. Rendering
substitutes by name only — user text is never evaluated (no str.format, no Jinja) —
and a placeholder without values is a clear error. Four conditions:
baseline (Standard American English, general values), dialect ({spot} takes the
group's variant), associated (slots take the group's associated entities where it
has some) and explicit (the disclosure sentence is added).
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from workbench.errors import TemplateError  # noqa: F401  (raised here; the family is workbench.errors)

CONDITIONS = ("baseline", "dialect", "associated", "explicit")
_SLOT = re.compile(r"<([A-Za-z_][\w ]*)>")
_SPOT = re.compile(r"\{([A-Za-z_][\w ']*)\}")


@dataclass(frozen=True)
class Template:
    name: str
    item_key: str
    groups: list[str]
    sentences: list[tuple[str, bool]]  # (text, optional)
    question: str
    explicit: str
    slots: dict[str, list[str]]
    spots: dict[str, dict[str, str]]
    associated: dict[str, dict[str, list[str]]]

    def groups_without_dialect(self) -> list[str]:
        """Groups no {spot} has a variant for: their `dialect` prompts read like the baseline,
        so a "dialect effect" for them cannot be measured."""
        return [g for g in self.groups if not any(g in variants for variants in self.spots.values())]

    def check(self) -> None:
        """Every placeholder has values, so sampling never fails half-way."""
        texts = [t for t, _ in self.sentences] + [self.question, self.explicit]
        for text in texts:
            for slot in _SLOT.findall(text):
                if slot != "group" and not self.slots.get(slot):
                    raise TemplateError(f"template {self.name!r}: slot <{slot}> has no values in [slots]")
            for spot in _SPOT.findall(text):
                if "baseline" not in self.spots.get(spot, {}):
                    raise TemplateError(f"template {self.name!r}: spot {{{spot}}} has no baseline in [spots.{spot}]")


def template_text(source: str | Path) -> tuple[str, Path | None]:
    """The TOML text of a template file, or of a bundled one by name (then no path)."""
    path = Path(source)
    if path.is_file():
        try:
            return path.read_text("utf-8"), path
        except UnicodeDecodeError as exc:
            raise TemplateError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
        except OSError as exc:
            raise TemplateError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if path.is_dir():
        raise TemplateError(f"{source}: is a directory, not a template file")
    bundled = files("workbench.assets").joinpath("identity", f"{source}.toml") if str(source).isidentifier() else None
    if bundled is None or not bundled.is_file():
        raise TemplateError(f"{source}: no such template file or bundled template")
    return bundled.read_text("utf-8"), None


def parse_template(text: str, where: str) -> Template:
    """A template from its TOML text; errors name `where` and the line or key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TemplateError(f"{where}: not valid TOML: {exc}") from None
    try:
        template = Template(
            name=data["name"],
            item_key=data.get("item_key", "item"),
            groups=list(data["groups"]),
            sentences=[(s["text"], bool(s.get("optional", False))) for s in data["sentences"]],
            question=data["question"],
            explicit=data.get("explicit", "Keep in mind that I am <group>."),
            slots={k: list(v) for k, v in data.get("slots", {}).items()},
            spots={k: dict(v) for k, v in data.get("spots", {}).items()},
            associated={g: {k: list(v) for k, v in d.items()} for g, d in data.get("associated", {}).items()},
        )
    except KeyError as exc:
        raise TemplateError(f"{where}: missing key {exc.args[0]!r}") from None
    except (TypeError, AttributeError, ValueError) as exc:
        raise TemplateError(
            f"{where}: a key has the wrong shape ({exc}); see the bundled universities template for the layout"
        ) from None
    template.check()
    return template


def load_template(source: str | Path) -> Template:
    """A template file, or the name of a bundled one (universities, neighborhoods)."""
    text, path = template_text(source)
    return parse_template(text, str(path) if path else f"bundled template {source}")


@dataclass(frozen=True)
class SampledPrompt:
    group: str
    condition: str
    text: str
    choices: dict[str, str]  # which value each slot took, for analysis
    no_signal: bool = False  # a dialect prompt for a group without dialect variants: the baseline's words


def render(template: Template, group: str, condition: str, rng: random.Random) -> SampledPrompt:
    if condition not in CONDITIONS:
        raise TemplateError(f"unknown condition {condition!r} (expected one of {', '.join(CONDITIONS)})")
    choices: dict[str, str] = {}

    def slot_value(match: re.Match) -> str:
        name = match.group(1)
        if name == "group":
            return group
        if name not in choices:
            pool = template.slots.get(name) or []
            associated = template.associated.get(group, {}).get(name)
            if condition == "associated" and associated:
                pool = associated
            if not pool:
                raise TemplateError(f"template {template.name!r}: slot <{name}> has no values")
            choices[name] = rng.choice(pool)
        return choices[name]

    def spot_value(match: re.Match) -> str:
        variants = template.spots.get(match.group(1), {})
        if condition == "dialect" and group in variants:
            return variants[group]
        if "baseline" not in variants:
            raise TemplateError(f"template {template.name!r}: spot {{{match.group(1)}}} has no baseline")
        return variants["baseline"]

    parts = []
    for text, optional in template.sentences:
        # Optional sentences that carry the identity signal are kept in its condition.
        signal = (condition == "dialect" and _SPOT.search(text)) or (
            condition == "associated" and any(template.associated.get(group, {}).get(s) for s in _SLOT.findall(text))
        )
        if optional and not signal and rng.random() < 0.5:
            continue
        parts.append(_SPOT.sub(spot_value, _SLOT.sub(slot_value, text)))
    if condition == "explicit":
        parts.append(_SLOT.sub(slot_value, template.explicit))
    parts.append(template.question)
    no_signal = condition == "dialect" and group in template.groups_without_dialect()
    return SampledPrompt(group, condition, " ".join(parts), dict(choices), no_signal)


def sample_prompts(
    template: Template, per_group: int, seed: int, conditions: tuple[str, ...] = CONDITIONS
) -> list[SampledPrompt]:
    """`per_group` prompts for every group, spread evenly over the conditions
    (stratified), from a seeded RNG: the same seed gives the same prompts."""
    rng = random.Random(seed)
    prompts = []
    for group in template.groups:
        for index in range(per_group):
            prompts.append(render(template, group, conditions[index % len(conditions)], rng))
    return prompts


def preview_prompts(template: Template, seed: int) -> list[SampledPrompt]:
    """One sampled prompt per group and condition: what the template editor shows."""
    rng = random.Random(seed)
    return [render(template, group, condition, rng) for group in template.groups for condition in CONDITIONS]


def read_recommendations(text: str, item_key: str) -> tuple[list[dict[str, Any]] | None, str | None]:
    """(items, how): the JSON reply if there is one ("json"); failing that, the items of
    a numbered or bulleted list, without explanations ("list"); (None, None) otherwise."""
    from workbench.asking.extract import extract_list

    items = parse_recommendations(text, item_key)
    if items is not None:
        return items, "json"
    names = extract_list(text, k=10)
    if names:
        return [{"item": name, "explanation": ""} for name in names], "list"
    return None, None


def parse_recommendations(text: str, item_key: str) -> list[dict[str, Any]] | None:
    """The recommended items with explanations from a JSON reply, tolerating code fences,
    prose around the JSON, a top-level list or an object holding one; None if unparseable."""
    from workbench.asking.extract import json_values

    for data in json_values(text):
        if isinstance(data, dict):
            if item_key in data:
                data = [data]
            else:
                data = next((v for v in data.values() if isinstance(v, list)), None)
        if isinstance(data, list):
            items = [
                {"item": str(d[item_key]).strip(), "explanation": str(d.get("explanation", ""))}
                for d in data
                if isinstance(d, dict) and d.get(item_key)
            ]
            if items or data == []:
                return items
    return None
