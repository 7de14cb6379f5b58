"""The report's "What was asked" part: the questions (a count per topic and cluster here, each
one in an appendix), what each model was sent at each stage (system prompt, temperature, top_p,
max tokens, stops, seeds) and how it was run (parallel, precision), the study's settings and its
extraction's (method, experts, k, min_votes, grounding), read from the study as stored and the
requests as sent: what a reader needs to judge, or repeat, the answers."""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from workbench.report.document import Block, Facts, Paragraph, Section, TableBlock
from workbench.report.study_facts import StudyFacts
from workbench.store.reads import report_asked
from workbench.text.numbers import fmt_num

# The study's own tables, each shown on its own (the rest of the stored study is its settings).
OWN_TABLES = ("name", "method", "description", "models", "generation", "extraction", "clusters", "metrics")
EXTRACTION_FIRST = ("method", "experts", "k", "min_votes", "grounding")
# What the extraction experts are sent: shown for the experts method only (only it asks a model)
EXPERTS_SAMPLING = ("model", "temperature", "max_tokens", "output")
SAMPLING = (("temperature", "temperature"), ("top_p", "top_p"), ("max_tokens", "max tokens"), ("stop", "stop"))


def setting(value: Any) -> str:
    """A stored setting as it reads: text as it is, anything else as JSON."""
    if value is None:
        return "not set"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def asked_section(conn: sqlite3.Connection, facts: StudyFacts) -> Section:
    blocks: list[Block] = [
        Paragraph(
            "What the models were asked and how, read from the study as stored (the file as parsed when it "
            "was last run or imported) and from the requests as they were sent."
        )
    ]
    blocks += question_blocks(conn, facts)
    blocks += generation_blocks(conn, facts)
    blocks += settings_blocks(facts)
    return Section("asked", "What was asked", blocks)


def question_blocks(conn: sqlite3.Connection, facts: StudyFacts) -> list[Block]:
    counts = report_asked.question_counts(conn, facts.id)
    if not counts:
        return [
            Paragraph(
                "Questions: this method asks no questions of its own; its prompts follow from the settings below."
            )
        ]
    total = sum(n for _t, _c, n in counts)
    rows = [[topic, cluster or "(none)", fmt_num(n)] for topic, cluster, n in counts]
    rows.append(["all", "", fmt_num(total)])
    title = f"Questions per topic and cluster ({fmt_num(total)} in all; each one in the appendix)"
    return [TableBlock(title, ["topic", "cluster", "questions"], rows)]


def appendix_section(conn: sqlite3.Connection, facts: StudyFacts) -> Section | None:
    """Every question asked, by topic and cluster (None for a method without questions)."""
    texts = report_asked.question_texts(conn, facts.id)
    if not texts:
        return None
    rows = [[str(i), topic, cluster or "(none)", text] for i, (topic, cluster, text) in enumerate(texts, start=1)]
    table = TableBlock("The questions asked", ["#", "topic", "cluster", "question"], rows)
    return Section("appendix-questions", "Appendix: the questions", [table])


def _seed_text(row: dict[str, Any]) -> str:
    if not row["seeds"]:
        return "none"
    if row["seeds"] == 1:
        return fmt_num(row["seed_min"])
    return f"{fmt_num(row['seeds'])} ({fmt_num(row['seed_min'])} to {fmt_num(row['seed_max'])})"


def parallel_text(values: list[int | None] | None) -> str:
    """How the answers were decoded: "8" (all at parallel=8), "1" (one at a time), "8, 1 (mixed)"."""
    if not values:
        return "no answers yet"
    shown = ", ".join("1" if v is None else str(v) for v in values)
    return shown if len(values) == 1 else f"{shown} (mixed)"


def generation_blocks(conn: sqlite3.Connection, facts: StudyFacts) -> list[Block]:
    stages = report_asked.stage_settings(conn, facts.id)
    if not stages:
        generation = facts.spec.get("generation") or {}
        rows = [(label, setting(generation.get(key))) for key, label in SAMPLING]
        rows.append(("system prompt", setting(generation.get("system"))))
        return [
            Paragraph("Nothing was sent from here (imported data, or nothing run yet): the study's settings follow."),
            Facts(rows),
        ]
    parallel = report_asked.parallel_used(conn, facts.id)
    precision = {m["id"]: _precision(m) for m in facts.models}
    rows = [
        [
            row["spec"],
            row["stage"],
            fmt_num(row["requests"]),
            *(setting(row["params"].get(key)) for key, _label in SAMPLING),
            _seed_text(row),
            parallel_text(parallel.get(row["model_id"])),
            precision.get(row["model_id"], "-"),
            setting(row["system"]) if row["system"] is not None else "none",
        ]
        for row in stages
    ]
    header = ["model", "stage", "requests", *(label for _k, label in SAMPLING)]
    header += ["seeds", "parallel (as run)", "precision", "system prompt"]
    note = Paragraph(
        "Settings as sent with each stage's first request (every request of a stage shares them but for its "
        "seed). `parallel`: how many answers the local engine decoded together (1: one at a time, which "
        "repeats to the bit; above 1 a seeded answer may differ in its last bits). `precision`: of label "
        "scores, as the model spec sets it."
    )
    return [TableBlock("Generation settings per model and stage, as sent", header, rows), note]


def _precision(model: dict[str, Any]) -> str:
    """The spec's `precision` option (label scores), or that the engine chose it."""
    found = re.search(r",precision=([^,]+)", model.get("spec") or "")
    return found.group(1) if found else "engine default"


def settings_blocks(facts: StudyFacts) -> list[Block]:
    spec = facts.spec
    blocks: list[Block] = []
    rows = [(key, setting(value)) for key, value in spec.items() if key not in OWN_TABLES and value not in ({}, [])]
    if spec.get("models"):
        rows.append(("models (the study file's)", ", ".join(str(m) for m in spec["models"])))
    if rows:
        blocks.append(Facts(rows))
    extraction = spec.get("extraction")
    if isinstance(extraction, dict) and extraction:
        order = [k for k in EXTRACTION_FIRST if k in extraction] + [k for k in extraction if k not in EXTRACTION_FIRST]
        if extraction.get("method") != "experts":  # the experts' sampling: another method never sends it
            order = [k for k in order if k not in EXPERTS_SAMPLING]
        values = [(f"extraction {key}", _extraction_value(key, extraction)) for key in order]
        blocks.append(Paragraph("How answers became ranked lists (the study's `[extraction]` table as stored):"))
        blocks.append(Facts(values))
    return blocks


def _extraction_value(key: str, extraction: dict[str, Any]) -> str:
    value = extraction.get(key)
    method = extraction.get("method")
    if key in ("experts", "min_votes") and method not in (None, "experts"):
        return f"{setting(value)} (not used: method {method})"
    if key == "min_votes" and value is None and isinstance(extraction.get("experts"), int):
        return f"a majority: {extraction['experts'] // 2 + 1} of {extraction['experts']} experts (not set)"
    return setting(value)
