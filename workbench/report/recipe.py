"""How to reproduce a report's numbers (the study file, the model specs as stored, the seeds,
the exact commands), and which convention its numbers follow."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from workbench.metrics.records import value_of
from workbench.report.document import Block, Commands, Facts, Paragraph, Section, TableBlock
from workbench.report.recipe_steps import Carried, carried_note, export_commands, import_commands
from workbench.report.study_facts import StudyFacts
from workbench.text.numbers import fmt_num

CONVENTION_NOTES = {
    "paper": "the published definitions of each metric.",
    "original": "the original research code's definitions where they differ from the published ones "
    "(so that its published tables can be reproduced); elsewhere the published ones.",
}


def seeds_in(spec: Any, where: str = "") -> list[tuple[str, str]]:
    """Every setting of the stored study whose name says it is a seed ("seed", "generation.seed",
    "bootstrap_seed"), with where it is: what makes sampling and resampling repeat."""
    found: list[tuple[str, str]] = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            path = f"{where}.{key}" if where else str(key)
            if "seed" in str(key).lower() and not isinstance(value, (dict, list)):
                found.append((path, json.dumps(value, ensure_ascii=False)))
            else:
                found += seeds_in(value, path)
    elif isinstance(spec, list):
        for i, value in enumerate(spec):
            found += seeds_in(value, f"{where}[{i}]")
    return found


def _file_spec(stored: str, file_specs: list[str]) -> str:
    """The study file's entry for a stored model (its transport options, `parallel` among them,
    are not part of the stored spec), or the stored spec when none matches."""
    from workbench.engines.specs import SpecError, parse_spec

    for entry in file_specs:
        try:
            if parse_spec(entry).canonical() == stored:
                return entry
        except (SpecError, ValueError, KeyError):
            continue
    return stored


def spec_as_run(model: dict[str, Any], file_specs: list[str], parallel: list[int | None] | None) -> str:
    """The model spec that asks as this run asked: the study file's, with `parallel` as most of
    the answers were decoded (`llama:default,parallel=8`): it can change a seeded answer."""
    spec = _file_spec(model["spec"], file_specs)
    ran = next((v for v in parallel or [] if v is not None), None)
    if ran is None or (parallel and parallel[0] is None):
        return spec
    if re.search(r",parallel=\d+", spec):
        return re.sub(r",parallel=\d+", f",parallel={ran}", spec)
    return f"{spec},parallel={ran}"


def _model_seed_rows(facts: StudyFacts, as_run: dict[int, str]) -> list[list[str]]:
    rows = []
    for m in facts.models:
        params = json.loads(m["params_json"] or "{}")
        option = params.get("seed")
        if m["seeds"]:
            span = (
                fmt_num(m["seed_min"]) if m["seeds"] == 1 else f"{fmt_num(m['seed_min'])} to {fmt_num(m['seed_max'])}"
            )
            requests = f"{fmt_num(m['seeds'])} distinct ({span})"
        else:
            requests = "none (requests carry no seed)"
        rows.append([m["spec"], as_run.get(m["id"], m["spec"]), "n/a" if option is None else fmt_num(option), requests])
    return rows


def run_command(facts: StudyFacts, as_run: dict[int, str] | None = None) -> str | None:
    """`workbench run` as it reproduces the stored plan: the study file, and `--model` for each
    model as it was run (`as_run`, else as stored) when those are not the study's own `models`
    (the run named others, or decoded with a `parallel` the file does not say)."""
    if not facts.source_path:
        return None
    words = ["workbench", "run", facts.source_path, "--db", facts.database]
    ran = [(as_run or {}).get(m["id"], m["spec"]) for m in facts.models]
    if ran and sorted(ran) != sorted(facts.spec.get("models") or []):
        for spec in ran:
            words += ["--model", spec]
    return shlex.join(words)


def recipe_section(
    facts: StudyFacts,
    convention: str,
    out_name: str,
    parallel: dict[int, list[int | None]] | None = None,
    carry: Carried | None = None,
) -> Section:
    """`parallel`: per model id, the `parallel` values its answers were decoded with; `carry`:
    the regions and decisions a new database needs besides the study file (recipe_steps)."""
    file_specs = [str(m) for m in facts.spec.get("models") or []]
    as_run = {m["id"]: spec_as_run(m, file_specs, (parallel or {}).get(m["id"])) for m in facts.models}
    blocks: list[Block] = [
        Facts(
            [
                ("Study file", facts.source_path or "none (imported data)"),
                ("Study file SHA-256 (on disk now)", facts.file_sha256 or "n/a"),
                ("Stored study SHA-256", facts.stored_sha256),
            ]
        )
    ]
    if facts.models:
        blocks.append(
            TableBlock(
                "Models and seeds",
                ["model (spec as stored)", "spec as run", "seed option", "request seeds"],
                _model_seed_rows(facts, as_run),
            )
        )
    seeds = seeds_in(facts.spec)
    blocks.append(
        Facts([(f"Study setting {path}", value) for path, value in seeds])
        if seeds
        else Paragraph("The stored study sets no seed.")
    )
    carry = carry or Carried(False, None, False)
    exports = export_commands(facts.database, carry)
    # The commands make a new database beside this one: printed with this one's name, they
    # told a reader "a new file" while every command wrote to the database reported on.
    new = _reproduced(facts.database)
    if exports:
        blocks.append(Paragraph("First, from the database this report was made from, what a person decided:"))
        blocks.append(Commands(exports))
        blocks.append(
            Paragraph(f"Then, on a new database, `{new}` (on this one the imports would record nothing twice):")
        )
    commands = []
    run = run_command(replace(facts, database=new), as_run)
    if run:
        commands.append(run)
    else:
        blocks.append(
            Paragraph(
                "The study was imported, not run from a study file: import the same files again with "
                f"`workbench import KIND FILE --db {new} --study {facts.name}`, then compute as below."
            )
        )
    commands += import_commands(new, carry)
    base = ["--db", new, "--study", facts.name]
    commands.append(shlex.join(["workbench", "metrics", *base, "--convention", convention]))
    commands.append(shlex.join(["workbench", "report", *base, "--convention", convention, "-o", _reproduced(out_name)]))
    blocks.append(Commands(commands))
    if carried_note(carry):
        blocks.append(Paragraph(carried_note(carry)))
    if run:
        blocks.append(
            Paragraph(
                "A run resumes where it stopped and asks nothing already answered; the same study file and "
                "model specs plan the same requests, with the same seeds. Served models answer the same only "
                "as far as their server is deterministic; a local GGUF is checked by its SHA-256."
            )
        )
    return Section("reproduce", "Reproducing these numbers", blocks)


def _reproduced(name: str) -> str:
    """The new database's (or report's) name: this one's, marked as the reproduction, beside it."""
    path = Path(name)
    return str(path.with_name(f"{path.stem}-reproduced{path.suffix}"))


def convention_section(convention: str, records: list[Any]) -> Section:
    # Only the known conventions are named in prose (a plugin's record could say anything).
    found = sorted({str(value_of(r, "convention")) for r in records} & CONVENTION_NOTES.keys()) or [convention]
    blocks: list[Block] = [
        Paragraph(f"Every number in this report follows the {c!r} convention: {CONVENTION_NOTES[c]}") for c in found
    ]
    blocks.append(
        Paragraph(
            "Each metric record names its convention (`workbench metrics --format json`, key `convention`); "
            "`--convention original` gives the other where a method's original code differs. What each "
            "metric means: docs/methods.md."
        )
    )
    return Section("conventions", "Conventions", blocks)
