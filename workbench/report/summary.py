"""The report's opening summary and its limitations, in plain words, generated from the
records and the store: the best-evidenced effects with their intervals and caveats, ties named as ties, what is
n/a and why; then what limits the numbers (sample sizes, the model's size, the share no person
reviewed, a single repetition, ...). Nothing here is written by hand for one study."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from workbench import methods
from workbench.display import na_reasons
from workbench.report.document import Block, Paragraph, Section, TableBlock
from workbench.report.headlines import EFFECTS, effect_sentence, headline_effects  # noqa: F401  (EFFECTS: re-exported)
from workbench.report.question import audit_question
from workbench.report.study_facts import StudyFacts
from workbench.store.reads import report as report_reads
from workbench.text.numbers import fmt_num
from workbench.text.words import plural_word

EFFECT_NAMES = {  # how the summary names each kind of effect (the records' metric keys are for programs)
    "lor": "log-odds between regions",
    "mean_share_vs_baseline": "Mean Share against the baseline",
    "iou_divergence": "IOU divergence from the neutral list",
    "entity_delta": "Delta per entity",
    "group_delta": "mean Delta per group",
}


def tie_sentences(rows: list[dict[str, Any]]) -> list[str]:
    """A preferred entity held with others is a tie: every entity named, and how many answers."""
    out = []
    for r in rows:
        if r.get("metric") == "peir" and r.get("tied_with") and not r.get("cluster"):
            names = ", ".join(sorted([r["entity"], *r["tied_with"]]))
            share = r.get("value") or 0.0
            each = round(share * r["n"]) if r.get("n") else None
            counted = (
                f"each in {each} of {r['n']} {plural_word(r['n'], 'answer')}" if each is not None else "each as often"
            )
            out.append(f"{r['model']} · {r['topic']}: a tie, no preferred entity: {names} ({counted}).")
    return out


# Under this share of draws e* is a close call: about a one-sided test of its lead at 2.5 %
# (docs/methods.md, "The preferred entity is chosen from the data").
CLOSE_CALL = 0.975


def close_call_sentences(rows: list[dict[str, Any]]) -> list[str]:
    """The report's summary: each model x topic whose e* another set of questions could well
    replace, in words ("a tie" is said elsewhere, for ties)."""
    out = []
    for r in rows:
        stays = r.get("stays_preferred")
        if r.get("metric") != "peir" or r.get("cluster") or r.get("tied_with") or stays is None:
            continue
        if stays < CLOSE_CALL:
            out.append(
                f"{r['model']} · {r['topic']}: {r['entity']} is preferred by a narrow margin, named in "
                f"{fmt_num(r['value'], 2)} of the answers against {fmt_num(r['runner_up_value'], 2)} for "
                f"{r['runner_up']}, and first in {stays:.0%} of draws over questions: another set of questions "
                f"could prefer {r['runner_up']}."
            )
    return out


def summary_section(facts: StudyFacts, records: list[Any]) -> Section:
    from workbench.metrics.records import as_rows

    rows = as_rows(records)
    models = sorted({str(r["model"]) for r in rows if r.get("model")})
    asked = sorted(m["spec"] for m in facts.models) or models  # the models as asked (imported: as named)
    topics = sorted({str(r["topic"]) for r in rows if r.get("topic")})
    blocks: list[Block] = [Paragraph(audit_question(facts.method, asked, topics))]
    blocks.append(Paragraph(_opening(facts, models, len(rows))))
    blocks += headline_blocks(rows)
    blocks += [Paragraph(text) for text in tie_sentences(rows) + close_call_sentences(rows)]
    blocks += na_blocks(records)
    return Section("summary", "Summary", blocks)


def headline_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """The best-evidenced effects of the method's headline kind (workbench/report/headlines.py),
    each with its caveats, and how many of that kind are left out for want of an interval."""
    found = headline_effects(rows)
    if not found and rows and not {r.get("metric") for r in rows} & {e.metric for e in EFFECTS}:
        # a method whose numbers are none of the headline kinds (a plugin's): not "all n/a"
        return [Paragraph("This study's method names no headline numbers: its numbers are in its section below.")]
    if not found:
        return [Paragraph("No effect could be estimated: every effect is n/a (why: below).")] if rows else []
    effect, top, left_out = found
    name = EFFECT_NAMES.get(effect.metric, effect.metric)
    # estimates of this kind that are no headline: said, so that a short list is not read as all there is
    without = f"; {fmt_num(left_out)} without an interval or n/a left out (why: below)" if left_out else ""
    if not top:
        return [Paragraph(f"No estimate of the {name} has an interval, so none leads this summary{without}.")]
    blocks: list[Block] = [
        Paragraph(f"The {_best(len(top))} ({name}; ranked by {_ranked_by(top)}, not by size{without}):")
    ]
    return blocks + [Paragraph(f"{i}. {effect_sentence(effect, r, rows)}") for i, r in enumerate(top, start=1)]


def _best(n: int) -> str:
    return "best-evidenced effect" if n == 1 else f"{plural(n, 'best-evidenced effect')}"


def _ranked_by(top: list[dict[str, Any]]) -> str:
    if any(r.get("p_holm") is not None for r in top):
        return "the Holm-adjusted p, then by how far the interval lies from 0"
    if any(r.get("p") is not None for r in top):
        return "p, then by how far the interval lies from 0"
    return "how far the interval lies from 0"


def _opening(facts: StudyFacts, models: list[str], numbers: int) -> str:
    if not numbers:
        return f"`{facts.name}` ({facts.method}) has no numbers yet: {_why_empty(facts)}"
    answered = _asked_here(facts) if facts.models else "imported data"
    return (
        f"This report covers the {facts.method} study `{facts.name}`: {plural(len(models), 'model')}, "
        f"{answered}, {fmt_num(numbers)} numbers."
    )


STAGE_CALLS = {"extract": "extraction call"}  # what a later stage's request is called; else "STAGE call"


def _asked_here(facts: StudyFacts) -> str:
    """The answers (the method's first stage) and, apart, the calls later stages made on them
    (an expert's extraction of an answer is not an answer): "72 answers asked here (and 216
    extraction calls)"."""
    try:
        first = methods.get(facts.method).first_stage
    except KeyError:  # a method not installed here
        first = "answer"
    answers, later = 0, Counter()
    for record in facts.status:
        if record["stage"] == first:
            answers += record["done"]
        else:
            later[record["stage"]] += record["done"]
    # Imported data was not asked here: its requests stand for the imported rows.
    text = f"{fmt_num(answers)} {plural_word(answers, 'answer')} " + ("imported" if facts.imported else "asked here")
    calls = [
        f"{fmt_num(n)} {plural_word(n, STAGE_CALLS.get(stage, f'{stage} call'))}" for stage, n in later.items() if n
    ]
    return text + (f" (and {', '.join(calls)})" if calls else "")


def _why_empty(facts: StudyFacts) -> str:
    asked = sum(m["requests"] for m in facts.models)
    if not asked:
        return "nothing was asked or imported yet. Run the study, then make this report again."
    return (
        f"{fmt_num(facts.answers)} of {fmt_num(asked)} {plural_word(asked, 'request')} answered; its numbers come at the end of "
        "the run (`workbench run` resumes it)."
    )


def na_blocks(records: list[Any]) -> list[Block]:
    """What is n/a and why, with what to do: the same reasons the findings' notes give."""
    rows = na_reasons.na_rows(records)
    if not rows:
        return [Paragraph("Every number has a value: none is n/a.")]
    total = sum(int(n) for _t, n, _r in rows if n.isdigit())
    intro = Paragraph(f"{plural(total, 'number')} n/a, for {plural(len(rows), 'reason')}:")
    return [intro, TableBlock("What is n/a, why, and what to do", ["n/a because", "numbers", "what to do"], rows)]


# -- limitations -----------------------------------------------------------------------


def limitations_section(conn: sqlite3.Connection, facts: StudyFacts, records: list[Any]) -> Section:
    from workbench.metrics.records import as_rows

    rows = as_rows(records)
    items = _sample_items(facts, rows) + _model_items(facts) + _design_items(conn, facts, rows)
    if not items:
        items = ["None found in the data: still, every number is of these models, these questions, these answers."]
    return Section("limitations", "Limitations", [Paragraph(f"- {text}") for text in items])


def _sample_items(facts: StudyFacts, rows: list[dict[str, Any]]) -> list[str]:
    items = []
    counted = [
        r for r in rows if isinstance(r.get("n"), int) and r.get("metric") in ("peir", "mean_share", "parse_rate")
    ]
    if counted:
        smallest = min(counted, key=lambda r: r["n"])
        # the cell as the tables name it: a cluster's cell names its cluster (a topic's has more answers)
        keys = ("model", "topic", "cluster", "persona", "group", "condition")
        where = " · ".join(str(smallest[k]) for k in keys if smallest.get(k))
        items.append(
            f"Sample sizes: the smallest cell rests on {plural(smallest['n'], 'answer')} ({where}); "
            f"the largest on {plural(max(r['n'] for r in counted), 'answer')}."
        )
    for m in facts.models:
        if m["requests"] and m["answers"] < m["requests"]:
            items.append(f"{m['spec']}: {fmt_num(m['answers'])} of {fmt_num(m['requests'])} requests answered.")
    return items


def _model_items(facts: StudyFacts) -> list[str]:
    items = []
    for m in facts.models:
        size = model_size(m)
        if size:
            items.append(f"{m['spec']}: {size}; a small model's preferences may not be those of larger ones.")
        elif m["engine"] != "llama":
            items.append(
                f"{m['spec']}: a served model of unknown size; its answers repeat only as far as its server is "
                "deterministic, and the model behind the name may change."
            )
    if facts.imported and not facts.models:
        items.append("Imported data: how its lists were made (model, settings, extraction) is not recorded here.")
    return items


def model_size(model: dict[str, Any]) -> str:
    """ "a 268M-parameter GGUF" from the file's tensor table, "" when it cannot be read."""
    if not model.get("file_path"):
        return ""
    from workbench.engines.llama_precision import parameter_count

    try:
        count = parameter_count(model["file_path"])
    except (OSError, ValueError):
        return ""
    scaled = f"{count / 1e9:.1f}B" if count >= 1e9 else f"{count / 1e6:.0f}M"
    return f"a {scaled}-parameter model (its GGUF's tensor table)"


def _design_items(conn: sqlite3.Connection, facts: StudyFacts, rows: list[dict[str, Any]]) -> list[str]:
    items = []
    spec = facts.spec
    if spec.get("repetitions") == 1:
        items.append(
            "One repetition per question: stability across repetitions is n/a, and an answer's sampling "
            "noise cannot be told from the question's effect."
        )
    seeds = spec.get("seeds")
    if isinstance(seeds, list) and len(seeds) == 1 or seeds == 1:
        items.append("One seed: the divergences have no spread over seeds and no interval.")
    counts = report_reads.list_review_counts(conn, facts.id)
    if counts["lists"]:
        unreviewed = counts["lists"] - counts["reviewed"]
        items.append(
            f"Unreviewed: {fmt_num(unreviewed)} of {fmt_num(counts['lists'])} extracted lists "
            f"({unreviewed / counts['lists']:.0%}) have no person's verdict; their extraction errors stand."
        )
    # counted where the summary names them (each model and topic), not in the clusters no table shows
    ties = Counter(
        bool(r.get("tied_with")) for r in rows if r.get("metric") == "peir" and r.get("entity") and not r.get("cluster")
    )
    if ties[True]:
        items.append(
            f"Ties: {fmt_num(ties[True])} of {fmt_num(sum(ties.values()))} preferred entities (one per model "
            "and topic) are ties, named in the summary."
        )
    na = sum(1 for r in rows for k in na_reasons.REASON_FIELDS if r.get(k))
    if na:
        items.append(f"{plural(na, 'number')} n/a (the summary says why).")
    return items


def plural(n: int, word: str) -> str:
    """ "1 answer", "2,000 answers": the report's numbers formatted as everywhere in it."""
    return f"{fmt_num(n)} {plural_word(n, word)}"
