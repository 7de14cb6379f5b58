"""The report's opening summary and its limitations, in plain words, generated from the
records and the store: the largest effects with their intervals, ties named as ties, what is
n/a and why; then what limits the numbers (sample sizes, the model's size, the share no person
reviewed, a single repetition, ...). Nothing here is written by hand for one study."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import Any

from workbench import methods, na_reasons
from workbench.numbers import fmt_num
from workbench.report.document import Block, Paragraph, Section, TableBlock
from workbench.report.study_facts import StudyFacts
from workbench.store import report_reads
from workbench.words import plural_word


@dataclass(frozen=True)
class Effect:
    """One method's headline effect: which records, which field holds it, how a row reads,
    and whether 0 means no effect (a divergence is never below 0: it has no side)."""

    metric: str
    field: str
    label: str  # a format string over the record's fields
    signed: bool = True
    keep: Any = None  # a record filter beyond the metric
    rests_on: str = "n {n}"  # what the number rests on, a format string over the record's fields


EFFECTS = (
    Effect(
        "lor",
        "mean",
        "{model} · {topic}: log-odds {region_a} vs {region_b}",
        keep=lambda r: not r.get("cluster"),
        rests_on="{n_clusters} of {n_total} clusters, {slots_a} vs {slots_b} slots",
    ),
    Effect("mean_share_vs_baseline", "difference", "{model} · {group} · {condition}: Mean Share minus the baseline's"),
    Effect(
        "iou_divergence",
        "mean",
        "{model} · {persona}: IOU divergence from the neutral list",
        signed=False,
        rests_on="{n} seeds",
    ),
    Effect("entity_delta", "value", "{model} · {variant}: Delta of {entity}", rests_on="{n} templates"),
    Effect("group_delta", "value", "{model} · {attribute} = {value_label}: mean Delta", rests_on="{n} entities"),
)


EFFECT_NAMES = {  # how the summary names each kind of effect (the records' metric keys are for programs)
    "lor": "log-odds between regions",
    "mean_share_vs_baseline": "Mean Share against the baseline",
    "iou_divergence": "IOU divergence from the neutral list",
    "entity_delta": "Delta per entity",
    "group_delta": "mean Delta per group",
}


def largest_effects(rows: list[dict[str, Any]], top: int = 3) -> tuple[Effect, list[dict[str, Any]]] | None:
    """The first kind of effect (EFFECTS, in order) the records have values of, and its `top`
    largest in size, largest first (ties by label, so a report reads the same every time)."""
    for effect in EFFECTS:
        found = [
            r
            for r in rows
            if r.get("metric") == effect.metric
            and r.get(effect.field) is not None
            and (effect.keep is None or effect.keep(r))
        ]
        if found:
            found.sort(key=lambda r: (-abs(r[effect.field]), _label(effect, r)))
            return effect, found[:top]
    return None


def _label(effect: Effect, row: dict[str, Any], form: str | None = None) -> str:
    class Missing(dict):
        def __missing__(self, key: str) -> str:
            return "?"

    return (form or effect.label).format_map(Missing({k: "" if v is None else v for k, v in row.items()}))


def effect_sentence(effect: Effect, row: dict[str, Any]) -> str:
    """The effect with its interval, what it rests on and its tests (p, and adjusted over the
    family: Holm), and what they allow one to say: an interval that excludes 0 while the
    adjusted test does not reject is said to be that, not a finding."""
    value, low, high = row[effect.field], row.get("ci_low"), row.get("ci_high")
    text = f"{_label(effect, row)}: {fmt_num(value, 2, signed=effect.signed)}"
    interval = f" [{fmt_num(low, 2)}, {fmt_num(high, 2)}]" if low is not None and high is not None else ""
    tests = [f"p {fmt_num(row['p'])}"] if row.get("p") is not None else []
    tests += [f"Holm {fmt_num(row['p_holm'])}"] if row.get("p_holm") is not None else []
    text += f"{interval} ({'; '.join([_label(effect, row, effect.rests_on), *tests])})"
    holm = row.get("p_holm")
    if not interval:
        reason = row.get("ci_na_reason")
        return text + (f", no interval ({reason})." if reason else ", no interval.")
    if not effect.signed:
        return text + "."
    if not (low > 0 or high < 0):
        return text + ": the 95% interval includes 0, so the data cannot tell this from no effect."
    if holm is not None and holm >= 0.05:
        return (
            text
            + ": the 95% interval excludes 0, but the test adjusted for every comparison (Holm) does not reject no effect."
        )
    return text + ": the 95% interval excludes 0."


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


def summary_section(facts: StudyFacts, records: list[Any]) -> Section:
    from workbench.metrics.records import as_rows

    rows = as_rows(records)
    models = sorted({str(r["model"]) for r in rows if r.get("model")})
    blocks: list[Block] = [Paragraph(_opening(facts, models, len(rows)))]
    found = largest_effects(rows)
    if found:
        effect, top = found
        blocks.append(
            Paragraph(f"The {plural(len(top), 'largest effect')} ({EFFECT_NAMES.get(effect.metric, effect.metric)}):")
        )
        blocks += [Paragraph(f"{i}. {effect_sentence(effect, r)}") for i, r in enumerate(top, start=1)]
    elif rows:
        blocks.append(Paragraph("No effect could be estimated: every effect is n/a (why: below)."))
    blocks += [Paragraph(text) for text in tie_sentences(rows)]
    blocks += na_blocks(records)
    return Section("summary", "Summary", blocks)


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
