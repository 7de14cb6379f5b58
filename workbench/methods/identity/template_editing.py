"""What the app's template editor (identity's Design tab) asks of the method: the template's
text, a preview of sampled prompts rendered as the run will render them, and saving."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.methods.identity.templates import parse_template, preview_prompts, template_text


class IdentityTemplates:
    """`hooks.TemplateEditing` for identity studies."""

    def template_text(self, study: Any) -> tuple[str, str]:
        text, _path = template_text(study.template_source)
        return text, study.template_source

    def preview(self, text: str, study: Any, seed: int) -> tuple[str, list[tuple[str, str]]]:
        template = parse_template(text, "template")  # TemplateError: a UserFacingError naming the line
        heading = (
            f"{len(template.groups)} groups × 4 conditions, seed {seed}; the study samples "
            f"{study.per_group} per group = {study.per_group * len(template.groups)} prompts per model"
        )
        return heading, [(f"{p.group} · {p.condition}", p.text) for p in preview_prompts(template, seed)]

    def save(self, study_path: str, source: str, text: str) -> Path:
        return save_template(study_path, source, text)


TEMPLATE_EDITING = IdentityTemplates()


def save_template(study_path: str | Path, source: str, text: str) -> Path:
    """Write an edited identity template. A template file is overwritten (the previous
    one kept as .bak); a bundled one is never changed: the edit goes to a file next to
    the study, and the study's `template` key is pointed at it."""
    import re
    import shutil

    from workbench.methods.study_files import load_study

    template = parse_template(text, "the edited template")  # never save one that does not load
    study_path = Path(study_path)
    target = Path(source) if Path(source).exists() else study_path.parent / f"{template.name}.toml"
    if target.exists():
        shutil.copy2(target, target.with_suffix(target.suffix + ".bak"))
    target.write_text(text, encoding="utf-8")
    if not Path(source).exists():
        study_text = study_path.read_text("utf-8")
        line = f'template = "{target.name}"'
        pattern = re.compile(r"^template\s*=.*$", re.M)
        if pattern.search(study_text):
            study_text = pattern.sub(lambda _: line, study_text, count=1)
        else:
            study_text = re.sub(
                r"^(method\s*=.*)$", lambda m: m.group(1) + "\n" + line, study_text, count=1, flags=re.M
            )
        tmp = study_path.with_suffix(study_path.suffix + ".tmp")
        tmp.write_text(study_text, encoding="utf-8")
        load_study(tmp)  # the study must still load before it is replaced
        shutil.copy2(study_path, study_path.with_suffix(study_path.suffix + ".bak"))
        tmp.replace(study_path)
    return target
